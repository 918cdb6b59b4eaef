package collation_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// aggJSON runs a pipeline given as extended JSON with a collation (nil:
// none) and returns the results as relaxed extended JSON, one per document.
func aggJSON(t *testing.T, c *mongo.Collection, pipeline string, collDoc bson.D) ([]string, error) {
	t.Helper()
	var pipe []bson.D
	if err := bson.UnmarshalExtJSON([]byte(pipeline), false, &pipe); err != nil {
		t.Fatalf("pipeline %s: %v", pipeline, err)
	}
	opts := options.Aggregate()
	if collDoc != nil {
		opts.SetCollation(coll(collDoc))
	}
	ctx := testenv.Ctx(t)
	cur, err := c.Aggregate(ctx, pipe, opts)
	if err != nil {
		return nil, err
	}
	var docs []bson.Raw
	if err := cur.All(ctx, &docs); err != nil {
		return nil, err
	}
	out := []string{}
	for _, d := range docs {
		j, err := bson.MarshalExtJSON(d, false, false)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(j))
	}
	return out, nil
}

// canon re-renders an extended JSON document as aggJSON does.
func canon(t *testing.T, s string) string {
	t.Helper()
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(s), false, &d); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	j, err := bson.MarshalExtJSON(d, false, false)
	if err != nil {
		t.Fatal(err)
	}
	return string(j)
}

// TestExpressionsUnderCollation: the comparing expression operators
// compare strings under the aggregate's collation, as mongod's
// ExpressionContext collator makes them ({locale: "en", strength: 2}:
// case-insensitive); $regexMatch does not. Each case gives the result
// under the collation and, where it differs, without one.
func TestExpressionsUnderCollation(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := d.Collection("exprs")
	insert(t, c, bson.D{{Key: "_id", Value: int32(1)}, {Key: "s", Value: "abc"}, {Key: "t", Value: "ABC"},
		{Key: "arr", Value: bson.A{"a", "B", "b", "A", "c"}}})
	cases := []struct {
		name, expr, want, simple string
	}{
		{"$eq", `{"$eq": ["$s", "ABC"]}`, `true`, `false`},
		{"$ne", `{"$ne": ["$s", "ABC"]}`, `false`, `true`},
		{"$lt", `{"$lt": ["$s", "ABD"]}`, `true`, `false`},
		{"$gte", `{"$gte": ["$s", "ABC"]}`, `true`, `true`},
		{"$cmp", `{"$cmp": ["$s", "$t"]}`, `0`, `1`},
		{"$in", `{"$in": ["ABC", ["x", "abc"]]}`, `true`, `false`},
		{"$indexOfArray", `{"$indexOfArray": ["$arr", "C"]}`, `4`, `-1`},
		{"$setUnion dedups", `{"$size": {"$setUnion": ["$arr", []]}}`, `3`, `5`},
		{"$setEquals", `{"$setEquals": [["a", "b"], ["A", "B"]]}`, `true`, `false`},
		{"$setIsSubset", `{"$setIsSubset": [["A"], ["a", "b"]]}`, `true`, `false`},
		{"$setDifference", `{"$setDifference": [["a", "b", "c"], ["A", "B"]]}`, `["c"]`, `["a", "b", "c"]`},
		{"$setIntersection", `{"$size": {"$setIntersection": [["a", "b"], ["A"]]}}`, `1`, `0`},
		{"$max", `{"$max": ["a", "B"]}`, `"B"`, `"a"`},
		{"$min", `{"$min": ["B", "a"]}`, `"a"`, `"B"`},
		{"$maxN", `{"$maxN": {"n": 1, "input": ["a", "B"]}}`, `["B"]`, `["a"]`},
		{"$sortArray", `{"$sortArray": {"input": ["b", "A", "C", "a"], "sortBy": 1}}`, `["A", "a", "b", "C"]`, `["A", "C", "a", "b"]`},
		{"$filter", `{"$filter": {"input": "$arr", "cond": {"$eq": ["$$this", "a"]}}}`, `["a", "A"]`, `["a"]`},
		{"$map", `{"$map": {"input": ["A", "x"], "in": {"$eq": ["$$this", "a"]}}}`, `[true, false]`, `[false, false]`},
		{"$let", `{"$let": {"vars": {"v": "ABC"}, "in": {"$eq": ["$s", "$$v"]}}}`, `true`, `false`},
		{"$regexMatch ignores it", `{"$regexMatch": {"input": "ABC", "regex": "abc"}}`, `false`, `false`},
		{"$strcasecmp ignores it", `{"$strcasecmp": ["a", "B"]}`, `-1`, `-1`},
	}
	for _, tc := range cases {
		pipe := `[{"$project": {"_id": 0, "r": ` + tc.expr + `}}]`
		for _, run := range []struct {
			collDoc bson.D
			want    string
		}{{enStrength2, tc.want}, {nil, tc.simple}} {
			got, err := aggJSON(t, c, pipe, run.collDoc)
			want := canon(t, `{"r": `+run.want+`}`)
			if err != nil || len(got) != 1 || got[0] != want {
				t.Errorf("%s (collation %v): got %v %v, want %s", tc.name, run.collDoc, got, err, want)
			}
		}
	}
}

