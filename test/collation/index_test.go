package collation_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

var enStrength2 = bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}}

// fullSpec is the normalised spec mongod 7.0 reports for {locale: "en",
// strength: 2}.
var fullSpec = bson.D{{Key: "locale", Value: "en"}, {Key: "caseLevel", Value: false}, {Key: "caseFirst", Value: "off"},
	{Key: "strength", Value: int32(2)}, {Key: "numericOrdering", Value: false}, {Key: "alternate", Value: "non-ignorable"},
	{Key: "maxVariable", Value: "punct"}, {Key: "normalization", Value: false}, {Key: "backwards", Value: false},
	{Key: "version", Value: "57.1"}}

func mustRaw(t *testing.T, d bson.D) bson.Raw {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCaseInsensitiveIndex follows the "Case-Insensitive Indexes" page:
// an index with {locale: "en", strength: 2} serves queries that give the
// same collation, and only those.
func TestCaseInsensitiveIndex(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	fruit := d.Collection("fruit")
	if _, err := fruit.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "type", Value: 1}},
		Options: options.Index().SetCollation(coll(enStrength2))}); err != nil {
		t.Fatal(err)
	}
	insert(t, fruit,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "type", Value: "apple"}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "type", Value: "Apple"}},
		bson.D{{Key: "_id", Value: int32(3)}, {Key: "type", Value: "APPLE"}},
		bson.D{{Key: "_id", Value: int32(4)}, {Key: "type", Value: "banana"}},
		bson.D{{Key: "_id", Value: int32(5)}, {Key: "type", Value: int32(7)}})
	byID := bson.D{{Key: "_id", Value: 1}}
	// "does not use index, finds one result"
	if got := ids(t, fruit, bson.D{{Key: "type", Value: "apple"}}, options.Find().SetSort(byID)); !equalIDs(got, []int32{1}) {
		t.Fatalf("simple: %v", got)
	}
	// "uses the index, finds three results"
	if got := ids(t, fruit, bson.D{{Key: "type", Value: "apple"}}, options.Find().SetSort(byID).SetCollation(coll(enStrength2))); !equalIDs(got, []int32{1, 2, 3}) {
		t.Fatalf("strength 2: %v", got)
	}
	// "does not use the index, finds three results"
	if got := ids(t, fruit, bson.D{{Key: "type", Value: "apple"}}, options.Find().SetSort(byID).SetCollation(coll(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 1}}))); !equalIDs(got, []int32{1, 2, 3}) {
		t.Fatalf("strength 1: %v", got)
	}
	// Ranges, sort and numbers through the collated index.
	if got := ids(t, fruit, bson.D{{Key: "type", Value: bson.D{{Key: "$gt", Value: "APPLE"}}}}, options.Find().SetSort(byID).SetCollation(coll(enStrength2))); !equalIDs(got, []int32{4}) {
		t.Fatalf("$gt: %v", got)
	}
	if got := ids(t, fruit, bson.D{{Key: "type", Value: int32(7)}}, options.Find().SetCollation(coll(enStrength2))); !equalIDs(got, []int32{5}) {
		t.Fatalf("number: %v", got)
	}
	if got := ids(t, fruit, bson.D{{Key: "type", Value: bson.D{{Key: "$regex", Value: "^ban"}}}}, options.Find().SetCollation(coll(enStrength2))); !equalIDs(got, []int32{4}) {
		t.Fatalf("regex: %v", got)
	}
	got := ids(t, fruit, bson.D{{Key: "type", Value: bson.D{{Key: "$type", Value: "string"}}}},
		options.Find().SetSort(bson.D{{Key: "type", Value: -1}, {Key: "_id", Value: 1}}).SetCollation(coll(enStrength2)))
	if !equalIDs(got, []int32{4, 1, 2, 3}) {
		t.Fatalf("sort: %v", got)
	}

	// The acceptance point: explain shows IXSCAN with the collation.
	cmd := bson.D{{Key: "find", Value: "fruit"}, {Key: "filter", Value: bson.D{{Key: "type", Value: "apple"}}},
		{Key: "collation", Value: enStrength2}}
	res := testenv.Explain(t, d, cmd, "executionStats")
	ix := testenv.FindStage(testenv.WinningPlan(res), "IXSCAN")
	if ix == nil {
		t.Fatalf("no IXSCAN in %v", testenv.WinningPlan(res))
	}
	if c, err := ix.LookupErr("collation"); err != nil || !bsonEqual(c.Document(), mustRaw(t, fullSpec)) {
		t.Fatalf("IXSCAN collation: %v", ix)
	}
	if testenv.FindStage(testenv.WinningPlan(res), "FETCH") == nil {
		t.Fatalf("a collated index cannot cover: %v", testenv.WinningPlan(res))
	}
	es := res.Lookup("executionStats")
	if n := es.Document().Lookup("totalKeysExamined").AsInt64(); n != 3 {
		t.Fatalf("keys examined %d, want 3", n)
	}
	if n := es.Document().Lookup("nReturned").AsInt64(); n != 3 {
		t.Fatalf("nReturned %d, want 3", n)
	}
	// Without the collation the index is not used for the string query.
	res = testenv.Explain(t, d, bson.D{{Key: "find", Value: "fruit"}, {Key: "filter", Value: bson.D{{Key: "type", Value: "apple"}}}}, "queryPlanner")
	if testenv.FindStage(testenv.WinningPlan(res), "IXSCAN") != nil {
		t.Fatalf("simple-collation query used the collated index: %v", testenv.WinningPlan(res))
	}
	// listIndexes shows the normalised spec.
	specs, err := fruit.Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cur, _ := fruit.Indexes().List(ctx)
	var raw []bson.Raw
	if err := cur.All(ctx, &raw); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range raw {
		if r.Lookup("name").StringValue() == "type_1" {
			found = bsonEqual(r.Lookup("collation").Document(), mustRaw(t, fullSpec))
		}
	}
	if !found || len(specs) != 2 {
		t.Fatalf("listIndexes: %v", raw)
	}
}

