package crud_test

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestFindLetAndShowRecordID checks find's let variables (in $expr) and
// showRecordId.
func TestFindLetAndShowRecordID(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("fo")
	if _, err := coll.InsertMany(c, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "qty", Value: 5}},
		bson.D{{Key: "_id", Value: 2}, {Key: "qty", Value: 15}},
		bson.D{{Key: "_id", Value: 3}, {Key: "qty", Value: 25}},
	}); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Find(c, bson.D{{Key: "$expr", Value: bson.D{{Key: "$gt", Value: bson.A{"$qty", "$$limit"}}}}},
		options.Find().SetLet(bson.D{{Key: "limit", Value: bson.D{{Key: "$add", Value: bson.A{5, 5}}}}}))
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.M
	if err := cur.All(c, &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0]["_id"] != int32(2) || docs[1]["_id"] != int32(3) {
		t.Fatalf("find with let: %v, want _id 2 and 3", docs)
	}

	// explain of the same find (and of an update) binds let too.
	letFilter := bson.D{{Key: "$expr", Value: bson.D{{Key: "$gt", Value: bson.A{"$qty", "$$limit"}}}}}
	let := bson.D{{Key: "limit", Value: 10}}
	ex := testenv.Explain(t, d, bson.D{{Key: "find", Value: "fo"}, {Key: "filter", Value: letFilter}, {Key: "let", Value: let}}, "executionStats")
	if n := ex.Lookup("executionStats", "nReturned").AsInt64(); n != 2 {
		t.Fatalf("explain find with let: nReturned %d, want 2", n)
	}
	testenv.Explain(t, d, bson.D{{Key: "update", Value: "fo"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: letFilter},
		{Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}}}}}, {Key: "let", Value: let}}, "executionStats")

	// An undefined variable is an error, not an empty result.
	cur, err = coll.Find(c, bson.D{{Key: "$expr", Value: bson.D{{Key: "$gt", Value: bson.A{"$qty", "$$nope"}}}}})
	if err == nil {
		err = cur.Err()
		cur.Close(c)
	}
	if ce := testenv.CmdErr(t, err); ce.Code != 17276 {
		t.Fatalf("undefined variable: %d %s, want 17276", ce.Code, ce.Message)
	}

	cur, err = coll.Find(c, bson.D{}, options.Find().SetShowRecordID(true).SetProjection(bson.D{{Key: "qty", Value: 0}}))
	if err != nil {
		t.Fatal(err)
	}
	var raws []bson.Raw
	if err := cur.All(c, &raws); err != nil {
		t.Fatal(err)
	}
	last := int64(0)
	for _, r := range raws {
		v, err := r.LookupErr("$recordId")
		if err != nil || v.Type != bson.TypeInt64 {
			t.Fatalf("%v has no long $recordId", r)
		}
		if v.Int64() <= last {
			t.Fatalf("record ids not increasing in natural order: %v", raws)
		}
		last = v.Int64()
		if _, err := r.LookupErr("qty"); err == nil {
			t.Fatalf("projection not applied: %v", r)
		}
	}
	if len(raws) != 3 {
		t.Fatalf("%d documents", len(raws))
	}
}