// TestStagesUnderCollation: accumulators and stages that compare values
// honour the aggregate's collation ({locale: "en", strength: 2}).
func TestStagesUnderCollation(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := d.Collection("stages")
	insert(t, c,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "s", Value: "b"}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "s", Value: "B"}},
		bson.D{{Key: "_id", Value: int32(3)}, {Key: "s", Value: "a"}},
		bson.D{{Key: "_id", Value: int32(4)}, {Key: "s", Value: "C"}})
	g := d.Collection("graph")
	insert(t, g,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "name", Value: "A"}, {Key: "next", Value: "b"}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "name", Value: "B"}})
	dn := d.Collection("dens")
	insert(t, dn,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "p", Value: "x"}, {Key: "v", Value: int32(1)}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "p", Value: "X"}, {Key: "v", Value: int32(3)}})
	fc := d.Collection("fillc")
	insert(t, fc,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "p", Value: "x"}, {Key: "v", Value: int32(1)}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "p", Value: "X"}, {Key: "v", Value: nil}})
	cases := []struct {
		name string
		coll *mongo.Collection
		pipe string
		want []string
	}{
		{"$fill partitions", fc, `[{"$fill": {"partitionByFields": ["p"], "sortBy": {"_id": 1}, "output": {"v": {"method": "locf"}}}}, {"$sort": {"_id": 1}}]`,
			[]string{`{"_id": 1, "p": "x", "v": 1}`, `{"_id": 2, "p": "X", "v": 1}`}},
		{"$min/$max/$addToSet accumulators", c, `[{"$sort": {"_id": 1}}, {"$group": {"_id": null, "mx": {"$max": "$s"}, "mn": {"$min": "$s"}, "set": {"$addToSet": "$s"}}}, {"$project": {"_id": 0, "mx": 1, "mn": 1, "n": {"$size": "$set"}}}]`,
			[]string{`{"mx": "C", "mn": "a", "n": 3}`}},
		{"$top accumulator", c, `[{"$group": {"_id": null, "top": {"$top": {"sortBy": {"s": -1}, "output": "$_id"}}}}]`,
			[]string{`{"_id": null, "top": 4}`}},
		{"$bucket boundaries", c, `[{"$bucket": {"groupBy": "$s", "boundaries": ["a", "c", "z"], "output": {"n": {"$sum": 1}}}}]`,
			[]string{`{"_id": "a", "n": 3}`, `{"_id": "c", "n": 1}`}},
		{"$bucketAuto keeps b and B together", c, `[{"$bucketAuto": {"groupBy": "$s", "buckets": 2}}, {"$project": {"_id": 0, "count": 1}}]`,
			[]string{`{"count": 3}`, `{"count": 1}`}},
		{"$setWindowFields partitions", c, `[{"$setWindowFields": {"partitionBy": "$s", "sortBy": {"_id": 1}, "output": {"n": {"$sum": 1}, "r": {"$rank": {}}}}}, {"$sort": {"_id": 1}}, {"$project": {"_id": 1, "n": 1}}]`,
			[]string{`{"_id": 1, "n": 2}`, `{"_id": 2, "n": 2}`, `{"_id": 3, "n": 1}`, `{"_id": 4, "n": 1}`}},
		{"$rank ties", c, `[{"$setWindowFields": {"sortBy": {"s": 1}, "output": {"r": {"$denseRank": {}}}}}, {"$sort": {"_id": 1}}, {"$project": {"_id": 1, "r": 1}}]`,
			[]string{`{"_id": 1, "r": 2}`, `{"_id": 2, "r": 2}`, `{"_id": 3, "r": 1}`, `{"_id": 4, "r": 3}`}},
		{"$facet", c, `[{"$facet": {"x": [{"$match": {"s": "b"}}, {"$count": "n"}]}}]`,
			[]string{`{"x": [{"n": 2}]}`}},
		{"$unionWith", c, `[{"$unionWith": {"coll": "stages", "pipeline": [{"$match": {"s": "B"}}]}}, {"$count": "n"}]`,
			[]string{`{"n": 6}`}},
		{"$lookup with a pipeline", c, `[{"$match": {"_id": 1}}, {"$lookup": {"from": "stages", "let": {"v": "$s"}, "pipeline": [{"$match": {"$expr": {"$eq": ["$s", "$$v"]}}}], "as": "j"}}, {"$project": {"n": {"$size": "$j"}}}]`,
			[]string{`{"_id": 1, "n": 2}`}},
		{"$match $expr", c, `[{"$match": {"$expr": {"$eq": ["$s", "b"]}}}, {"$count": "n"}]`,
			[]string{`{"n": 2}`}},
		{"$redact", c, `[{"$redact": {"$cond": [{"$eq": ["$s", "b"]}, "$$KEEP", "$$PRUNE"]}}, {"$count": "n"}]`,
			[]string{`{"n": 2}`}},
		{"$graphLookup connects a to A and b to B", g, `[{"$match": {"_id": 2}}, {"$graphLookup": {"from": "graph", "startWith": "a", "connectFromField": "next", "connectToField": "name", "as": "found"}}, {"$project": {"n": {"$size": "$found"}}}]`,
			[]string{`{"_id": 2, "n": 2}`}},
		{"$densify partitions", dn, `[{"$densify": {"field": "v", "partitionByFields": ["p"], "range": {"step": 1, "bounds": "partition"}}}, {"$count": "n"}]`,
			[]string{`{"n": 3}`}},
	}
	for _, tc := range cases {
		got, err := aggJSON(t, tc.coll, tc.pipe, enStrength2)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		ok := len(got) == len(tc.want)
		for i := 0; ok && i < len(got); i++ {
			ok = got[i] == canon(t, tc.want[i])
		}
		if !ok {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestExprFilterUnderCollation: $expr in find, count and delete filters
// compares under the command's collation.
func TestExprFilterUnderCollation(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	c := d.Collection("exprfind")
	insert(t, c,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "s", Value: "x"}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "s", Value: "X"}},
		bson.D{{Key: "_id", Value: int32(3)}, {Key: "s", Value: "y"}})
	f := bson.D{{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{"$s", "x"}}}}}
	if got := ids(t, c, f, options.Find().SetCollation(coll(enStrength2)).SetSort(bson.D{{Key: "_id", Value: 1}})); !equalIDs(got, []int32{1, 2}) {
		t.Errorf("find $expr under the collation: %v, want [1 2]", got)
	}
	if got := ids(t, c, f, options.Find()); !equalIDs(got, []int32{1}) {
		t.Errorf("find $expr without a collation: %v, want [1]", got)
	}
	if n, err := c.CountDocuments(ctx, f, options.Count().SetCollation(coll(enStrength2))); err != nil || n != 2 {
		t.Errorf("count $expr under the collation: %d %v, want 2", n, err)
	}
	if r, err := c.DeleteMany(ctx, f, options.DeleteMany().SetCollation(coll(enStrength2))); err != nil || r.DeletedCount != 2 {
		t.Errorf("delete $expr under the collation: %v %v, want 2", r, err)
	}
}

