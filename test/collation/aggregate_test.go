package collation_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestAggregateCollation: the aggregate command's collation applies to
// $match and $sort (pushed down or not), $group and $lookup.
func TestAggregateCollation(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	c := d.Collection("agg")
	insert(t, c,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "s", Value: "b"}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "s", Value: "B"}},
		bson.D{{Key: "_id", Value: int32(3)}, {Key: "s", Value: "a"}},
		bson.D{{Key: "_id", Value: int32(4)}, {Key: "s", Value: "C"}})
	run := func(pipe mongo.Pipeline, collDoc bson.D) ([]int32, error) {
		cur, err := c.Aggregate(ctx, pipe, options.Aggregate().SetCollation(coll(collDoc)))
		if err != nil {
			return nil, err
		}
		var docs []bson.Raw
		if err := cur.All(ctx, &docs); err != nil {
			return nil, err
		}
		out := []int32{}
		for _, x := range docs {
			out = append(out, x.Lookup("_id").Int32())
		}
		return out, nil
	}
	sortS := bson.D{{Key: "$sort", Value: bson.D{{Key: "s", Value: 1}, {Key: "_id", Value: 1}}}}
	cases := []struct {
		name string
		pipe mongo.Pipeline
		want []int32
	}{
		{"match", mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "s", Value: "b"}}}}, {{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}}, []int32{1, 2}},
		{"sort", mongo.Pipeline{sortS}, []int32{3, 1, 2, 4}},
		{"sort after unwind", mongo.Pipeline{{{Key: "$unwind", Value: "$s"}}, sortS, {{Key: "$project", Value: bson.D{{Key: "s", Value: 1}}}}}, []int32{3, 1, 2, 4}},
		{"match after project", mongo.Pipeline{{{Key: "$project", Value: bson.D{{Key: "t", Value: "$s"}}}}, {{Key: "$match", Value: bson.D{{Key: "t", Value: bson.D{{Key: "$gt", Value: "A"}}}}}}, {{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}}, []int32{1, 2, 4}},
		{"count", mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "s", Value: "B"}}}}, {{Key: "$group", Value: bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}}}, []int32{1}},
	}
	for _, tc := range cases {
		got, err := run(tc.pipe, enStrength2)
		if err != nil || !equalIDs(got, tc.want) {
			t.Errorf("%s: got %v %v, want %v", tc.name, got, err, tc.want)
		}
	}
	// $group keys compare under the collation: b and B are one group,
	// whose _id is the first value met.
	cur, err := c.Aggregate(ctx, mongo.Pipeline{
		{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$s"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
		{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}}, options.Aggregate().SetCollation(coll(enStrength2)))
	if err != nil {
		t.Fatal(err)
	}
	var groups []bson.Raw
	if err := cur.All(ctx, &groups); err != nil || len(groups) != 3 {
		t.Fatalf("groups: %v %v", groups, err)
	}
	if g := groups[1]; g.Lookup("_id").StringValue() != "b" || g.Lookup("n").Int32() != 2 {
		t.Fatalf("group of b and B: %v", g)
	}
	// $sortByCount groups under the collation: b and B count together.
	cur, err = c.Aggregate(ctx, mongo.Pipeline{{{Key: "$sortByCount", Value: "$s"}}}, options.Aggregate().SetCollation(coll(enStrength2)))
	if err != nil {
		t.Fatal(err)
	}
	var counts []bson.Raw
	if err := cur.All(ctx, &counts); err != nil || len(counts) != 3 || counts[0].Lookup("count").Int32() != 2 {
		t.Fatalf("$sortByCount: %v %v", counts, err)
	}
	// explain of the aggregate: the pushed-down $match plans under the
	// collation.
	res := testenv.Explain(t, d, bson.D{{Key: "aggregate", Value: "agg"}, {Key: "pipeline", Value: bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "s", Value: "B"}}}}, bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$s"}}}}}},
		{Key: "cursor", Value: bson.D{}}, {Key: "collation", Value: enStrength2}}, "executionStats")
	stages, err := res.LookupErr("stages")
	if err != nil {
		t.Fatalf("aggregate explain: %v", res)
	}
	first, _ := stages.Array().Values()
	if n := first[0].Document().Lookup("$cursor", "executionStats", "nReturned"); n.Type == 0 || n.AsInt64() != 2 {
		t.Fatalf("aggregate explain $cursor: %v", first[0])
	}
	// $lookup's localField/foreignField equality uses the collation.
	insert(t, d.Collection("names"), bson.D{{Key: "_id", Value: int32(1)}, {Key: "k", Value: "B"}, {Key: "label", Value: "bee"}})
	cur, err = c.Aggregate(ctx, mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "_id", Value: int32(1)}}}},
		{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "names"}, {Key: "localField", Value: "s"}, {Key: "foreignField", Value: "k"}, {Key: "as", Value: "j"}}}}},
		options.Aggregate().SetCollation(coll(enStrength2)))
	if err != nil {
		t.Fatal(err)
	}
	var joined []bson.Raw
	if err := cur.All(ctx, &joined); err != nil || len(joined) != 1 {
		t.Fatalf("$lookup: %v %v", joined, err)
	}
	if j, _ := joined[0].Lookup("j").Array().Values(); len(j) != 1 {
		t.Fatalf("$lookup under the collation should join b to B: %v", joined[0])
	}
	// Binary order without a collation: uppercase first.
	cur, err = c.Aggregate(ctx, mongo.Pipeline{sortS})
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(ctx, &docs); err != nil || docs[0].Lookup("_id").Int32() != 2 {
		t.Fatalf("simple sort: %v %v", docs, err)
	}
}