// TestUniqueUnderCollation: a unique index with strength 2 refuses values
// equal but for case.
func TestUniqueUnderCollation(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	users := d.Collection("users")
	if _, err := users.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "name", Value: 1}},
		Options: options.Index().SetUnique(true).SetCollation(coll(enStrength2))}); err != nil {
		t.Fatal(err)
	}
	if _, err := users.InsertOne(ctx, bson.D{{Key: "name", Value: "Alice"}}); err != nil {
		t.Fatal(err)
	}
	_, err := users.InsertOne(ctx, bson.D{{Key: "name", Value: "ALICE"}})
	testenv.WantCode(t, "duplicate under strength 2", err, 11000)
	if _, err := users.InsertOne(ctx, bson.D{{Key: "name", Value: "Alicé"}}); err != nil {
		t.Fatalf("an accent differs at strength 2: %v", err)
	}
}

// TestCollectionDefault follows the createCollection example: a
// collection's default collation applies to queries and indexes that give
// none, and {locale: "simple"} overrides it.
func TestCollectionDefault(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	frCA := bson.D{{Key: "locale", Value: "fr_CA"}, {Key: "strength", Value: 2}}
	if err := d.CreateCollection(ctx, "names", options.CreateCollection().SetCollation(coll(frCA))); err != nil {
		t.Fatal(err)
	}
	names := d.Collection("names")
	if _, err := names.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "first_name", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	insert(t, names,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "first_name", Value: "Hans"}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "first_name", Value: "Hanselmann"}},
		bson.D{{Key: "_id", Value: int32(3)}, {Key: "first_name", Value: "HANS"}},
		bson.D{{Key: "_id", Value: int32(4)}, {Key: "first_name", Value: "hans"}})
	byID := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}})
	if got := ids(t, names, bson.D{{Key: "first_name", Value: "hans"}}, byID); !equalIDs(got, []int32{1, 3, 4}) {
		t.Fatalf("default collation: %v", got)
	}
	simple := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetCollation(&options.Collation{Locale: "simple"})
	if got := ids(t, names, bson.D{{Key: "first_name", Value: "hans"}}, simple); !equalIDs(got, []int32{4}) {
		t.Fatalf("simple override: %v", got)
	}
	// The index inherited the default; the default-collation query uses it.
	res := testenv.Explain(t, d, bson.D{{Key: "find", Value: "names"}, {Key: "filter", Value: bson.D{{Key: "first_name", Value: "hans"}}}}, "queryPlanner")
	ix := testenv.FindStage(testenv.WinningPlan(res), "IXSCAN")
	if ix == nil || ix.Lookup("collation", "locale").StringValue() != "fr_CA" {
		t.Fatalf("winning plan %v", testenv.WinningPlan(res))
	}
	// listCollections shows the full spec (backwards true for fr_CA).
	cur, err := d.ListCollections(ctx, bson.D{{Key: "name", Value: "names"}})
	if err != nil {
		t.Fatal(err)
	}
	var colls []bson.Raw
	if err := cur.All(ctx, &colls); err != nil || len(colls) != 1 {
		t.Fatal(err, colls)
	}
	c := colls[0].Lookup("options", "collation").Document()
	if c.Lookup("backwards").Boolean() != true || c.Lookup("strength").Int32() != 2 || c.Lookup("version").StringValue() != "57.1" {
		t.Fatalf("listCollections collation %v", c)
	}
	// count, distinct, update and delete use the default too.
	if n, err := names.CountDocuments(ctx, bson.D{{Key: "first_name", Value: "HANS"}}); err != nil || n != 3 {
		t.Fatalf("count %d %v", n, err)
	}
	res2 := names.Distinct(ctx, "first_name", bson.D{})
	var vals []string
	if err := res2.Decode(&vals); err != nil || len(vals) != 2 {
		t.Fatalf("distinct %v %v", vals, err)
	}
	ur, err := names.UpdateMany(ctx, bson.D{{Key: "first_name", Value: "hAnS"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "seen", Value: true}}}})
	if err != nil || ur.MatchedCount != 3 {
		t.Fatalf("update %v %v", ur, err)
	}
	dr, err := names.DeleteMany(ctx, bson.D{{Key: "first_name", Value: "HANSELMANN"}})
	if err != nil || dr.DeletedCount != 1 {
		t.Fatalf("delete %v %v", dr, err)
	}
}