// TestUnsupportedQueryOptionsRefused checks that options Lode cannot honour
// are refused with NotImplemented (238) instead of being ignored: a
// collation option Lode cannot honour (maxVariable "space" with alternate
// "shifted") on every command that takes one. The simple collation is
// accepted. (find's min and max are served: minmax_test.go.)
func TestUnsupportedQueryOptionsRefused(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("co")
	if _, err := coll.InsertMany(c, []any{bson.D{{Key: "_id", Value: 1}, {Key: "s", Value: "a"}}, bson.D{{Key: "_id", Value: 2}, {Key: "s", Value: "A"}}}); err != nil {
		t.Fatal(err)
	}
	simple := &options.Collation{Locale: "simple"}
	n, err := coll.CountDocuments(c, bson.D{{Key: "s", Value: "a"}}, options.Count().SetCollation(simple))
	if err != nil || n != 1 {
		t.Fatalf("simple collation: n=%d err=%v", n, err)
	}
	if _, err := coll.Find(c, bson.D{{Key: "s", Value: "a"}}, options.Find().SetCollation(simple)); err != nil {
		t.Fatalf("simple collation on find: %v", err)
	}

	en := &options.Collation{Locale: "en", Alternate: "shifted", MaxVariable: "space"}
	enDoc := bson.D{{Key: "locale", Value: "en"}, {Key: "alternate", Value: "shifted"}, {Key: "maxVariable", Value: "space"}}
	check := func(name string, err error) {
		t.Helper()
		code, msg := testenv.ErrCode(t, err)
		if code != 238 {
			t.Errorf("%s with collation en: %d %q, want 238", name, code, msg)
		}
	}
	_, err = coll.Find(c, bson.D{{Key: "s", Value: "a"}}, options.Find().SetCollation(en))
	check("find", err)
	_, err = coll.Aggregate(c, bson.A{}, options.Aggregate().SetCollation(en))
	check("aggregate", err)
	check("count", d.RunCommand(c, bson.D{{Key: "count", Value: "co"}, {Key: "collation", Value: enDoc}}).Err())
	check("distinct", d.RunCommand(c, bson.D{{Key: "distinct", Value: "co"}, {Key: "key", Value: "s"}, {Key: "collation", Value: enDoc}}).Err())
	_, err = coll.UpdateOne(c, bson.D{{Key: "s", Value: "a"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}, options.UpdateOne().SetCollation(en))
	check("update", err)
	_, err = coll.DeleteMany(c, bson.D{{Key: "s", Value: "a"}}, options.DeleteMany().SetCollation(en))
	check("delete", err)
	check("findAndModify", coll.FindOneAndUpdate(c, bson.D{{Key: "s", Value: "a"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}},
		options.FindOneAndUpdate().SetCollation(en)).Err())
	if n, _ := coll.CountDocuments(c, bson.D{{Key: "x", Value: 1}}); n != 0 {
		t.Fatalf("a refused write changed %d documents", n)
	}
	if n, _ := coll.CountDocuments(c, bson.D{}); n != 2 {
		t.Fatalf("a refused delete removed documents: %d left", n)
	}
}

// TestCollationOnCreateRefused checks that a collection or index default
// collation Lode cannot honour (maxVariable "space" with alternate
// "shifted", a locale x/text does not tailor) is refused (238), not ignored.
func TestCollationOnCreateRefused(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	if err := d.CreateCollection(c, "simple", options.CreateCollection().SetCollation(&options.Collation{Locale: "simple"})); err != nil {
		t.Fatalf("create with the simple collation: %v", err)
	}
	err := d.CreateCollection(c, "fr", options.CreateCollection().SetCollation(&options.Collation{Locale: "th"}))
	if ce := testenv.CmdErr(t, err); ce.Code != 238 {
		t.Fatalf("create with collation th: %d %q, want 238", ce.Code, ce.Message)
	}
	_, err = d.Collection("simple").Indexes().CreateOne(c, mongo.IndexModel{Keys: bson.D{{Key: "s", Value: 1}},
		Options: options.Index().SetCollation(&options.Collation{Locale: "en", Alternate: "shifted", MaxVariable: "space"})})
	if ce := testenv.CmdErr(t, err); ce.Code != 238 {
		t.Fatalf("createIndexes with collation en: %d %q, want 238", ce.Code, ce.Message)
	}
	if _, err := d.Collection("simple").Indexes().CreateOne(c, mongo.IndexModel{Keys: bson.D{{Key: "s", Value: 1}},
		Options: options.Index().SetCollation(&options.Collation{Locale: "simple"})}); err != nil {
		t.Fatalf("createIndexes with the simple collation: %v", err)
	}
}

// TestFindReturnKey checks find's returnKey as MongoDB documents it: the
// results are the keys of the index the query used ({} for a collection
// scan), the projection does not apply, showRecordId adds nothing, and
// a missing indexed field is null in the key.
func TestFindReturnKey(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("rk")
	if _, err := coll.InsertMany(c, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 10}, {Key: "b", Value: bson.D{{Key: "c", Value: "x"}}}},
		bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: 20}},
	}); err != nil {
		t.Fatal(err)
	}
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: 1}, {Key: "b.c", Value: -1}})
	all := func(f bson.D, o *options.FindOptionsBuilder) []bson.D {
		t.Helper()
		cur, err := coll.Find(c, f, o)
		if err != nil {
			t.Fatal(err)
		}
		var out []bson.D
		if err := cur.All(c, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	got := all(bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 10}}}}, options.Find().SetReturnKey(true).SetSort(bson.D{{Key: "a", Value: 1}}).SetProjection(bson.D{{Key: "_id", Value: 1}}))
	want := []bson.D{
		{{Key: "a", Value: int32(10)}, {Key: "b.c", Value: "x"}},
		{{Key: "a", Value: int32(20)}, {Key: "b.c", Value: nil}},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("returnKey over {a: 1, b.c: -1}: %v, want %v", got, want)
	}
	got = all(bson.D{}, options.Find().SetReturnKey(true).SetSort(bson.D{{Key: "_id", Value: 1}}).SetShowRecordID(true))
	if len(got) != 2 || len(got[0]) != 1 || got[0][0].Key != "_id" || got[0][0].Value != int32(1) {
		t.Fatalf("returnKey with showRecordId over _id: %v, want the keys alone (mongod adds no $recordId)", got)
	}
	got = all(bson.D{{Key: "b", Value: bson.D{{Key: "$exists", Value: false}}}}, options.Find().SetReturnKey(true).SetHint(bson.D{{Key: "$natural", Value: 1}}))
	if len(got) != 1 || len(got[0]) != 0 {
		t.Fatalf("returnKey over a collection scan: %v, want [{}]", got)
	}
}