// TestWritesAndErrors: findAndModify, update and delete with a collation,
// update operators Lode refuses under one, and invalid collations.
func TestWritesAndErrors(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	c := d.Collection("w")
	insert(t, c,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "s", Value: "x"}, {Key: "n", Value: int32(1)}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "s", Value: "X"}, {Key: "n", Value: int32(2)}},
		bson.D{{Key: "_id", Value: int32(3)}, {Key: "s", Value: "y"}, {Key: "n", Value: int32(3)}})
	ci := coll(enStrength2)
	var got bson.Raw
	err := c.FindOneAndUpdate(ctx, bson.D{{Key: "s", Value: "X"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 10}}}},
		options.FindOneAndUpdate().SetCollation(ci).SetSort(bson.D{{Key: "n", Value: -1}}).SetReturnDocument(options.After)).Decode(&got)
	if err != nil || got.Lookup("_id").Int32() != 2 || got.Lookup("n").Int32() != 12 {
		t.Fatalf("findAndModify: %v %v", got, err)
	}
	ur, err := c.UpdateMany(ctx, bson.D{{Key: "s", Value: "x"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "t", Value: true}}}}, options.UpdateMany().SetCollation(ci))
	if err != nil || ur.ModifiedCount != 2 {
		t.Fatalf("update: %v %v", ur, err)
	}
	// An upsert seeds the document from the equality as given.
	ur, err = c.UpdateOne(ctx, bson.D{{Key: "s", Value: "Zed"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "n", Value: 9}}}}, options.UpdateOne().SetCollation(ci).SetUpsert(true))
	if err != nil || ur.UpsertedID == nil {
		t.Fatalf("upsert: %v %v", ur, err)
	}
	var up bson.Raw
	if err := c.FindOne(ctx, bson.D{{Key: "n", Value: 9}}).Decode(&up); err != nil || up.Lookup("s").StringValue() != "Zed" {
		t.Fatalf("upserted %v %v", up, err)
	}
	// Update operators that compare take the collation too.
	insert(t, c, bson.D{{Key: "_id", Value: int32(20)}, {Key: "arr", Value: bson.A{"x", "Y"}}, {Key: "m", Value: "b"}})
	byID := bson.D{{Key: "_id", Value: int32(20)}}
	for _, u := range []bson.D{
		{{Key: "$addToSet", Value: bson.D{{Key: "arr", Value: "X"}}}},                                                              // already there: x
		{{Key: "$max", Value: bson.D{{Key: "m", Value: "B"}}}},                                                                     // equal: unchanged
		{{Key: "$pull", Value: bson.D{{Key: "arr", Value: "y"}}}},                                                                  // removes Y
		{{Key: "$push", Value: bson.D{{Key: "arr", Value: bson.D{{Key: "$each", Value: bson.A{"W"}}, {Key: "$sort", Value: 1}}}}}}, // w < x
	} {
		if _, err := c.UpdateOne(ctx, byID, u, options.UpdateOne().SetCollation(ci)); err != nil {
			t.Fatalf("%v: %v", u, err)
		}
	}
	_, err = c.UpdateOne(ctx, byID, bson.D{{Key: "$set", Value: bson.D{{Key: "arr.$[e]", Value: "z"}}}},
		options.UpdateOne().SetCollation(ci).SetArrayFilters([]any{bson.D{{Key: "e", Value: "X"}}}))
	if err != nil {
		t.Fatal(err)
	}
	var u20 bson.Raw
	if err := c.FindOne(ctx, byID).Decode(&u20); err != nil {
		t.Fatal(err)
	}
	arr, _ := u20.Lookup("arr").Array().Values()
	if len(arr) != 2 || arr[0].StringValue() != "W" || arr[1].StringValue() != "z" || u20.Lookup("m").StringValue() != "b" {
		t.Fatalf("operators under the collation: %v", u20)
	}
	if _, err := c.DeleteOne(ctx, byID); err != nil {
		t.Fatal(err)
	}
	// A pipeline update's expressions compare under the collation.
	ur, err = c.UpdateMany(ctx, bson.D{{Key: "s", Value: "x"}}, mongo.Pipeline{{{Key: "$set", Value: bson.D{{Key: "q", Value: bson.D{{Key: "$eq", Value: bson.A{"$s", "X"}}}}}}}}, options.UpdateMany().SetCollation(ci))
	if err != nil || ur.ModifiedCount != 2 {
		t.Fatalf("pipeline update: %v %v", ur, err)
	}
	if n, err := c.CountDocuments(ctx, bson.D{{Key: "q", Value: true}}); err != nil || n != 2 {
		t.Fatalf("pipeline update under the collation set q on %d documents (%v), want 2", n, err)
	}
	dr, err := c.DeleteMany(ctx, bson.D{{Key: "s", Value: "X"}}, options.DeleteMany().SetCollation(ci))
	if err != nil || dr.DeletedCount != 2 {
		t.Fatalf("delete: %v %v", dr, err)
	}
	// distinct and count with an explicit collation.
	insert(t, c, bson.D{{Key: "_id", Value: int32(10)}, {Key: "s", Value: "Y"}})
	var vals []string
	if err := c.Distinct(ctx, "s", bson.D{}, options.Distinct().SetCollation(ci)).Decode(&vals); err != nil || len(vals) != 2 || vals[0] != "y" {
		t.Fatalf("distinct: %v %v", vals, err)
	}
	if n, err := c.CountDocuments(ctx, bson.D{{Key: "s", Value: "y"}}, options.Count().SetCollation(ci)); err != nil || n != 2 {
		t.Fatalf("count: %d %v", n, err)
	}
	res, err := testenv.RunCmd(t, d, bson.D{{Key: "count", Value: "w"}, {Key: "query", Value: bson.D{{Key: "s", Value: "Y"}}}, {Key: "collation", Value: enStrength2}})
	if err != nil || res.Lookup("n").AsInt64() != 2 {
		t.Fatalf("count command: %v %v", res, err)
	}

	// Invalid collations, with mongod's codes.
	for _, tc := range []struct {
		coll bson.D
		code int32
	}{
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 0}}, 9},
		{bson.D{{Key: "locale", Value: "xx"}}, 2},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "bogus", Value: 1}}, 9},
		{bson.D{{Key: "locale", Value: "simple"}, {Key: "strength", Value: 1}}, 9},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "version", Value: "1"}}, 161},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "alternate", Value: "shifted"}, {Key: "maxVariable", Value: "space"}}, 238},
		{bson.D{{Key: "locale", Value: "th"}}, 238},
	} {
		_, err := testenv.RunCmd(t, d, bson.D{{Key: "find", Value: "w"}, {Key: "collation", Value: tc.coll}})
		testenv.WantCode(t, "find with collation", err, tc.code)
	}
}