func bsonEqual(a, b bson.Raw) bool { return string(a) == string(b) }

// TestMismatchedIndexRule: an index whose collation differs from the
// query's bounds the predicates that compare no strings, and none that
// do (mongod's rule); a hint of it still answers correctly.
func TestMismatchedIndexRule(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	c := d.Collection("mixed")
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "v", Value: 1}},
		Options: options.Index().SetCollation(coll(enStrength2))}); err != nil {
		t.Fatal(err)
	}
	insert(t, c,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "v", Value: int32(5)}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "v", Value: "a"}},
		bson.D{{Key: "_id", Value: int32(3)}, {Key: "v", Value: "A"}})
	plan := func(filter bson.D) bson.Raw {
		res := testenv.Explain(t, d, bson.D{{Key: "find", Value: "mixed"}, {Key: "filter", Value: filter}}, "queryPlanner")
		return testenv.WinningPlan(res)
	}
	if testenv.FindStage(plan(bson.D{{Key: "v", Value: bson.D{{Key: "$gte", Value: 5}}}}), "IXSCAN") == nil {
		t.Fatal("a numeric predicate should use the index whatever its collation")
	}
	if testenv.FindStage(plan(bson.D{{Key: "v", Value: "a"}}), "IXSCAN") != nil {
		t.Fatal("a string predicate under the simple collation must not use the en index")
	}
	got := ids(t, c, bson.D{{Key: "v", Value: "a"}}, options.Find().SetHint("v_1"))
	if !equalIDs(got, []int32{2}) {
		t.Fatalf("hinted: %v", got)
	}
	got = ids(t, c, bson.D{}, options.Find().SetSort(bson.D{{Key: "v", Value: 1}, {Key: "_id", Value: 1}}))
	if !equalIDs(got, []int32{1, 3, 2}) {
		t.Fatalf("binary sort must not come from the en index: %v", got)
	}
}

// TestExplainWrites: explain of update, delete, count and distinct with a
// collation plans on the collated index and reports the query's
// collation.
func TestExplainWrites(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	c := d.Collection("ew")
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "s", Value: 1}},
		Options: options.Index().SetCollation(coll(enStrength2))}); err != nil {
		t.Fatal(err)
	}
	insert(t, c, bson.D{{Key: "_id", Value: int32(1)}, {Key: "s", Value: "a"}}, bson.D{{Key: "_id", Value: int32(2)}, {Key: "s", Value: "A"}})
	q := bson.D{{Key: "s", Value: "a"}}
	for _, cmd := range []bson.D{
		{{Key: "update", Value: "ew"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: q}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}}, {Key: "multi", Value: true}, {Key: "collation", Value: enStrength2}}}}},
		{{Key: "delete", Value: "ew"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: q}, {Key: "limit", Value: 0}, {Key: "collation", Value: enStrength2}}}}},
		{{Key: "count", Value: "ew"}, {Key: "query", Value: q}, {Key: "collation", Value: enStrength2}},
		{{Key: "distinct", Value: "ew"}, {Key: "key", Value: "s"}, {Key: "query", Value: q}, {Key: "collation", Value: enStrength2}},
		{{Key: "findAndModify", Value: "ew"}, {Key: "query", Value: q}, {Key: "remove", Value: true}, {Key: "collation", Value: enStrength2}},
	} {
		res := testenv.Explain(t, d, cmd, "executionStats")
		if testenv.FindStage(testenv.WinningPlan(res), "IXSCAN") == nil && testenv.FindStage(testenv.WinningPlan(res), "COUNT_SCAN") == nil {
			t.Errorf("%s: no index scan: %v", cmd[0].Key, testenv.WinningPlan(res))
		}
		if s := res.Lookup("queryPlanner", "collation", "strength"); s.Type == 0 || s.Int32() != 2 {
			t.Errorf("%s: queryPlanner.collation %v", cmd[0].Key, res.Lookup("queryPlanner"))
		}
	}
}
