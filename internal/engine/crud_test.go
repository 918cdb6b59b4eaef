package engine

import (
	"context"
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

var ctx = context.Background()

func TestInsertFindRoundTrip(t *testing.T) {
	e := openTest(t, "")
	res := insert(t, e, "db", "c", bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: "x"}}, bson.D{{Key: "a", Value: "y"}, {Key: "_id", Value: 2}}, bson.D{{Key: "a", Value: "z"}})
	if res.N != 3 || len(res.WriteErrors) != 0 {
		t.Fatalf("insert: %+v", res)
	}
	docs := findAll(t, e, "db", "c", FindSpec{})
	if len(docs) != 3 {
		t.Fatalf("got %d docs", len(docs))
	}
	if got := jsonOf(docs[:2]); !reflect.DeepEqual(got, []string{`{"_id": {"$numberInt":"1"},"a": "x"}`, `{"_id": {"$numberInt":"2"},"a": "y"}`}) {
		t.Fatalf("docs = %v", got)
	}
	if docs[2].Lookup("_id").Type != bsoncore.TypeObjectID || firstKey(docs[2]) != "_id" {
		t.Fatalf("generated _id missing: %v", docs[2])
	}
	got := findAll(t, e, "db", "c", FindSpec{Filter: D(t, bson.D{{Key: "_id", Value: 2}})})
	if len(got) != 1 || got[0].Lookup("a").StringValue() != "y" {
		t.Fatalf("_id lookup = %v", jsonOf(got))
	}
	got = findAll(t, e, "db", "c", FindSpec{Filter: D(t, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{2, 1.0, 7}}}}})})
	if len(got) != 2 {
		t.Fatalf("$in lookup = %v", jsonOf(got))
	}
	got = findAll(t, e, "db", "c", FindSpec{Filter: D(t, bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: "y"}}}}), Sort: D(t, bson.D{{Key: "a", Value: -1}}), Limit: 1})
	if len(got) != 1 || got[0].Lookup("a").StringValue() != "z" {
		t.Fatalf("sort/limit = %v", jsonOf(got))
	}
	got = findAll(t, e, "db", "c", FindSpec{Skip: 1, Limit: 1})
	if len(got) != 1 || got[0].Lookup("a").StringValue() != "y" {
		t.Fatalf("skip/limit = %v", jsonOf(got))
	}
	if n, err := e.Count(ctx, "db", "c", nil, 0, 0, bsoncore.Value{}); err != nil || n != 3 {
		t.Fatalf("count = %d %v", n, err)
	}
	if n, _ := e.Count(ctx, "db", "c", D(t, bson.D{{Key: "a", Value: bson.D{{Key: "$ne", Value: "x"}}}}), 1, 5, bsoncore.Value{}); n != 1 {
		t.Fatalf("count skip = %d", n)
	}
	if docs := findAll(t, e, "db", "missing", FindSpec{}); len(docs) != 0 {
		t.Fatal("missing collection returned docs")
	}
}

func TestDuplicateKey(t *testing.T) {
	tests := []struct {
		name    string
		ordered bool
		wantN   int
		wantErr []int
	}{
		{"ordered", true, 1, []int{1}},
		{"unordered", false, 2, []int{1, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := openTest(t, "")
			docs := []bsoncore.Document{
				D(t, bson.D{{Key: "_id", Value: 1}}), D(t, bson.D{{Key: "_id", Value: 1}}), D(t, bson.D{{Key: "_id", Value: 2}}), D(t, bson.D{{Key: "_id", Value: 2.0}}),
			}
			res, err := e.Insert(ctx, "db", "coll", docs, WriteOptions{Ordered: tc.ordered})
			if err != nil {
				t.Fatal(err)
			}
			if res.N != tc.wantN {
				t.Fatalf("N = %d, want %d", res.N, tc.wantN)
			}
			var idx []int
			for _, we := range res.WriteErrors {
				idx = append(idx, we.Index)
			}
			if !reflect.DeepEqual(idx, tc.wantErr) {
				t.Fatalf("errors at %v, want %v", idx, tc.wantErr)
			}
			we := res.WriteErrors[0].Err
			if we.Code != errs.DuplicateKey || we.Msg != "E11000 duplicate key error collection: db.coll index: _id_ dup key: { _id: 1 }" {
				t.Fatalf("error = %v", we)
			}
			if got := bson.Raw(we.Info).String(); got != `{"keyPattern": {"_id": {"$numberInt":"1"}},"keyValue": {"_id": {"$numberInt":"1"}}}` {
				t.Fatalf("info = %s", got)
			}
			if n, _ := e.Count(ctx, "db", "coll", nil, 0, 0, bsoncore.Value{}); int(n) != tc.wantN {
				t.Fatalf("count = %d", n)
			}
		})
	}
}