// TestMergeUnderCollation: $merge searches its target under the
// pipeline's collation, and the unique index behind 'on' must have that
// collation (mongod's supportsUniqueKey), else 51183.
func TestMergeUnderCollation(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	src := d.Collection("msrc")
	insert(t, src, bson.D{{Key: "_id", Value: int32(1)}, {Key: "k", Value: "a"}, {Key: "v", Value: int32(1)}})
	tgt := d.Collection("mtgt")
	insert(t, tgt, bson.D{{Key: "_id", Value: int32(9)}, {Key: "k", Value: "A"}, {Key: "v", Value: int32(0)}})
	if _, err := tgt.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "k", Value: 1}},
		Options: options.Index().SetUnique(true).SetCollation(coll(enStrength2))}); err != nil {
		t.Fatal(err)
	}
	merge := mongo.Pipeline{{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}, {Key: "k", Value: 1}, {Key: "v", Value: 1}}}},
		{{Key: "$merge", Value: bson.D{{Key: "into", Value: "mtgt"}, {Key: "on", Value: "k"}, {Key: "whenMatched", Value: "merge"}}}}}
	// Without the collation the collated index cannot back 'on'.
	_, err := src.Aggregate(ctx, merge)
	testenv.WantCode(t, "$merge on a collated index from a simple pipeline", err, 51183)
	if _, err := src.Aggregate(ctx, merge, options.Aggregate().SetCollation(coll(enStrength2))); err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	cur, err := tgt.Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || docs[0].Lookup("_id").Int32() != 9 || docs[0].Lookup("v").Int32() != 1 {
		t.Errorf("$merge under the collation should update the A document: %v", docs)
	}
}

