package collation_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

var (
	enUpper = bson.D{{Key: "locale", Value: "en"}, {Key: "caseFirst", Value: "upper"}}
	enLower = bson.D{{Key: "locale", Value: "en"}, {Key: "caseFirst", Value: "lower"}}
	// enCase1 ignores accents but not case (ICU: strength 1 with the
	// case level on; MongoDB: "compares base characters and case").
	enCase1 = bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 1}, {Key: "caseLevel", Value: true}}
	enCase2 = bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}, {Key: "caseLevel", Value: true}}
)

// letters inserts a, A, b, B as _id 1..4 into c.
func letters(t *testing.T, c *mongo.Collection) {
	t.Helper()
	insert(t, c,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "w", Value: "a"}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "w", Value: "A"}},
		bson.D{{Key: "_id", Value: int32(3)}, {Key: "w", Value: "b"}},
		bson.D{{Key: "_id", Value: int32(4)}, {Key: "w", Value: "B"}})
}

// TestCaseFirstSort: MongoDB's caseFirst "upper" sorts uppercase before
// lowercase, "lower" lowercase before uppercase, at the tertiary level
// (base letters first).
func TestCaseFirstSort(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := d.Collection("w")
	letters(t, c)
	byW := options.Find().SetSort(bson.D{{Key: "w", Value: 1}})
	if got := ids(t, c, bson.D{}, byW.SetCollation(coll(enUpper))); !equalIDs(got, []int32{2, 1, 4, 3}) {
		t.Fatalf("upper: %v", got)
	}
	byW = options.Find().SetSort(bson.D{{Key: "w", Value: 1}})
	if got := ids(t, c, bson.D{}, byW.SetCollation(coll(enLower))); !equalIDs(got, []int32{1, 2, 3, 4}) {
		t.Fatalf("lower: %v", got)
	}
	// A range under "upper": "a" > "A", so $gte "a" leaves A out.
	byW = options.Find().SetSort(bson.D{{Key: "w", Value: 1}}).SetCollation(coll(enUpper))
	if got := ids(t, c, bson.D{{Key: "w", Value: bson.D{{Key: "$gte", Value: "a"}}}}, byW); !equalIDs(got, []int32{1, 4, 3}) {
		t.Fatalf("$gte under upper: %v", got)
	}
	// Aggregation's $sort under the same collation.
	cur, err := c.Aggregate(testenv.Ctx(t), mongo.Pipeline{{{Key: "$sort", Value: bson.D{{Key: "w", Value: -1}}}}},
		options.Aggregate().SetCollation(coll(enUpper)))
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(testenv.Ctx(t), &docs); err != nil {
		t.Fatal(err)
	}
	var got []int32
	for _, doc := range docs {
		got = append(got, doc.Lookup("_id").Int32())
	}
	if !equalIDs(got, []int32{3, 4, 1, 2}) {
		t.Fatalf("$sort -1 under upper: %v", got)
	}
}

// TestCaseLevelMatch: ICU's Case_Level examples (strength 1 with the
// case level: role = rôle < Role) as $eq matches, and strength 2 with
// the case level (accents and case both count).
func TestCaseLevelMatch(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := d.Collection("roles")
	insert(t, c,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "w", Value: "role"}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "w", Value: "rôle"}},
		bson.D{{Key: "_id", Value: int32(3)}, {Key: "w", Value: "Role"}},
		bson.D{{Key: "_id", Value: int32(4)}, {Key: "w", Value: "Rôle"}})
	byID := func(cd bson.D) *options.FindOptionsBuilder {
		return options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetCollation(coll(cd))
	}
	eq := bson.D{{Key: "w", Value: "role"}}
	if got := ids(t, c, eq, byID(enCase1)); !equalIDs(got, []int32{1, 2}) {
		t.Fatalf("strength 1 + caseLevel: %v", got)
	}
	if got := ids(t, c, eq, byID(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 1}})); !equalIDs(got, []int32{1, 2, 3, 4}) {
		t.Fatalf("strength 1: %v", got)
	}
	if got := ids(t, c, eq, byID(enCase2)); !equalIDs(got, []int32{1}) {
		t.Fatalf("strength 2 + caseLevel: %v", got)
	}
	if got := ids(t, c, bson.D{{Key: "w", Value: "Rôle"}}, byID(enCase1)); !equalIDs(got, []int32{3, 4}) {
		t.Fatalf("strength 1 + caseLevel, upper: %v", got)
	}
	// All capitals differ in case from every stored value.
	n, err := c.CountDocuments(testenv.Ctx(t), bson.D{{Key: "w", Value: bson.D{{Key: "$in", Value: bson.A{"ROLE", "rôle"}}}}},
		options.Count().SetCollation(coll(enCase1)))
	if err != nil || n != 2 {
		t.Fatalf("$in count: %d %v", n, err)
	}
}