func TestInsertValidation(t *testing.T) {
	e := openTest(t, "")
	tests := []struct {
		doc  bson.D
		code errs.Code
	}{
		{bson.D{{Key: "_id", Value: bson.A{1}}}, errs.BadValue},
		{bson.D{{Key: "_id", Value: bson.Regex{Pattern: "x"}}}, errs.BadValue},
	}
	for _, tc := range tests {
		res, err := e.Insert(ctx, "db", "v", []bsoncore.Document{D(t, tc.doc)}, WriteOptions{Ordered: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.WriteErrors) != 1 || res.WriteErrors[0].Err.Code != tc.code {
			t.Fatalf("%v: %+v", tc.doc, res)
		}
	}
	if _, err := e.Insert(ctx, "bad.db", "c", nil, WriteOptions{}); !errs.Is(err, errs.InvalidNamespace) {
		t.Fatalf("bad db name: %v", err)
	}
}

func TestUpdateAndDelete(t *testing.T) {
	e := openTest(t, "")
	for i := 0; i < 10; i++ {
		insert(t, e, "db", "c", bson.D{{Key: "_id", Value: i}, {Key: "g", Value: i % 2}, {Key: "v", Value: 0}})
	}
	res, err := e.Update(ctx, "db", "c", []UpdateSpec{
		{Filter: D(t, bson.D{{Key: "g", Value: 0}}), Update: val(t, bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 1}}}}), Multi: true},
		{Filter: D(t, bson.D{{Key: "g", Value: 1}}), Update: val(t, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: 5}}}})},
		{Filter: D(t, bson.D{{Key: "_id", Value: 3}}), Update: val(t, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: 0}}}})},
	}, WriteOptions{Ordered: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.N != 7 || res.NModified != 6 {
		t.Fatalf("update: %+v", res)
	}
	if n, _ := e.Count(ctx, "db", "c", D(t, bson.D{{Key: "v", Value: 1}}), 0, 0, bsoncore.Value{}); n != 5 {
		t.Fatalf("multi update count = %d", n)
	}
	// _id change is rejected.
	res, _ = e.Update(ctx, "db", "c", []UpdateSpec{{Filter: D(t, bson.D{{Key: "_id", Value: 1}}), Update: val(t, bson.D{{Key: "$set", Value: bson.D{{Key: "_id", Value: 99}}}})}}, WriteOptions{Ordered: true})
	if len(res.WriteErrors) != 1 || res.WriteErrors[0].Err.Code != errs.ImmutableField {
		t.Fatalf("_id change: %+v", res)
	}
	// Replacement keeps _id.
	res, _ = e.Update(ctx, "db", "c", []UpdateSpec{{Filter: D(t, bson.D{{Key: "_id", Value: 1}}), Update: val(t, bson.D{{Key: "r", Value: true}})}}, WriteOptions{Ordered: true})
	if res.NModified != 1 {
		t.Fatalf("replace: %+v", res)
	}
	got := findAll(t, e, "db", "c", FindSpec{Filter: D(t, bson.D{{Key: "_id", Value: 1}})})
	if len(got) != 1 || bson.Raw(got[0]).String() != `{"_id": {"$numberInt":"1"},"r": true}` {
		t.Fatalf("replaced = %v", jsonOf(got))
	}
	dres, err := e.Delete(ctx, "db", "c", []DeleteSpec{
		{Filter: D(t, bson.D{{Key: "g", Value: 0}}), Limit: 1},
		{Filter: D(t, bson.D{{Key: "g", Value: 0}})},
	}, WriteOptions{Ordered: true})
	if err != nil || dres.N != 5 {
		t.Fatalf("delete: %+v %v", dres, err)
	}
	if n, _ := e.Count(ctx, "db", "c", nil, 0, 0, bsoncore.Value{}); n != 5 {
		t.Fatalf("after delete count = %d", n)
	}
	// A deleted _id can be reused.
	if r := insert(t, e, "db", "c", bson.D{{Key: "_id", Value: 0}}); r.N != 1 {
		t.Fatalf("reinsert: %+v", r)
	}
}

