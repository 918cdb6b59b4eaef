package aggregation_test

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// TestGetFieldAndConst checks through the Go driver cases of MongoDB's own
// $getField test that Lode got wrong: $const (mongod's other name for
// $literal, which its explain output prints) names a field or a document,
// including inside an array literal; the object form requires 'input'
// (3041703); a missing input gives a missing result, a null one null.
func TestGetFieldAndConst(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := d.Collection("c")
	if err := d.RunCommand(testenv.Ctx(t), bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{
		bson.D{{Key: "_id", Value: 0}, {Key: "$a", Value: 10}, {Key: "$x..$y", Value: bson.D{{Key: "$a", Value: 1}}}, {Key: "f", Value: bson.A{bson.D{{Key: "$a", Value: 41}}}}},
	}}}).Err(); err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		expr string
		want string // relaxed extended JSON of {r: ...}
	}{
		{`{"$getField": {"$const": "$a"}}`, `{"r":10}`},
		{`{"$getField": {"field": {"$const": "$a"}, "input": {"$getField": {"$const": "$x..$y"}}}}`, `{"r":1}`},
		{`{"$getField": {"field": {"$const": "$a"}, "input": {"$arrayElemAt": ["$f", 0]}}}`, `{"r":41}`},
		{`{"$getField": {"field": {"$const": "a$b"}, "input": {"$arrayElemAt": [[{"$const": {"a$b": 1}}, {"$const": {"a$b": 2}}], 0]}}}`, `{"r":1}`},
		{`{"$getField": {"field": "a", "input": {"$getField": "doesNotExist"}}}`, `{}`},
		{`{"$getField": {"field": "a", "input": null}}`, `{"r":null}`},
		{`{"$getField": {"field": "a", "input": true}}`, `{}`},
	} {
		var e bson.Raw
		if err := bson.UnmarshalExtJSON([]byte(tc.expr), false, &e); err != nil {
			t.Fatal(err)
		}
		cur, err := c.Aggregate(testenv.Ctx(t), bson.A{bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}, {Key: "r", Value: e}}}}})
		if err != nil {
			t.Errorf("case %d %s: %v", i, tc.expr, err)
			continue
		}
		var out []bson.Raw
		if err := cur.All(testenv.Ctx(t), &out); err != nil || len(out) != 1 {
			t.Fatalf("case %d: %v %v", i, out, err)
		}
		got, _ := bson.MarshalExtJSON(out[0], false, false)
		if string(got) != tc.want {
			t.Errorf("case %d %s: %s, want %s", i, tc.expr, got, tc.want)
		}
	}
	_, err := c.Aggregate(testenv.Ctx(t), bson.A{bson.D{{Key: "$project", Value: bson.D{{Key: "r", Value: bson.D{{Key: "$getField", Value: bson.D{{Key: "field", Value: "a"}}}}}}}}})
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 3041703 {
		t.Fatalf("$getField without input: %v, want 3041703", err)
	}
}

// TestSetFieldArguments checks through the Go driver the codes of
// MongoDB's own $setField test for a missing argument (field 4161102,
// value 4161103, input 4161109, in that order) and a dotted or
// $-prefixed field set on $$ROOT through $const.
func TestSetFieldArguments(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	for _, c := range []struct {
		spec string
		code int32
	}{
		{`{"input": {"a": "b"}}`, 4161102},
		{`{"field": "a"}`, 4161103},
		{`{"field": "a", "input": {"a": "b"}}`, 4161103},
		{`{"field": "foo", "value": 0}`, 4161109},
	} {
		_, err, _ := aggOne(t, d, `[{"$project": {"t": {"$setField": `+c.spec+`}}}]`, 0)
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != c.code {
			t.Errorf("$setField %s: %v, want %d", c.spec, err, c.code)
		}
	}
	r, err, _ := aggOne(t, d, `[{"$replaceWith": {"$setField": {"field": {"$const": "$x..$y"}, "input": "$$ROOT", "value": 1}}}]`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := r.Lookup("cursor", "firstBatch", "0").Document().Lookup("$x..$y").Int32OK(); !ok || v != 1 {
		t.Fatalf("$setField of $x..$y: %v", r.Lookup("cursor", "firstBatch", "0"))
	}
}

// TestIndexOfArgumentCodes checks through the Go driver the codes of
// MongoDB's own $indexOfCP test: a string argument of another type is
// 40093 or 40094 ($indexOfBytes keeps 40091 and 40092), and the starting
// and ending indexes share 40096 (not integral) and 40097 (negative).
func TestIndexOfArgumentCodes(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	for _, c := range []struct {
		expr string
		code int32
	}{
		{`{"$indexOfCP": [3, "s"]}`, 40093},
		{`{"$indexOfCP": ["s", 3]}`, 40094},
		{`{"$indexOfBytes": [3, "s"]}`, 40091},
		{`{"$indexOfCP": ["abc", "b", 0, "bad"]}`, 40096},
		{`{"$indexOfCP": ["abc", "b", 1, -1]}`, 40097},
		{`{"$indexOfArray": [[1], 1, 0, -1]}`, 40097},
	} {
		_, err, _ := aggOne(t, d, `[{"$project": {"r": `+c.expr+`}}]`, 0)
		testenv.WantCmdError(t, err, c.code, "")
	}
}
