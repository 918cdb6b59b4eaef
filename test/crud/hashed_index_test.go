package crud_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// Hashed indexes as MongoDB documents them: each key is the 64-bit hash
// of the field's value ($toHashedIndexKey's), numbers hashed by their
// integer part, so an equality scans the points of its values' hashes
// and FETCH keeps the documents that match; ranges and sorts do not use
// the hashed field; arrays are refused (16766), as are uniqueness
// (16764) and a second hashed field (31303).
func TestHashedIndex(t *testing.T) {
	t.Parallel()
	ctx := testenv.Ctx(t)
	_, db := testenv.Open(t)
	coll := db.Collection("h")
	if _, err := coll.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}},
		bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: 1.5}}, // hashes as 1
		bson.D{{Key: "_id", Value: 3}, {Key: "a", Value: int64(1)}},
		bson.D{{Key: "_id", Value: 4}, {Key: "a", Value: "string to hash"}},
		bson.D{{Key: "_id", Value: 5}},
		bson.D{{Key: "_id", Value: 6}, {Key: "a", Value: nil}},
		bson.D{{Key: "_id", Value: 7}, {Key: "a", Value: bson.D{{Key: "b", Value: 2}}}},
		bson.D{{Key: "_id", Value: 8}, {Key: "a", Value: 2.0}},
	}); err != nil {
		t.Fatal(err)
	}
	name, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: "hashed"}}})
	if err != nil || name != "a_hashed" {
		t.Fatalf("createIndex: %q %v", name, err)
	}

	ids := func(filter any, opts ...options.Lister[options.FindOptions]) []int32 {
		t.Helper()
		cur, err := coll.Find(ctx, filter, opts...)
		if err != nil {
			t.Fatal(err)
		}
		var docs []bson.Raw
		if err := cur.All(ctx, &docs); err != nil {
			t.Fatal(err)
		}
		var out []int32
		for _, d := range docs {
			out = append(out, d.Lookup("_id").Int32())
		}
		sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
		return out
	}
	for _, tc := range []struct {
		name   string
		filter bson.D
		want   string
	}{
		{"equal numbers of any type, not 1.5", bson.D{{Key: "a", Value: 1.0}}, "[1 3]"},
		{"$in", bson.D{{Key: "a", Value: bson.D{{Key: "$in", Value: bson.A{2, "string to hash"}}}}}, "[4 8]"},
		{"null matches missing", bson.D{{Key: "a", Value: nil}}, "[5 6]"},
		{"a document", bson.D{{Key: "a", Value: bson.D{{Key: "b", Value: 2}}}}, "[7]"},
		{"a range", bson.D{{Key: "a", Value: bson.D{{Key: "$gt", Value: 1}}}}, "[2 8]"},
	} {
		if got := fmt.Sprint(ids(tc.filter)); got != tc.want {
			t.Errorf("%s: _ids %s, want %s", tc.name, got, tc.want)
		}
	}
	// Hinted, a range reads the whole index and FETCH filters.
	if got := fmt.Sprint(ids(bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 1.5}}}}, options.Find().SetHint("a_hashed"))); got != "[2 8]" {
		t.Errorf("hinted range: _ids %s, want [2 8]", got)
	}

	// The bounds are the hash $toHashedIndexKey documents for "string to
	// hash", and FETCH applies the equality again.
	res := testenv.Explain(t, db, bson.D{{Key: "find", Value: "h"}, {Key: "filter", Value: bson.D{{Key: "a", Value: "string to hash"}}}}, "executionStats")
	plan := testenv.WinningPlan(res)
	if got := strings.Join(testenv.Stages(plan), " > "); got != "FETCH > IXSCAN" {
		t.Errorf("equality plan %s, want FETCH > IXSCAN", got)
	}
	if f := plan.Lookup("filter").String(); f != `{"a": {"$eq": "string to hash"}}` {
		t.Errorf("FETCH filter %s", f)
	}
	ix := testenv.FindStage(plan, "IXSCAN")
	if b := ix.Lookup("indexBounds").String(); b != `{"a": ["[763543691661428748, 763543691661428748]"]}` {
		t.Errorf("indexBounds %s", b)
	}
	if kp := ix.Lookup("keyPattern").String(); kp != `{"a": "hashed"}` {
		t.Errorf("keyPattern %s", kp)
	}
	// A range does not use the hashed field, and it gives no sort order.
	res = testenv.Explain(t, db, bson.D{{Key: "find", Value: "h"}, {Key: "filter", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$gt", Value: 1}}}}}}, "queryPlanner")
	if got := strings.Join(testenv.Stages(testenv.WinningPlan(res)), " > "); got != "COLLSCAN" {
		t.Errorf("range plan %s, want COLLSCAN", got)
	}
	res = testenv.Explain(t, db, bson.D{{Key: "find", Value: "h"}, {Key: "filter", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "sort", Value: bson.D{{Key: "a", Value: 1}}}}, "queryPlanner")
	if got := strings.Join(testenv.Stages(testenv.WinningPlan(res)), " > "); got != "SORT > FETCH > IXSCAN" {
		t.Errorf("sorted plan %s, want SORT > FETCH > IXSCAN", got)
	}

	// returnKey gives the hash; distinct gives the values.
	cur, err := coll.Find(ctx, bson.D{{Key: "a", Value: "string to hash"}}, options.Find().SetReturnKey(true))
	if err != nil {
		t.Fatal(err)
	}
	var keys []bson.Raw
	if err := cur.All(ctx, &keys); err != nil || len(keys) != 1 {
		t.Fatalf("returnKey: %v %v", keys, err)
	}
	if k := keys[0].String(); k != `{"a": {"$numberLong":"763543691661428748"}}` {
		t.Errorf("returnKey %s", k)
	}
	var vals []any
	if err := coll.Distinct(ctx, "a", bson.D{{Key: "a", Value: 2}}).Decode(&vals); err != nil || len(vals) != 1 || vals[0] != 2.0 {
		t.Errorf("distinct: %v %v, want [2]", vals, err)
	}

	// Arrays: refused at insert, update and index build.
	wantErr := func(what string, err error, code int, msg string) {
		t.Helper()
		got, m := testenv.ErrCode(t, err)
		if got != code || !strings.Contains(m, msg) {
			t.Errorf("%s: %d %q, want %d containing %q", what, got, m, code, msg)
		}
	}
	const arrayMsg = "Error: hashed indexes do not currently support array values. Found array at path: "
	_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 9}, {Key: "a", Value: bson.A{1, 2}}})
	wantErr("insert an array", err, 16766, arrayMsg+"a")
	_, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: bson.A{1}}}}})
	wantErr("update to an array", err, 16766, arrayMsg+"a")
	nested := db.Collection("nested")
	if _, err := nested.InsertOne(ctx, bson.D{{Key: "x", Value: bson.A{bson.D{{Key: "y", Value: 1}}}}}); err != nil {
		t.Fatal(err)
	}
	_, err = nested.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "x.y", Value: "hashed"}}})
	wantErr("build over an array on the path", err, 16766, arrayMsg+"x")

	// Options and key patterns mongod refuses, and what Lode does not build.
	create := func(keys bson.D, o *options.IndexOptionsBuilder) error {
		_, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: keys, Options: o})
		return err
	}
	wantErr("unique", create(bson.D{{Key: "b", Value: "hashed"}}, options.Index().SetUnique(true)), 16764, "Currently hashed indexes cannot guarantee uniqueness")
	wantErr("two hashed fields", create(bson.D{{Key: "b", Value: "hashed"}, {Key: "c", Value: "hashed"}}, nil), 31303, "A maximum of one index field is allowed to be hashed but found 2")
	wantErr("hashed and 2dsphere", create(bson.D{{Key: "b", Value: "hashed"}, {Key: "c", Value: "2dsphere"}}, nil), 67, "Can't use more than one index plugin for a single index.")
	wantErr("TTL", create(bson.D{{Key: "t", Value: "hashed"}}, options.Index().SetExpireAfterSeconds(60)), 238, "hashed")
	wantErr("collation", create(bson.D{{Key: "s", Value: "hashed"}}, options.Index().SetCollation(&options.Collation{Locale: "en"})), 238, "collation")
	err = db.RunCommand(ctx, bson.D{{Key: "collMod", Value: "h"}, {Key: "index", Value: bson.D{{Key: "name", Value: "a_hashed"}, {Key: "prepareUnique", Value: true}}}}).Err()
	wantErr("collMod prepareUnique", err, 16764, "Currently hashed indexes cannot guarantee uniqueness")
}