// TestChangeStreamUnderCollation: a change stream's $match runs under the
// stream's collation, as mongod applies it to the stream's stages.
func TestChangeStreamUnderCollation(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	c := d.Collection("cs")
	insert(t, c, bson.D{{Key: "_id", Value: int32(0)}})
	cs, err := c.Watch(ctx, mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "fullDocument.s", Value: "x"}}}}},
		options.ChangeStream().SetCollation(*coll(enStrength2)))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	insert(t, c,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "s", Value: "y"}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "s", Value: "X"}})
	if !cs.Next(ctx) {
		t.Fatalf("no event: %v", cs.Err())
	}
	if id := cs.Current.Lookup("fullDocument", "_id").Int32(); id != 2 {
		t.Errorf("the stream's $match under the collation passed _id %d, want 2 (s: \"X\")", id)
	}
}

// TestValidatorUnderCollation: a validator matches under the collection's
// default collation (mongod parses it with the collection's collator).
func TestValidatorUnderCollation(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	err := d.CreateCollection(ctx, "valid", options.CreateCollection().SetCollation(coll(enStrength2)).
		SetValidator(bson.D{{Key: "s", Value: "abc"}}))
	if err != nil {
		t.Fatal(err)
	}
	c := d.Collection("valid")
	if _, err := c.InsertOne(ctx, bson.D{{Key: "s", Value: "ABC"}}); err != nil {
		t.Errorf("ABC equals abc under the collection's collation: %v", err)
	}
	_, err = c.InsertOne(ctx, bson.D{{Key: "s", Value: "abd"}})
	if we, ok := err.(mongo.WriteException); !ok || len(we.WriteErrors) != 1 || we.WriteErrors[0].Code != 121 {
		t.Errorf("abd should fail validation (121): %v", err)
	}
}

