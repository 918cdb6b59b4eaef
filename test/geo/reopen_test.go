package geo_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// Geo indexes survive a restart: the catalog keeps their key patterns and
// the reopened engine keys updates and deletes, and plans $near, with them.
func TestGeoIndexesSurviveReopen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := testenv.Ctx(t)
	db, err := lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	coll := db.Client().Database("g").Collection("c")
	testenv.CreateIndex(t, coll, bson.D{{Key: "geo", Value: "2dsphere"}})
	testenv.CreateIndex(t, coll, bson.D{{Key: "flat", Value: "2d"}})
	insert(t, coll,
		bson.D{{Key: "name", Value: "a"}, {Key: "geo", Value: point(0, 0)}, {Key: "flat", Value: bson.A{0, 0}}},
		bson.D{{Key: "name", Value: "b"}, {Key: "geo", Value: point(1, 0)}, {Key: "flat", Value: bson.A{1, 0}}},
		bson.D{{Key: "name", Value: "c"}, {Key: "geo", Value: point(2, 0)}, {Key: "flat", Value: bson.A{2, 0}}})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	coll = db.Client().Database("g").Collection("c")
	// Move "c" next to the query point and drop "a".
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "name", Value: "c"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "geo", Value: point(-0.1, 0)}, {Key: "flat", Value: bson.A{-0.1, 0}}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteOne(ctx, bson.D{{Key: "name", Value: "a"}}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []bson.D{
		{{Key: "geo", Value: bson.D{{Key: "$near", Value: bson.D{{Key: "$geometry", Value: point(0, 0)}}}}}},
		{{Key: "flat", Value: bson.D{{Key: "$near", Value: bson.A{0, 0}}}}},
	} {
		if got := names(t, coll, f); !equal(got, []string{"c", "b"}) {
			t.Errorf("%v after reopen: %v, want [c b]", f, got)
		}
	}
	// validate checks every index entry against the documents' keys.
	v, err := testenv.RunCmd(t, coll.Database(), bson.D{{Key: "validate", Value: "c"}, {Key: "full", Value: true}})
	if err != nil || !v.Lookup("valid").Boolean() {
		t.Fatalf("validate after geo updates: %v %v", v, err)
	}
	var ixs []bson.M
	cur, err := coll.Indexes().List(ctx)
	if err == nil {
		err = cur.All(ctx, &ixs)
	}
	if err != nil || len(ixs) != 3 {
		t.Fatalf("indexes after reopen: %v %v", ixs, err)
	}
}