// TestCaseLevelIndex: an index with {locale: "en", strength: 1,
// caseLevel: true} serves an equality under that collation (explain
// shows IXSCAN with the collation), and a unique one refuses a value
// equal but for accents while accepting one that differs in case.
func TestCaseLevelIndex(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	c := d.Collection("ix")
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "w", Value: 1}},
		Options: options.Index().SetCollation(coll(enCase1))}); err != nil {
		t.Fatal(err)
	}
	insert(t, c,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "w", Value: "role"}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "w", Value: "rôle"}},
		bson.D{{Key: "_id", Value: int32(3)}, {Key: "w", Value: "Role"}})
	cmd := bson.D{{Key: "find", Value: "ix"}, {Key: "filter", Value: bson.D{{Key: "w", Value: "rôle"}}}, {Key: "collation", Value: enCase1}}
	res := testenv.Explain(t, d, cmd, "executionStats")
	ix := testenv.FindStage(testenv.WinningPlan(res), "IXSCAN")
	if ix == nil {
		t.Fatalf("no IXSCAN in %v", testenv.WinningPlan(res))
	}
	if cl, _ := ix.Lookup("collation", "caseLevel").BooleanOK(); !cl || ix.Lookup("collation", "strength").Int32() != 1 {
		t.Fatalf("IXSCAN collation: %v", ix)
	}
	es := res.Lookup("executionStats").Document()
	if es.Lookup("totalKeysExamined").AsInt64() != 2 || es.Lookup("nReturned").AsInt64() != 2 {
		t.Fatalf("executionStats: %v", es)
	}

	u := d.Collection("uix")
	if _, err := u.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "w", Value: 1}},
		Options: options.Index().SetUnique(true).SetCollation(coll(enCase1))}); err != nil {
		t.Fatal(err)
	}
	if _, err := u.InsertOne(ctx, bson.D{{Key: "w", Value: "role"}}); err != nil {
		t.Fatal(err)
	}
	_, err := u.InsertOne(ctx, bson.D{{Key: "w", Value: "rôle"}})
	testenv.WantCode(t, "accent-only difference under strength 1 + caseLevel", err, 11000)
	if _, err := u.InsertOne(ctx, bson.D{{Key: "w", Value: "Role"}}); err != nil {
		t.Fatalf("case differs under the case level: %v", err)
	}
}

