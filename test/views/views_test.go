// Package views tests MongoDB views through the Go driver: create, read
// (find, aggregate, count, distinct, $lookup, $unionWith, getMore,
// explain), listCollections, collMod, drop, the writes mongod refuses on
// a view, and the view catalog's persistence across a restart. Expected
// codes and messages are mongod 7.0's.
package views

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// seed fills coll "src" with {_id: i, a: i, g: i%3, tags: [...]}, i in 0..9.
func seed(t *testing.T, d *mongo.Database) {
	t.Helper()
	var docs []any
	for i := 0; i < 10; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i}, {Key: "g", Value: i % 3},
			{Key: "tags", Value: bson.A{"t" + string(rune('a'+i%2)), "all"}}})
	}
	if _, err := d.Collection("src").InsertMany(testenv.Ctx(t), docs); err != nil {
		t.Fatal(err)
	}
}

func createView(t *testing.T, d *mongo.Database, name, on string, pipeline bson.A) {
	t.Helper()
	if _, err := testenv.RunCmd(t, d, bson.D{{Key: "create", Value: name}, {Key: "viewOn", Value: on}, {Key: "pipeline", Value: pipeline}}); err != nil {
		t.Fatalf("create view %s: %v", name, err)
	}
}

// ids returns the _id values of docs as ints.
func ids(t *testing.T, docs []bson.M) []int {
	t.Helper()
	var out []int
	for _, d := range docs {
		switch v := d["_id"].(type) {
		case int32:
			out = append(out, int(v))
		case int64:
			out = append(out, int(v))
		default:
			t.Fatalf("unexpected _id %T %v", v, v)
		}
	}
	return out
}