// TestJSONSchemaIgnoresCollation: $jsonSchema's enum compares strings
// binary even under a collation, as mongod's $_internalSchemaEq (which
// $jsonSchema's enum becomes) has no collator; the rest of the filter
// still uses the collation.
func TestJSONSchemaIgnoresCollation(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	err := d.CreateCollection(ctx, "schema", options.CreateCollection().SetCollation(coll(enStrength2)).
		SetValidator(bson.D{{Key: "$jsonSchema", Value: bson.D{{Key: "properties", Value: bson.D{
			{Key: "s", Value: bson.D{{Key: "enum", Value: bson.A{"abc"}}}}}}}}}))
	if err != nil {
		t.Fatal(err)
	}
	c := d.Collection("schema")
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "s", Value: "abc"}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.InsertOne(ctx, bson.D{{Key: "s", Value: "ABC"}})
	if we, ok := err.(mongo.WriteException); !ok || len(we.WriteErrors) != 1 || we.WriteErrors[0].Code != 121 {
		t.Errorf("ABC is not in the enum [abc] (binary comparison), want 121: %v", err)
	}
	// In a find under the collation: the enum stays binary, the $eq beside
	// it is case-insensitive.
	for _, tc := range []struct {
		filter bson.D
		want   int64
	}{
		{bson.D{{Key: "$jsonSchema", Value: bson.D{{Key: "properties", Value: bson.D{{Key: "s", Value: bson.D{{Key: "enum", Value: bson.A{"ABC"}}}}}}}}}, 0},
		{bson.D{{Key: "s", Value: "ABC"}}, 1},
	} {
		n, err := c.CountDocuments(ctx, tc.filter, options.Count().SetCollation(coll(enStrength2)))
		if err != nil {
			t.Fatal(err)
		}
		if n != tc.want {
			t.Errorf("%v: %d documents, want %d", tc.filter, n, tc.want)
		}
	}
}

// TestMergeOnIDCollation: an explicit on: "_id" needs the target's _id
// index (the collection's default collation) to have the pipeline's
// collation; the default 'on' is not checked.
func TestMergeOnIDCollation(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	insert(t, d.Collection("isrc"), bson.D{{Key: "_id", Value: "a"}, {Key: "v", Value: int32(1)}})
	if err := d.CreateCollection(ctx, "itgt", options.CreateCollection().SetCollation(coll(enStrength2))); err != nil {
		t.Fatal(err)
	}
	insert(t, d.Collection("itgt"), bson.D{{Key: "_id", Value: "A"}, {Key: "v", Value: int32(0)}})
	onID := mongo.Pipeline{{{Key: "$merge", Value: bson.D{{Key: "into", Value: "itgt"}, {Key: "on", Value: "_id"}}}}}
	_, err := d.Collection("isrc").Aggregate(ctx, onID, options.Aggregate().SetCollation(&options.Collation{Locale: "simple"}))
	testenv.WantCode(t, "on _id with another collation than the target's _id index", err, 51183)
	if _, err := d.Collection("isrc").Aggregate(ctx, onID, options.Aggregate().SetCollation(coll(enStrength2))); err != nil {
		t.Fatalf("on _id under the target's collation: %v", err)
	}
	if n, err := d.Collection("itgt").CountDocuments(ctx, bson.D{{Key: "v", Value: int32(1)}}); err != nil || n != 1 {
		t.Errorf("merged under the collation into _id A: %d %v", n, err)
	}
	if n, _ := d.Collection("itgt").CountDocuments(ctx, bson.D{}); n != 1 {
		t.Errorf("target holds %d documents, want 1 (a matched A)", n)
	}
}