// TestCaseFirstDefaultCollation: a collection created with the default
// collation {locale: "en", caseFirst: "upper"} sorts with it, reports it
// in listCollections, and gives it to an index created without one,
// which the planner uses (IXSCAN with caseFirst "upper").
func TestCaseFirstDefaultCollation(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	if err := d.CreateCollection(ctx, "up", options.CreateCollection().SetCollation(coll(enUpper))); err != nil {
		t.Fatal(err)
	}
	c := d.Collection("up")
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "w", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	letters(t, c)
	if got := ids(t, c, bson.D{}, options.Find().SetSort(bson.D{{Key: "w", Value: 1}})); !equalIDs(got, []int32{2, 1, 4, 3}) {
		t.Fatalf("default upper: %v", got)
	}
	if got := ids(t, c, bson.D{{Key: "w", Value: "A"}}, options.Find()); !equalIDs(got, []int32{2}) {
		t.Fatalf("$eq is case-sensitive at strength 3: %v", got)
	}
	res := testenv.Explain(t, d, bson.D{{Key: "find", Value: "up"}, {Key: "filter", Value: bson.D{{Key: "w", Value: "a"}}}}, "executionStats")
	ix := testenv.FindStage(testenv.WinningPlan(res), "IXSCAN")
	if ix == nil || ix.Lookup("collation", "caseFirst").StringValue() != "upper" {
		t.Fatalf("winning plan %v", testenv.WinningPlan(res))
	}
	if n := res.Lookup("executionStats", "nReturned").AsInt64(); n != 1 {
		t.Fatalf("nReturned %d", n)
	}
	cur, err := d.ListCollections(ctx, bson.D{{Key: "name", Value: "up"}})
	if err != nil {
		t.Fatal(err)
	}
	var colls []bson.Raw
	if err := cur.All(ctx, &colls); err != nil || len(colls) != 1 {
		t.Fatal(err, colls)
	}
	if cf := colls[0].Lookup("options", "collation", "caseFirst").StringValue(); cf != "upper" {
		t.Fatalf("listCollections caseFirst %q", cf)
	}
}

// TestUpperFirstLocale: Danish defaults to caseFirst "upper" (its CLDR
// tailoring), which mongod reports in the normalised spec; the option
// checks apply to that default ({locale: "da", strength: 2} is mongod's
// BadValue), and an explicit caseFirst "off" gives lowercase first.
func TestUpperFirstLocale(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	da := bson.D{{Key: "locale", Value: "da"}}
	if err := d.CreateCollection(ctx, "da", options.CreateCollection().SetCollation(coll(da))); err != nil {
		t.Fatal(err)
	}
	c := d.Collection("da")
	letters(t, c)
	insert(t, c, bson.D{{Key: "_id", Value: int32(5)}, {Key: "w", Value: "aa"}}, bson.D{{Key: "_id", Value: int32(6)}, {Key: "w", Value: "z"}})
	// Upper first; Danish aa sorts as å, after z.
	if got := ids(t, c, bson.D{}, options.Find().SetSort(bson.D{{Key: "w", Value: 1}})); !equalIDs(got, []int32{2, 1, 4, 3, 6, 5}) {
		t.Fatalf("da: %v", got)
	}
	off := options.Find().SetSort(bson.D{{Key: "w", Value: 1}}).SetCollation(coll(bson.D{{Key: "locale", Value: "da"}, {Key: "caseFirst", Value: "off"}}))
	if got := ids(t, c, bson.D{}, off); !equalIDs(got, []int32{1, 2, 3, 4, 6, 5}) {
		t.Fatalf("da caseFirst off: %v", got)
	}
	cur, err := d.ListCollections(ctx, bson.D{{Key: "name", Value: "da"}})
	if err != nil {
		t.Fatal(err)
	}
	var colls []bson.Raw
	if err := cur.All(ctx, &colls); err != nil || len(colls) != 1 {
		t.Fatal(err, colls)
	}
	if cf := colls[0].Lookup("options", "collation", "caseFirst").StringValue(); cf != "upper" {
		t.Fatalf("listCollections caseFirst %q", cf)
	}
	for _, tc := range []bson.D{
		{{Key: "locale", Value: "da"}, {Key: "strength", Value: 2}},
		{{Key: "locale", Value: "en"}, {Key: "strength", Value: 1}, {Key: "caseFirst", Value: "upper"}},
	} {
		_, err := testenv.RunCmd(t, d, bson.D{{Key: "find", Value: "da"}, {Key: "collation", Value: tc}})
		testenv.WantCode(t, "caseFirst without tertiary or case level", err, 2)
	}
}
