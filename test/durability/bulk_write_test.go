package durability_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

func writeErrIndexes(t *testing.T, err error) []int {
	t.Helper()
	var be mongo.BulkWriteException
	if errors.As(err, &be) {
		var out []int
		for _, we := range be.WriteErrors {
			out = append(out, we.Index)
		}
		return out
	}
	var we mongo.WriteException
	if errors.As(err, &we) {
		var out []int
		for _, e := range we.WriteErrors {
			out = append(out, e.Index)
		}
		return out
	}
	t.Fatalf("want a bulk write error, got %T %v", err, err)
	return nil
}

func TestBulkOrderedAndUnordered(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		ordered   bool
		models    []mongo.WriteModel
		wantIdx   []int
		wantCount int64
	}{
		{"insert ordered stops", true, []mongo.WriteModel{
			mongo.NewInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: 10}}),
			mongo.NewInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: 1}}), // duplicate
			mongo.NewInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: 11}}),
		}, []int{1}, 4},
		{"insert unordered continues", false, []mongo.WriteModel{
			mongo.NewInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: 1}}),
			mongo.NewInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: 10}}),
			mongo.NewInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: 2}}),
			mongo.NewInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: 11}}),
		}, []int{0, 2}, 5},
		{"update ordered stops", true, []mongo.WriteModel{
			mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: 1}}).SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}),
			mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: 2}}).SetUpdate(bson.D{{Key: "$inc", Value: bson.D{{Key: "s", Value: 1}}}}), // $inc on a string
			mongo.NewInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: 12}}),
		}, []int{1}, 3},
		{"update unordered continues", false, []mongo.WriteModel{
			mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: 2}}).SetUpdate(bson.D{{Key: "$inc", Value: bson.D{{Key: "s", Value: 1}}}}),
			mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: 1}}).SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "_id", Value: 2}}}}), // immutable _id
			mongo.NewInsertOneModel().SetDocument(bson.D{{Key: "_id", Value: 12}}),
		}, []int{0, 1}, 4},
		{"delete unordered continues", false, []mongo.WriteModel{
			mongo.NewDeleteOneModel().SetFilter(bson.D{{Key: "$bad", Value: 1}}),
			mongo.NewDeleteOneModel().SetFilter(bson.D{{Key: "_id", Value: 1}}),
			mongo.NewDeleteManyModel().SetFilter(bson.D{{Key: "_id", Value: bson.D{{Key: "$nope", Value: 1}}}}),
			mongo.NewDeleteOneModel().SetFilter(bson.D{{Key: "_id", Value: 2}}),
		}, []int{0, 2}, 1},
		{"delete ordered stops", true, []mongo.WriteModel{
			mongo.NewDeleteOneModel().SetFilter(bson.D{{Key: "_id", Value: 1}}),
			mongo.NewDeleteOneModel().SetFilter(bson.D{{Key: "$bad", Value: 1}}),
			mongo.NewDeleteOneModel().SetFilter(bson.D{{Key: "_id", Value: 2}}),
		}, []int{1}, 2},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each case has its own instance
			_, d := testenv.Open(t)
			coll := d.Collection(fmt.Sprint("bulk", i))
			ctx := context.Background()
			if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}, {Key: "s", Value: "a"}},
				bson.D{{Key: "_id", Value: 2}, {Key: "s", Value: "b"}}, bson.D{{Key: "_id", Value: 3}, {Key: "s", Value: "c"}}}); err != nil {
				t.Fatal(err)
			}
			_, err := coll.BulkWrite(ctx, tc.models, options.BulkWrite().SetOrdered(tc.ordered))
			if err == nil {
				t.Fatal("bulk write succeeded")
			}
			if got := writeErrIndexes(t, err); fmt.Sprint(got) != fmt.Sprint(tc.wantIdx) {
				t.Fatalf("write error indexes %v, want %v (%v)", got, tc.wantIdx, err)
			}
			n, err := coll.CountDocuments(ctx, bson.D{})
			if err != nil {
				t.Fatal(err)
			}
			if n != tc.wantCount {
				t.Fatalf("count %d, want %d", n, tc.wantCount)
			}
		})
	}
}