// TestViewsUseTheirCollation: a view's operations use the view's
// collation (simple unless create gave one), not the default of the
// collection under it, and a command on a view may not give another one
// (mongod's OptionNotSupportedOnView; jstests/core/views/views_collation.js).
func TestViewsUseTheirCollation(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	if err := d.CreateCollection(ctx, "base", options.CreateCollection().SetCollation(coll(enStrength2))); err != nil {
		t.Fatal(err)
	}
	insert(t, d.Collection("base"),
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "s", Value: "a"}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "s", Value: "A"}})
	if err := d.CreateView(ctx, "v", "base", mongo.Pipeline{}); err != nil {
		t.Fatal(err)
	}
	if got := ids(t, d.Collection("base"), bson.D{{Key: "s", Value: "a"}}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}})); !equalIDs(got, []int32{1, 2}) {
		t.Fatalf("base: %v", got)
	}
	if got := ids(t, d.Collection("v"), bson.D{{Key: "s", Value: "a"}}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}})); !equalIDs(got, []int32{1}) {
		t.Fatalf("view: %v", got)
	}
	_, err := d.Collection("v").Find(ctx, bson.D{}, options.Find().SetCollation(coll(enStrength2)))
	testenv.WantCode(t, "find on a view with another collation", err, 167)
	// A view with a case-insensitive default collation (the jstest's
	// case_insensitive_view: {locale: "en", strength: 1}).
	insert(t, d.Collection("cs"),
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "f", Value: "case"}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "f", Value: "Case"}},
		bson.D{{Key: "_id", Value: int32(3)}, {Key: "f", Value: "CASE"}})
	en1 := bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 1}}
	if err := d.CreateView(ctx, "ci", "cs", mongo.Pipeline{}, options.CreateView().SetCollation(coll(en1))); err != nil {
		t.Fatal(err)
	}
	ci := d.Collection("ci")
	if n, err := ci.CountDocuments(ctx, bson.D{{Key: "f", Value: "case"}}); err != nil || n != 3 {
		t.Errorf("count on the view: %d %v, want 3", n, err)
	}
	if n, err := d.Collection("cs").CountDocuments(ctx, bson.D{{Key: "f", Value: "case"}}); err != nil || n != 1 {
		t.Errorf("count on the collection: %d %v, want 1", n, err)
	}
	if got := ids(t, ci, bson.D{{Key: "f", Value: "case"}}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}})); !equalIDs(got, []int32{1, 2, 3}) {
		t.Errorf("find on the view: %v, want [1 2 3]", got)
	}
	var vals []string
	if err := ci.Distinct(ctx, "f", bson.D{}).Decode(&vals); err != nil || len(vals) != 1 {
		t.Errorf("distinct on the view: %v %v, want one value", vals, err)
	}
	// Expressions in the view's pipeline compare under it too.
	if err := d.CreateView(ctx, "ci2", "cs", mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{"$f", "CaSe"}}}}}}}}, options.CreateView().SetCollation(coll(en1))); err != nil {
		t.Fatal(err)
	}
	if n, err := d.Collection("ci2").CountDocuments(ctx, bson.D{}); err != nil || n != 3 {
		t.Errorf("count on the $expr view: %d %v, want 3", n, err)
	}
	// The same collation may be repeated; another, or simple, is 167.
	if _, err := ci.Find(ctx, bson.D{}, options.Find().SetCollation(coll(en1))); err != nil {
		t.Errorf("find with the view's own collation: %v", err)
	}
	_, err = ci.Find(ctx, bson.D{}, options.Find().SetCollation(&options.Collation{Locale: "simple"}))
	testenv.WantCode(t, "simple on a collated view", err, 167)
	_, err = ci.Aggregate(ctx, mongo.Pipeline{}, options.Aggregate().SetCollation(coll(enStrength2)))
	testenv.WantCode(t, "another collation on a collated view", err, 167)
	// listCollections shows the view's collation.
	specs, err := d.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "ci"}})
	if err != nil || len(specs) != 1 || specs[0].Options.Lookup("collation", "locale").StringValue() != "en" {
		t.Errorf("listCollections of the view: %v %v", specs, err)
	}
	// A view on a view must have its collation.
	err = d.CreateView(ctx, "ci3", "ci", mongo.Pipeline{})
	testenv.WantCode(t, "simple view on a collated view", err, 167)
	err = d.CreateView(ctx, "ci3", "ci", mongo.Pipeline{}, options.CreateView().SetCollation(coll(enStrength2)))
	testenv.WantCode(t, "view on a view with another collation", err, 167)
	if err := d.CreateView(ctx, "ci3", "ci", mongo.Pipeline{}, options.CreateView().SetCollation(coll(en1))); err != nil {
		t.Errorf("view on a view with the same collation: %v", err)
	}
	// A pipeline reads a view only under the view's collation.
	_, err = d.Collection("cs").Aggregate(ctx, mongo.Pipeline{{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "ci"}, {Key: "localField", Value: "f"}, {Key: "foreignField", Value: "f"}, {Key: "as", Value: "j"}}}}})
	testenv.WantCode(t, "$lookup into a collated view from a simple pipeline", err, 167)
	cur, err := d.Collection("cs").Aggregate(ctx, mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "_id", Value: int32(1)}}}}, {{Key: "$lookup", Value: bson.D{{Key: "from", Value: "ci"}, {Key: "localField", Value: "f"}, {Key: "foreignField", Value: "f"}, {Key: "as", Value: "j"}}}}}, options.Aggregate().SetCollation(coll(en1)))
	if err != nil {
		t.Fatal(err)
	}
	var joined []bson.Raw
	if err := cur.All(ctx, &joined); err != nil || len(joined) != 1 {
		t.Fatalf("$lookup into the view: %v %v", joined, err)
	}
	if j, _ := joined[0].Lookup("j").Array().Values(); len(j) != 3 {
		t.Errorf("$lookup into the view under its collation joined %d documents, want 3", len(j))
	}
}
