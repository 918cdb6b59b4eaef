package admin_test

import (
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// indexSpec returns the listIndexes entry named name.
func indexSpec(t *testing.T, coll *mongo.Collection, name string) bson.M {
	t.Helper()
	c := testenv.Ctx(t)
	cur, err := coll.Indexes().List(c)
	if err != nil {
		t.Fatal(err)
	}
	var specs []bson.M
	if err := cur.All(c, &specs); err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		if s["name"] == name {
			return s
		}
	}
	t.Fatalf("no index %s in %v", name, specs)
	return nil
}

// TestCollModPrepareUnique follows MongoDB's documented way to make an
// existing index unique: collMod prepareUnique (new duplicates refused,
// 11000), collMod unique (CannotConvertIndexToUnique 359 listing the
// _ids of each duplicate group while duplicates remain), then success
// once they are resolved; and forceNonUnique back.
func TestCollModPrepareUnique(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("pu")
	if _, err := coll.InsertMany(c, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: 1}},
		bson.D{{Key: "_id", Value: 2}, {Key: "x", Value: 1}},
		bson.D{{Key: "_id", Value: 3}, {Key: "x", Value: 2}},
	}); err != nil {
		t.Fatal(err)
	}
	testenv.CreateIndex(t, coll, bson.D{{Key: "x", Value: 1}})
	collMod := func(index bson.D) (bson.Raw, error) {
		return testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: "pu"}, {Key: "index", Value: index}})
	}
	_, err := collMod(bson.D{{Key: "keyPattern", Value: bson.D{{Key: "x", Value: 1}}}, {Key: "unique", Value: true}})
	testenv.WantCmdError(t, err, 72, "InvalidOptions")
	r, err := collMod(bson.D{{Key: "keyPattern", Value: bson.D{{Key: "x", Value: 1}}}, {Key: "prepareUnique", Value: true}})
	testenv.WantOK(t, r, err)
	if r.Lookup("prepareUnique_old").Boolean() || !r.Lookup("prepareUnique_new").Boolean() {
		t.Fatalf("collMod prepareUnique reply %v", r)
	}
	if s := indexSpec(t, coll, "x_1"); s["prepareUnique"] != true {
		t.Fatalf("listIndexes after prepareUnique: %v", s)
	}
	_, err = coll.InsertOne(c, bson.D{{Key: "_id", Value: 4}, {Key: "x", Value: 2}})
	if we := testenv.WriteErr(t, err); we.Code != 11000 {
		t.Fatalf("new duplicate under prepareUnique: %v", err)
	}
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 5}, {Key: "x", Value: 3}}); err != nil {
		t.Fatalf("new distinct key under prepareUnique: %v", err)
	}
	// Existing duplicates can still be updated in other fields.
	if _, err := coll.UpdateOne(c, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: 1}}}}); err != nil {
		t.Fatalf("update of an existing duplicate: %v", err)
	}
	_, err = collMod(bson.D{{Key: "name", Value: "x_1"}, {Key: "unique", Value: true}})
	ce := testenv.WantCmdError(t, err, 359, "CannotConvertIndexToUnique")
	if got := ce.Raw.Lookup("violations").String(); got != `[{"ids": [{"$numberInt":"1"},{"$numberInt":"2"}]}]` {
		t.Fatalf("violations %s", got)
	}
	if _, err := coll.DeleteOne(c, bson.D{{Key: "_id", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	r, err = collMod(bson.D{{Key: "name", Value: "x_1"}, {Key: "unique", Value: true}})
	testenv.WantOK(t, r, err)
	if s := indexSpec(t, coll, "x_1"); s["unique"] != true || s["prepareUnique"] != nil {
		t.Fatalf("listIndexes after unique: %v", s)
	}
	r, err = collMod(bson.D{{Key: "name", Value: "x_1"}, {Key: "forceNonUnique", Value: true}})
	testenv.WantOK(t, r, err)
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 6}, {Key: "x", Value: 1}}); err != nil {
		t.Fatalf("duplicate after forceNonUnique: %v", err)
	}
	_, err = collMod(bson.D{{Key: "name", Value: "x_1"}, {Key: "unique", Value: false}})
	testenv.WantCmdError(t, err, 2, "BadValue")
}

// TestHiddenIndex checks hidden indexes as MongoDB documents them: a
// hidden index is kept up to date and still enforces uniqueness but the
// planner does not use it (nor may a hint name it); unhiding it makes it
// usable at once. createIndexes accepts hidden too.
func TestHiddenIndex(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("hid")
	for i := 0; i < 20; i++ {
		if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: i}, {Key: "x", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: bson.D{{Key: "x", Value: 1}}, Options: options.Index().SetUnique(true).SetHidden(true)}); err != nil {
		t.Fatal(err)
	}
	find := bson.D{{Key: "find", Value: "hid"}, {Key: "filter", Value: bson.D{{Key: "x", Value: 5}}}}
	stages := testenv.Stages(testenv.WinningPlan(testenv.Explain(t, d, find, "queryPlanner")))
	if !slices.Contains(stages, "COLLSCAN") || slices.Contains(stages, "IXSCAN") {
		t.Fatalf("hidden index used: %v", stages)
	}
	_, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 100}, {Key: "x", Value: 5}})
	if we := testenv.WriteErr(t, err); we.Code != 11000 {
		t.Fatalf("hidden unique index does not enforce: %v", err)
	}
	err = coll.FindOne(c, bson.D{{Key: "x", Value: 5}}, options.FindOne().SetHint("x_1")).Err()
	testenv.WantCmdError(t, err, 2, "BadValue")
	if s := indexSpec(t, coll, "x_1"); s["hidden"] != true {
		t.Fatalf("listIndexes: %v", s)
	}
	r, err := testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: "hid"}, {Key: "index", Value: bson.D{{Key: "name", Value: "x_1"}, {Key: "hidden", Value: false}}}})
	testenv.WantOK(t, r, err)
	if !r.Lookup("hidden_old").Boolean() || r.Lookup("hidden_new").Boolean() {
		t.Fatalf("collMod hidden reply %v", r)
	}
	stages = testenv.Stages(testenv.WinningPlan(testenv.Explain(t, d, find, "queryPlanner")))
	if !slices.Contains(stages, "IXSCAN") {
		t.Fatalf("unhidden index not used: %v", stages)
	}
	if s := indexSpec(t, coll, "x_1"); s["hidden"] != nil {
		t.Fatalf("listIndexes after unhiding: %v", s)
	}
	_, err = testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: "hid"}, {Key: "index", Value: bson.D{{Key: "name", Value: "_id_"}, {Key: "hidden", Value: true}}}})
	testenv.WantCmdError(t, err, 2, "BadValue")
}