// all returns a function reading a whole cursor (a Find or Aggregate result).
func all(t *testing.T) func(cur *mongo.Cursor, err error) []bson.M {
	return func(cur *mongo.Cursor, err error) []bson.M {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []bson.M
		if err := cur.All(testenv.Ctx(t), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
}

var evens = bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$mod", Value: bson.A{2, 0}}}}}}}}

func TestReadsThroughView(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	seed(t, d)
	createView(t, d, "evens", "src", evens)
	v := d.Collection("evens")

	// find: filter, sort, skip, limit, projection after the view's pipeline.
	got := all(t)(v.Find(ctx, bson.D{{Key: "a", Value: bson.D{{Key: "$gt", Value: 1}}}},
		options.Find().SetSort(bson.D{{Key: "a", Value: -1}}).SetSkip(1).SetLimit(2).SetProjection(bson.D{{Key: "a", Value: 1}})))
	if want := []int{6, 4}; !reflect.DeepEqual(ids(t, got), want) {
		t.Fatalf("find on view: got %v, want %v", ids(t, got), want)
	}
	if _, ok := got[0]["g"]; ok {
		t.Errorf("projection not applied: %v", got[0])
	}

	// getMore on a view's cursor, and the cursor's namespace is the view's.
	r, err := testenv.RunCmd(t, d, bson.D{{Key: "find", Value: "evens"}, {Key: "batchSize", Value: 2}})
	testenv.WantOK(t, r, err)
	if ns := testenv.Field(t, r, "cursor.ns").StringValue(); ns != d.Name()+".evens" {
		t.Errorf("cursor ns %q, want %q", ns, d.Name()+".evens")
	}
	cur := all(t)(v.Find(ctx, bson.D{}, options.Find().SetBatchSize(2)))
	if len(cur) != 5 {
		t.Errorf("find with batchSize 2 over getMore: %d docs, want 5", len(cur))
	}

	// aggregate on a view.
	agg := all(t)(v.Aggregate(ctx, bson.A{bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "s", Value: bson.D{{Key: "$sum", Value: "$a"}}}}}}}))
	if len(agg) != 1 || agg[0]["s"] != int32(20) {
		t.Errorf("aggregate on view: %v", agg)
	}

	// count and countDocuments.
	n, err := v.CountDocuments(ctx, bson.D{{Key: "g", Value: 0}})
	if err != nil || n != 2 { // 0, 6
		t.Errorf("countDocuments: %d %v, want 2", n, err)
	}
	r, err = testenv.RunCmd(t, d, bson.D{{Key: "count", Value: "evens"}, {Key: "skip", Value: 1}, {Key: "limit", Value: 3}})
	testenv.WantOK(t, r, err)
	testenv.WantInt32(t, r, "n", 3)
	if n, err := v.EstimatedDocumentCount(ctx); err != nil || n != 5 {
		t.Errorf("estimatedDocumentCount: %d %v, want 5", n, err)
	}

	// distinct flattens arrays, as on a collection.
	res := v.Distinct(ctx, "tags", bson.D{})
	var tags []string
	if err := res.Decode(&tags); err != nil {
		t.Fatal(err)
	}
	sort.Strings(tags)
	if want := []string{"all", "ta"}; !reflect.DeepEqual(tags, want) {
		t.Errorf("distinct tags: %v, want %v", tags, want)
	}

	// distinct through arrays of subdocuments on the key's path.
	if _, err := d.Collection("nested").InsertMany(ctx, []any{
		bson.D{{Key: "o", Value: bson.A{bson.D{{Key: "k", Value: 1}}, bson.D{{Key: "k", Value: bson.A{2, 3}}}}}},
		bson.D{{Key: "o", Value: bson.D{{Key: "k", Value: 1}}}},
		bson.D{{Key: "o", Value: 5}},
	}); err != nil {
		t.Fatal(err)
	}
	createView(t, d, "nestedView", "nested", bson.A{})
	var ks []int32
	if err := d.Collection("nestedView").Distinct(ctx, "o.k", bson.D{}).Decode(&ks); err != nil {
		t.Fatal(err)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	if want := []int32{1, 2, 3}; !reflect.DeepEqual(ks, want) {
		t.Errorf("distinct o.k through the view: %v, want %v", ks, want)
	}

	// a view on a view.
	createView(t, d, "bigEvens", "evens", bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 6}}}}}}})
	got = all(t)(d.Collection("bigEvens").Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}})))
	if want := []int{6, 8}; !reflect.DeepEqual(ids(t, got), want) {
		t.Errorf("view on view: %v, want %v", ids(t, got), want)
	}

	// $lookup from a view, $unionWith a view, and $lookup whose source is a view.
	got = all(t)(d.Collection("src").Aggregate(ctx, bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 3}}}}}},
		bson.D{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "evens"}, {Key: "localField", Value: "a"}, {Key: "foreignField", Value: "a"}, {Key: "as", Value: "m"}}}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "n", Value: bson.D{{Key: "$size", Value: "$m"}}}}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	}))
	var sizes []int32
	for _, g := range got {
		sizes = append(sizes, g["n"].(int32))
	}
	if want := []int32{1, 0, 1}; !reflect.DeepEqual(sizes, want) {
		t.Errorf("$lookup from view: %v, want %v", sizes, want)
	}
	// A correlated $lookup (let and $expr) from a view.
	got = all(t)(d.Collection("src").Aggregate(ctx, bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 3}}}}}},
		bson.D{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "evens"}, {Key: "let", Value: bson.D{{Key: "x", Value: "$a"}}},
			{Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{"$a", "$$x"}}}}}}}}}, {Key: "as", Value: "m"}}}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "n", Value: bson.D{{Key: "$size", Value: "$m"}}}}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	}))
	sizes = nil
	for _, g := range got {
		sizes = append(sizes, g["n"].(int32))
	}
	if want := []int32{1, 0, 1}; !reflect.DeepEqual(sizes, want) {
		t.Errorf("correlated $lookup from view: %v, want %v", sizes, want)
	}
	got = all(t)(d.Collection("bigEvens").Aggregate(ctx, bson.A{
		bson.D{{Key: "$unionWith", Value: bson.D{{Key: "coll", Value: "bigEvens"}}}},
		bson.D{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "evens"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$count", Value: "c"}}}}, {Key: "as", Value: "all"}}}},
	}))
	if len(got) != 4 {
		t.Errorf("$unionWith view: %d docs, want 4", len(got))
	}
	for _, g := range got {
		if c := g["all"].(bson.A)[0].(bson.D)[0].Value; c != int32(5) {
			t.Errorf("$lookup pipeline on view from a view: %v", g)
		}
	}

	// explain of a find on a view runs as the view's aggregation.
	e := testenv.Explain(t, d, bson.D{{Key: "find", Value: "evens"}, {Key: "filter", Value: bson.D{{Key: "a", Value: 2}}}}, "queryPlanner")
	if !strings.Contains(e.String(), "\"src\"") && !strings.Contains(e.String(), ".src") {
		t.Errorf("explain of find on view does not name the source: %v", e)
	}
	for _, c := range []bson.D{
		{{Key: "aggregate", Value: "src"}, {Key: "pipeline", Value: bson.A{
			bson.D{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "evens"}, {Key: "localField", Value: "a"}, {Key: "foreignField", Value: "a"}, {Key: "as", Value: "m"}}}},
			bson.D{{Key: "$unionWith", Value: "bigEvens"}}}}},
		{{Key: "count", Value: "evens"}},
		{{Key: "distinct", Value: "evens"}, {Key: "key", Value: "a"}},
		{{Key: "aggregate", Value: "evens"}, {Key: "pipeline", Value: bson.A{}}},
	} {
		testenv.Explain(t, d, c, "executionStats")
	}
}