// Seed 001: the bucket upsert takes _id from $setOnInsert; a regex on _id
// is not an equality and is not seeded.
func TestSeed001BucketUpsert(t *testing.T) {
	e := openTest(t, "")
	date := bson.DateTime(1698925390000)
	spec := func() UpdateSpec {
		return UpdateSpec{
			Filter: D(t, bson.D{{Key: "_id", Value: bson.Regex{Pattern: "^123_"}}, {Key: "count", Value: bson.D{{Key: "$lt", Value: 10}}}}),
			Update: val(t, bson.D{
				{Key: "$push", Value: bson.D{{Key: "history", Value: bson.D{{Key: "type", Value: "buy"}, {Key: "ticker", Value: "MSFT"}, {Key: "qty", Value: 42}, {Key: "date", Value: date}}}}},
				{Key: "$inc", Value: bson.D{{Key: "count", Value: 1}}},
				{Key: "$setOnInsert", Value: bson.D{{Key: "_id", Value: "123_1698939791"}, {Key: "customerId", Value: 123}}},
			}),
			Upsert: true,
		}
	}
	res, err := e.Update(ctx, "db", "trades", []UpdateSpec{spec()}, WriteOptions{Ordered: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.N != 1 || res.NModified != 0 || len(res.Upserted) != 1 || res.Upserted[0].ID.StringValue() != "123_1698939791" {
		t.Fatalf("upsert: %+v", res)
	}
	got := findAll(t, e, "db", "trades", FindSpec{})
	// Since 5.0 MongoDB applies update operators in lexicographic order of
	// the paths they touch, after the _id.
	want := `{"_id": "123_1698939791","count": {"$numberInt":"1"},"customerId": {"$numberInt":"123"},"history": [{"type": "buy","ticker": "MSFT","qty": {"$numberInt":"42"},"date": {"$date":{"$numberLong":"1698925390000"}}}]}`
	if len(got) != 1 {
		t.Fatalf("docs = %v", jsonOf(got))
	}
	if bson.Raw(got[0]).String() != want {
		t.Fatalf("doc = %s\nwant %s", bson.Raw(got[0]), want)
	}
	// Second run matches the bucket and pushes.
	res, _ = e.Update(ctx, "db", "trades", []UpdateSpec{spec()}, WriteOptions{Ordered: true})
	if res.N != 1 || res.NModified != 1 || len(res.Upserted) != 0 {
		t.Fatalf("second: %+v", res)
	}
	got = findAll(t, e, "db", "trades", FindSpec{Filter: D(t, bson.D{{Key: "_id", Value: bson.Regex{Pattern: "^123_"}}}), Sort: D(t, bson.D{{Key: "_id", Value: 1}}), Limit: 1})
	if len(got) != 1 || got[0].Lookup("count").Int32() != 2 {
		t.Fatalf("bucket = %v", jsonOf(got))
	}
}

// Seed 003: positional $inc on an order's item, and the conditional debit.
func TestSeed003PositionalAndConditional(t *testing.T) {
	e := openTest(t, "")
	insert(t, e, "shop", "orders", bson.D{{Key: "_id", Value: 1}, {Key: "total", Value: 10}, {Key: "items", Value: bson.A{
		bson.D{{Key: "sku", Value: "a"}, {Key: "qty", Value: 1}}, bson.D{{Key: "sku", Value: "b"}, {Key: "qty", Value: 2}},
	}}})
	res, err := e.Update(ctx, "shop", "orders", []UpdateSpec{{
		Filter: D(t, bson.D{{Key: "_id", Value: 1}, {Key: "items.sku", Value: "b"}}),
		Update: val(t, bson.D{{Key: "$inc", Value: bson.D{{Key: "total", Value: 5}, {Key: "items.$.qty", Value: 3}}}}),
	}}, WriteOptions{Ordered: true})
	if err != nil || res.NModified != 1 {
		t.Fatalf("positional: %+v %v", res, err)
	}
	got := findAll(t, e, "shop", "orders", FindSpec{})
	if want := `{"_id": {"$numberInt":"1"},"total": {"$numberInt":"15"},"items": [{"sku": "a","qty": {"$numberInt":"1"}},{"sku": "b","qty": {"$numberInt":"5"}}]}`; bson.Raw(got[0]).String() != want {
		t.Fatalf("order = %s", bson.Raw(got[0]))
	}
	insert(t, e, "bank", "accounts", bson.D{{Key: "_id", Value: "A"}, {Key: "balance", Value: 100}})
	debit := func(amt int) UpdateResult {
		r, err := e.Update(ctx, "bank", "accounts", []UpdateSpec{{
			Filter: D(t, bson.D{{Key: "_id", Value: "A"}, {Key: "balance", Value: bson.D{{Key: "$gte", Value: amt}}}}),
			Update: val(t, bson.D{{Key: "$inc", Value: bson.D{{Key: "balance", Value: -amt}}}}),
		}}, WriteOptions{Ordered: true})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := debit(60); r.N != 1 || r.NModified != 1 {
		t.Fatalf("debit 60: %+v", r)
	}
	if r := debit(60); r.N != 0 || r.NModified != 0 {
		t.Fatalf("debit beyond funds: %+v", r)
	}
}

func TestReopen(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	insert(t, e, "db", "c", bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 10}}, bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: 20}})
	if _, err := e.CreateIndex("db", "c", IndexSpec{Key: D(t, bson.D{{Key: "a", Value: 1}}), Unique: true}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal("second close:", err)
	}
	e = openTest(t, dir)
	insert(t, e, "db", "c", bson.D{{Key: "_id", Value: 3}, {Key: "a", Value: 1}})
	docs := findAll(t, e, "db", "c", FindSpec{})
	if len(docs) != 3 || docs[2].Lookup("_id").Int32() != 3 {
		t.Fatalf("after reopen: %v", jsonOf(docs))
	}
	ix, err := e.ListIndexes("db", "c")
	if err != nil || len(ix) != 2 || ix[1].Name != "a_1" || !ix[1].Unique {
		t.Fatalf("indexes after reopen: %+v %v", ix, err)
	}
	res, _ := e.Insert(ctx, "db", "c", []bsoncore.Document{D(t, bson.D{{Key: "_id", Value: 4}, {Key: "a", Value: 1}})}, WriteOptions{Ordered: true})
	if len(res.WriteErrors) != 1 || res.WriteErrors[0].Err.Msg != "E11000 duplicate key error collection: db.c index: a_1 dup key: { a: 1 }" {
		t.Fatalf("unique after reopen: %+v", res)
	}
	// A unique index treats a missing field as null: only one such
	// document is allowed.
	insert(t, e, "db", "c", bson.D{{Key: "_id", Value: 5}})
	res, _ = e.Insert(ctx, "db", "c", []bsoncore.Document{D(t, bson.D{{Key: "_id", Value: 6}})}, WriteOptions{Ordered: true})
	if len(res.WriteErrors) != 1 || res.WriteErrors[0].Err.Msg != "E11000 duplicate key error collection: db.c index: a_1 dup key: { a: null }" {
		t.Fatalf("unique null: %+v", res)
	}
}
