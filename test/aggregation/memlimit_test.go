package aggregation_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestMemoryLimitWire lowers the $group and $sort memory limits with
// setParameter (internalDocumentSourceGroupMaxMemoryBytes,
// internalQueryMaxBlockingSortMemoryUsageBytes) and checks through the
// driver that allowDiskUse:false fails with 292
// QueryExceededMemoryLimitNoDiskUseAllowed, while allowDiskUse:true and
// the default (allowDiskUseByDefault) spill and return the full result.
func TestMemoryLimitWire(t *testing.T) {
	t.Parallel()
	db := openDB(t, "big")
	coll := db.Collection("docs")
	pad := strings.Repeat("p", 200)
	var docs []any
	for i := 0; i < 2000; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "k", Value: i % 500}, {Key: "pad", Value: pad}})
	}
	if _, err := coll.InsertMany(testenv.Ctx(t), docs); err != nil {
		t.Fatal(err)
	}
	client := db.Client()
	testenv.SetParameter(t, db, "internalDocumentSourceGroupMaxMemoryBytes", int64(16<<10))
	testenv.SetParameter(t, db, "internalQueryMaxBlockingSortMemoryUsageBytes", int64(32<<10))
	var got bson.M
	if err := client.Database("admin").RunCommand(testenv.Ctx(t), bson.D{{Key: "getParameter", Value: 1}, {Key: "internalDocumentSourceGroupMaxMemoryBytes", Value: 1}}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got["internalDocumentSourceGroupMaxMemoryBytes"]) != "16384" {
		t.Fatalf("getParameter: %v", got)
	}
	group := `[{"$group":{"_id":"$k","n":{"$sum":1},"pads":{"$push":"$pad"}}},{"$project":{"n":1}},{"$sort":{"_id":1}}]`
	sort := `[{"$addFields":{"neg":{"$subtract":[0,"$_id"]}}},{"$sort":{"neg":1}},{"$project":{"_id":1}}]`
	for _, tc := range []struct {
		name, pipeline string
		check          func(t *testing.T, got []string)
	}{
		{"$group", group, func(t *testing.T, got []string) {
			if len(got) != 500 || got[7] != `{"_id":{"$numberInt":"7"},"n":{"$numberInt":"4"}}` {
				t.Fatalf("got %d groups, group 7 = %v", len(got), got[7])
			}
		}},
		{"$sort", sort, func(t *testing.T, got []string) {
			if len(got) != 2000 || got[0] != `{"_id":{"$numberInt":"1999"}}` || got[1999] != `{"_id":{"$numberInt":"0"}}` {
				t.Fatalf("got %d documents, first %v", len(got), got[0])
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := aggJS(t, coll, tc.pipeline, options.Aggregate().SetAllowDiskUse(false))
			wantServerCode(t, err, 292)
			var ce mongo.CommandError
			if errors.As(err, &ce) && ce.Name != "QueryExceededMemoryLimitNoDiskUseAllowed" {
				t.Fatalf("codeName %q", ce.Name)
			}
			for _, opts := range [][]options.Lister[options.AggregateOptions]{{options.Aggregate().SetAllowDiskUse(true)}, nil} {
				got, err := aggJS(t, coll, tc.pipeline, opts...)
				if err != nil {
					t.Fatal(err)
				}
				tc.check(t, got)
			}
		})
	}
}