func TestListCollectionsAndDrop(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	seed(t, d)
	createView(t, d, "evens", "src", evens)
	specs, err := d.ListCollectionSpecifications(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for _, s := range specs {
		types[s.Name] = s.Type
		if s.Name == "evens" {
			if !s.ReadOnly {
				t.Errorf("view info.readOnly false")
			}
			var opts struct {
				ViewOn   string `bson:"viewOn"`
				Pipeline bson.A `bson:"pipeline"`
			}
			if err := bson.Unmarshal(s.Options, &opts); err != nil || opts.ViewOn != "src" || len(opts.Pipeline) != 1 {
				t.Errorf("view options %v %v", s.Options, err)
			}
		}
	}
	if want := map[string]string{"src": "collection", "evens": "view", "system.views": "collection"}; !reflect.DeepEqual(types, want) {
		t.Errorf("listCollections types %v, want %v", types, want)
	}
	st, err := testenv.RunCmd(t, d, bson.D{{Key: "dbStats", Value: 1}})
	testenv.WantOK(t, st, err)
	if v := testenv.Field(t, st, "views").AsInt64(); v != 1 {
		t.Errorf("dbStats views %d, want 1", v)
	}
	names, err := d.ListCollectionNames(ctx, bson.D{{Key: "type", Value: "view"}})
	if err != nil || !reflect.DeepEqual(names, []string{"evens"}) {
		t.Errorf("filter type view: %v %v", names, err)
	}
	// The definition, as mongod stores it.
	var def bson.M
	if err := d.Collection("system.views").FindOne(ctx, bson.D{}).Decode(&def); err != nil {
		t.Fatal(err)
	}
	if def["_id"] != d.Name()+".evens" || def["viewOn"] != "src" {
		t.Errorf("system.views document %v", def)
	}

	if err := d.Collection("evens").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	names, _ = d.ListCollectionNames(ctx, bson.D{{Key: "type", Value: "view"}})
	if len(names) != 0 {
		t.Errorf("view still listed after drop: %v", names)
	}
	if n, _ := d.Collection("src").CountDocuments(ctx, bson.D{}); n != 10 {
		t.Errorf("dropping the view touched its source: %d docs", n)
	}
	createView(t, d, "evens", "src", evens)
	if err := d.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	names, _ = d.ListCollectionNames(ctx, bson.D{})
	if len(names) != 0 {
		t.Errorf("after dropDatabase: %v", names)
	}
}

func TestCreateErrors(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	seed(t, d)
	createView(t, d, "v1", "src", bson.A{})
	run := func(cmd bson.D) error {
		_, err := d.RunCommand(context.Background(), cmd).Raw()
		return err
	}
	for _, tc := range []struct {
		cmd  bson.D
		code int32
		msg  string
	}{
		{bson.D{{Key: "create", Value: "x"}, {Key: "viewOn", Value: 1}}, 14, "BSON field 'create.viewOn' is the wrong type 'int', expected type 'string'"},
		{bson.D{{Key: "create", Value: "x"}, {Key: "pipeline", Value: bson.A{}}}, 72, "'pipeline' requires 'viewOn' to also be specified"},
		{bson.D{{Key: "create", Value: "x"}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$out", Value: "y"}}}}}, 167,
			"Invalid pipeline for view " + d.Name() + ".x :: caused by :: The aggregation stage $out in location 0 of the pipeline cannot be used in the view definition of " + d.Name() + ".x because it writes to disk"},
		{bson.D{{Key: "create", Value: "x"}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$nope", Value: 1}}}}}, 40324, "Unrecognized pipeline stage name: '$nope'"},
		{bson.D{{Key: "create", Value: "src"}, {Key: "viewOn", Value: "v1"}, {Key: "pipeline", Value: bson.A{}}}, 48, ""},
		{bson.D{{Key: "create", Value: "v1"}}, 48, ""},
		{bson.D{{Key: "create", Value: "v1"}, {Key: "viewOn", Value: "other"}}, 48,
			"namespace " + d.Name() + ".v1 already exists, but is a view on " + d.Name() + ".src rather than " + d.Name() + ".other"},
		{bson.D{{Key: "create", Value: "src"}, {Key: "viewOn", Value: "v1"}}, 48, ""},
		// A cycle: v1 on v2 on v1.
		{bson.D{{Key: "collMod", Value: "v1"}, {Key: "viewOn", Value: "v2"}, {Key: "pipeline", Value: bson.A{}}}, 26, ""},
	} {
		err := run(tc.cmd)
		if tc.code == 26 {
			// v2 does not exist yet: collMod a view onto a missing source is fine.
			if err != nil {
				t.Errorf("%v: %v", tc.cmd, err)
			}
			continue
		}
		ce := testenv.WantCmdError(t, err, tc.code, "")
		if tc.msg != "" && ce.Message != tc.msg {
			t.Errorf("%v: message %q, want %q", tc.cmd, ce.Message, tc.msg)
		}
	}
	// Same definition again: accepted.
	createView(t, d, "same", "src", evens)
	createView(t, d, "same", "src", evens)
	// A source that does not exist is allowed.
	createView(t, d, "onNothing", "nothing", bson.A{})
	// v1 is now on v2 (missing); defining v2 on v1 makes a cycle.
	err := run(bson.D{{Key: "create", Value: "v2"}, {Key: "viewOn", Value: "v1"}, {Key: "pipeline", Value: bson.A{}}})
	ce := testenv.WantCmdError(t, err, 5, "GraphContainsCycle")
	n := d.Name()
	if want := "View cycle detected: " + n + ".v2 => " + n + ".v2 => " + n + ".v1 => " + n + ".v2"; ce.Message != want {
		t.Errorf("cycle message %q, want %q", ce.Message, want)
	}
	// A chain of 20 views is allowed, the 21st is not.
	prev := "src"
	for i := 1; i <= 20; i++ {
		name := "c" + string(rune('a'+i))
		createView(t, d, name, prev, bson.A{})
		prev = name
	}
	err = run(bson.D{{Key: "create", Value: "c21"}, {Key: "viewOn", Value: prev}, {Key: "pipeline", Value: bson.A{}}})
	ce = testenv.WantCmdError(t, err, 165, "ViewDepthLimitExceeded")
	if ce.Message != "View depth limit exceeded; maximum depth is 20" {
		t.Errorf("depth message %q", ce.Message)
	}
	// Lengthening the chain from below (the bottom view moved onto another
	// view) counts the views above it too.
	createView(t, d, "w", "src", bson.A{})
	err = run(bson.D{{Key: "collMod", Value: "cb"}, {Key: "viewOn", Value: "w"}, {Key: "pipeline", Value: bson.A{}}})
	testenv.WantCmdError(t, err, 165, "ViewDepthLimitExceeded")
	// Reading the top of a chain of 20 resolves 20 views, which mongod's
	// resolveView refuses (its loop stops at depth 20).
	_, err = run2(d, bson.D{{Key: "find", Value: prev}})
	ce = testenv.WantCmdError(t, err, 165, "ViewDepthLimitExceeded")
	if ce.Message != "View depth too deep or view cycle detected; maximum depth is 20" {
		t.Errorf("resolve depth message %q", ce.Message)
	}
	if _, err := run2(d, bson.D{{Key: "find", Value: "ct"}}); err != nil { // 19 views
		t.Errorf("find on a chain of 19 views: %v", err)
	}
}

func run2(d *mongo.Database, cmd bson.D) (bson.Raw, error) {
	return d.RunCommand(context.Background(), cmd).Raw()
}

func TestWritesRefused(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	seed(t, d)
	createView(t, d, "evens", "src", evens)
	v := d.Collection("evens")
	_, err := v.InsertOne(ctx, bson.D{{Key: "a", Value: 1}})
	testenv.WantCode(t, "insert", err, 166)
	_, err = v.UpdateOne(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}})
	testenv.WantCode(t, "update", err, 166)
	_, err = v.DeleteMany(ctx, bson.D{})
	testenv.WantCode(t, "delete", err, 166)
	err = v.FindOneAndUpdate(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}).Err()
	testenv.WantCode(t, "findAndModify", err, 166)
	_, err = v.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}})
	ce := testenv.WantCmdError(t, err, 166, "CommandNotSupportedOnView")
	if ce.Message != "Cannot create indexes on a view" {
		t.Errorf("createIndexes on a view: %q", ce.Message)
	}
	_, err = v.Indexes().List(ctx)
	testenv.WantCode(t, "listIndexes", err, 166)
	err = v.Indexes().DropOne(ctx, "a_1")
	ce = testenv.WantCmdError(t, err, 166, "CommandNotSupportedOnView")
	if ce.Message != "Cannot drop indexes on view test.evens" {
		t.Errorf("dropIndexes on a view: %q", ce.Message)
	}
	_, err = testenv.RunCmd(t, d, bson.D{{Key: "collStats", Value: "evens"}})
	testenv.WantCode(t, "collStats", err, 166)
	_, err = testenv.RunCmd(t, d, bson.D{{Key: "validate", Value: "evens"}})
	testenv.WantCode(t, "validate", err, 166)
	_, err = d.Collection("src").Aggregate(ctx, bson.A{bson.D{{Key: "$out", Value: "evens"}}})
	testenv.WantCode(t, "$out into a view", err, 166)
	_, err = d.Collection("src").Aggregate(ctx, bson.A{bson.D{{Key: "$merge", Value: bson.D{{Key: "into", Value: "evens"}}}}})
	ce = testenv.WantCmdError(t, err, 166, "CommandNotSupportedOnView")
	if want := "Executor error during aggregate command on namespace: test.src :: caused by :: Namespace test.evens is a view, not a collection"; ce.Message != want {
		t.Errorf("$merge into a view: %q, want %q", ce.Message, want)
	}
	for _, st := range []string{"$collStats", "$indexStats"} {
		_, err = v.Aggregate(ctx, bson.A{bson.D{{Key: st, Value: bson.D{}}}})
		testenv.WantCode(t, st+" on a view", err, 166)
	}
	_, err = v.Watch(ctx, mongo.Pipeline{})
	testenv.WantCode(t, "change stream on a view", err, 166)
	err = d.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "renameCollection", Value: d.Name() + ".evens"}, {Key: "to", Value: d.Name() + ".x"}}).Err()
	ce = testenv.WantCmdError(t, err, 166, "")
	if want := "cannot rename view: " + d.Name() + ".evens"; ce.Message != want {
		t.Errorf("rename a view: %q, want %q", ce.Message, want)
	}
	err = d.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "renameCollection", Value: d.Name() + ".src"}, {Key: "to", Value: d.Name() + ".evens"}, {Key: "dropTarget", Value: true}}).Err()
	ce = testenv.WantCmdError(t, err, 48, "NamespaceExists")
	if want := "a view already exists with that name: " + d.Name() + ".evens"; ce.Message != want {
		t.Errorf("rename onto a view: %q, want %q", ce.Message, want)
	}
	// find options an aggregation cannot express, as mongod's conversion
	// of a find on a view refuses them.
	for _, tc := range []struct {
		opt bson.E
		msg string
	}{
		{bson.E{Key: "tailable", Value: true}, "Tailable cursors are not supported in aggregation."},
		{bson.E{Key: "showRecordId", Value: true}, "Option showRecordId not supported in aggregation."},
		{bson.E{Key: "returnKey", Value: true}, "Option returnKey not supported in aggregation."},
		{bson.E{Key: "min", Value: bson.D{{Key: "a", Value: 1}}}, "Option min not supported in aggregation."},
		{bson.E{Key: "noCursorTimeout", Value: true}, "Option noCursorTimeout not supported in aggregation."},
		{bson.E{Key: "allowPartialResults", Value: true}, "Option allowPartialResults not supported in aggregation."},
		{bson.E{Key: "sort", Value: bson.D{{Key: "$natural", Value: 1}}}, "Sort option $natural not supported in aggregation."},
		{bson.E{Key: "singleBatch", Value: true}, "Option singleBatch not supported in aggregation."},
	} {
		_, err = testenv.RunCmd(t, d, bson.D{{Key: "find", Value: "evens"}, tc.opt})
		ce = testenv.WantCmdError(t, err, 168, "InvalidPipelineOperator")
		if ce.Message != tc.msg {
			t.Errorf("find %s on a view: %q, want %q", tc.opt.Key, ce.Message, tc.msg)
		}
	}
	// singleBatch with limit 1 is what findOne sends: allowed.
	if err := v.FindOne(ctx, bson.D{}).Err(); err != nil {
		t.Errorf("findOne on a view: %v", err)
	}
	// Nothing was written to the source.
	if n, _ := d.Collection("src").CountDocuments(ctx, bson.D{}); n != 10 {
		t.Errorf("source has %d docs, want 10", n)
	}
}

