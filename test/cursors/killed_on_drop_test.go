package cursors_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestCursorKilledOnDropAndRename: a cursor whose collection is dropped
// (by drop, dropDatabase or a rename's dropTarget) or renamed returns no
// more documents; its next getMore fails with QueryPlanKilled (175) and
// mongod's message. Cursors on other collections go on.
func TestCursorKilledOnDropAndRename(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	c := context.Background()
	fill := func(d *mongo.Database, name string) *mongo.Collection {
		coll := d.Collection(name)
		docs := make([]any, 10)
		for i := range docs {
			docs[i] = bson.D{{Key: "_id", Value: i}}
		}
		if _, err := coll.InsertMany(c, docs); err != nil {
			t.Fatal(err)
		}
		return coll
	}
	other := fill(db, "other")
	otherCur, err := other.Find(c, bson.D{}, options.Find().SetBatchSize(2))
	if err != nil {
		t.Fatal(err)
	}
	defer otherCur.Close(c)
	for _, tc := range []struct {
		name   string
		gone   func(coll *mongo.Collection)
		errmsg string
	}{
		{"drop", func(coll *mongo.Collection) { must(t, coll.Drop(c)) }, "collection dropped. UUID "},
		{"dropDatabase", func(coll *mongo.Collection) { must(t, coll.Database().Drop(c)) }, "collection dropped. UUID "},
		{"rename", func(coll *mongo.Collection) {
			must(t, db.Client().Database("admin").RunCommand(c, bson.D{{Key: "renameCollection", Value: "dropdb.rename"}, {Key: "to", Value: "dropdb.renamed"}}).Err())
		}, "collection renamed from 'dropdb.rename' to 'dropdb.renamed'. UUID "},
		{"rename dropTarget", func(coll *mongo.Collection) {
			fill(coll.Database(), "src")
			must(t, db.Client().Database("admin").RunCommand(c, bson.D{{Key: "renameCollection", Value: "dropdb.src"}, {Key: "to", Value: "dropdb.rename dropTarget"}, {Key: "dropTarget", Value: true}}).Err())
		}, "collection dropped. UUID "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			coll := fill(db.Client().Database("dropdb"), tc.name)
			cur, err := coll.Find(c, bson.D{}, options.Find().SetBatchSize(2))
			if err != nil {
				t.Fatal(err)
			}
			defer cur.Close(c)
			seen := 0
			for seen < 2 && cur.Next(c) {
				seen++
			}
			tc.gone(coll)
			for cur.Next(c) {
				seen++
			}
			if seen != 2 {
				t.Fatalf("%d documents, want only the first batch's 2", seen)
			}
			var ce mongo.CommandError
			if !errors.As(cur.Err(), &ce) || ce.Code != 175 || ce.Name != "QueryPlanKilled" || !strings.HasPrefix(ce.Message, tc.errmsg) {
				t.Fatalf("getMore after %s: %v, want 175 QueryPlanKilled %q...", tc.name, cur.Err(), tc.errmsg)
			}
		})
	}
	n := 0
	for otherCur.Next(c) {
		n++
	}
	if otherCur.Err() != nil || n != 10 {
		t.Fatalf("cursor on another collection: %d documents, %v", n, otherCur.Err())
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