// A compound hashed index bounds its other fields as any index does;
// a sparse one skips documents missing every field, so an equality to
// null, which matches them, cannot use it.
func TestHashedIndexCompoundAndSparse(t *testing.T) {
	t.Parallel()
	ctx := testenv.Ctx(t)
	_, db := testenv.Open(t)
	coll := db.Collection("c")
	if _, err := coll.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 5}, {Key: "b", Value: "q"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: 5}, {Key: "b", Value: "r"}},
		bson.D{{Key: "_id", Value: 3}, {Key: "a", Value: 6}, {Key: "b", Value: "q"}},
	}); err != nil {
		t.Fatal(err)
	}
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: 1}, {Key: "b", Value: "hashed"}})
	filter := bson.D{{Key: "a", Value: 5}, {Key: "b", Value: "q"}}
	if n := testenv.Count(t, coll, filter); n != 1 {
		t.Errorf("count %d, want 1", n)
	}
	res := testenv.Explain(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: filter}}, "executionStats")
	ix := testenv.FindStage(testenv.WinningPlan(res), "IXSCAN")
	if b := ix.Lookup("indexBounds", "a").String(); b != `["[5, 5]"]` {
		t.Errorf("a's bounds %s", b)
	}
	if n := testenv.Field(t, res, "executionStats.totalKeysExamined").AsInt64(); n != 1 {
		t.Errorf("keys examined %d, want 1", n)
	}

	sp := db.Collection("sparse")
	if _, err := sp.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}},
		bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: nil}},
		bson.D{{Key: "_id", Value: 3}, {Key: "a", Value: 1}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := sp.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: "hashed"}}, Options: options.Index().SetSparse(true)}); err != nil {
		t.Fatal(err)
	}
	if n := testenv.Count(t, sp, bson.D{{Key: "a", Value: nil}}); n != 2 {
		t.Errorf("sparse: {a: null} counts %d, want 2 (the missing field too)", n)
	}
	res = testenv.Explain(t, db, bson.D{{Key: "find", Value: "sparse"}, {Key: "filter", Value: bson.D{{Key: "a", Value: 1}}}}, "queryPlanner")
	if got := strings.Join(testenv.Stages(testenv.WinningPlan(res)), " > "); got != "FETCH > IXSCAN" {
		t.Errorf("sparse equality plan %s, want FETCH > IXSCAN", got)
	}
}