func TestCollMod(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	seed(t, d)
	createView(t, d, "v", "src", evens)
	_, err := testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: "v"}, {Key: "viewOn", Value: "src"},
		{Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "a", Value: 1}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	got := all(t)(d.Collection("v").Find(ctx, bson.D{}))
	if want := []int{1}; !reflect.DeepEqual(ids(t, got), want) {
		t.Errorf("after collMod: %v", ids(t, got))
	}
	_, err = testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: "v"}, {Key: "validator", Value: bson.D{{Key: "a", Value: 1}}}})
	ce := testenv.WantCmdError(t, err, 72, "InvalidOptions")
	if ce.Message != "option not supported on a view: validator" {
		t.Errorf("collMod validator on view: %q", ce.Message)
	}
	_, err = testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: "v"}, {Key: "viewOn", Value: "src"},
		{Key: "changeStreamPreAndPostImages", Value: bson.D{{Key: "enabled", Value: true}}}, {Key: "validationLevel", Value: "off"}})
	ce = testenv.WantCmdError(t, err, 72, "InvalidOptions")
	if ce.Message != "option not supported on a view: validationLevel" {
		t.Errorf("collMod of a view with collection options: %q", ce.Message)
	}
	_, err = testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: "src"}, {Key: "viewOn", Value: "x"}, {Key: "pipeline", Value: bson.A{}}})
	ce = testenv.WantCmdError(t, err, 72, "InvalidOptions")
	if ce.Message != "option only supported on a view: pipeline" {
		t.Errorf("collMod viewOn of a collection: %q", ce.Message)
	}
	_, err = testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: "src"}, {Key: "viewOn", Value: "x"}})
	ce = testenv.WantCmdError(t, err, 72, "InvalidOptions")
	if ce.Message != "option only supported on a view: viewOn" {
		t.Errorf("collMod viewOn of a collection: %q", ce.Message)
	}
}
