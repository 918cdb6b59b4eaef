package engine

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/collation"
)

// TestCollationsSurviveReopen: a collection's default collation and an
// index's collation are in the catalog, so after a reopen queries still
// use them and the index still holds sort keys.
func TestCollationsSurviveReopen(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := collation.Parse(D(t, bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}}))
	if err != nil {
		t.Fatal(err)
	}
	opts := bsoncore.NewDocumentBuilder().AppendDocument("collation", spec.Document()).Build()
	if err := e.CreateCollection("db", "c", CreateOptions{Raw: opts}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.CreateIndex("db", "c", IndexSpec{Key: D(t, bson.D{{Key: "s", Value: 1}}), Unique: true}); err != nil {
		t.Fatal(err)
	}
	insert(t, e, "db", "c", bson.D{{Key: "_id", Value: 1}, {Key: "s", Value: "Abc"}})
	check := func(when string) {
		t.Helper()
		docs := findAll(t, e, "db", "c", FindSpec{Filter: D(t, bson.D{{Key: "s", Value: "aBC"}})})
		if len(docs) != 1 {
			t.Fatalf("%s: %d documents match under the default collation", when, len(docs))
		}
		ixs, err := e.ListIndexes("db", "c")
		if err != nil || len(ixs) != 2 || ixs[0].Collation == nil || ixs[1].Collation == nil {
			t.Fatalf("%s: indexes %+v %v: both should carry the default collation", when, ixs, err)
		}
		res, err := e.Insert(context.Background(), "db", "c", []bsoncore.Document{D(t, bson.D{{Key: "_id", Value: 2}, {Key: "s", Value: "ABC"}})}, WriteOptions{Ordered: true})
		if err == nil && len(res.WriteErrors) == 0 {
			t.Fatalf("%s: a duplicate under strength 2 was accepted", when)
		}
	}
	check("before reopen")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, dir)
	check("after reopen")
}
