package aggregation_test

import (
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestNulInComputedFieldNames: a string that becomes a field name cannot
// hold a NUL byte (BSON names end at it): $arrayToObject refuses it with
// mongod's codes (4940400 for a pair, 4940401 for a {k, v} document),
// $setField with BadValue, and the server answers instead of failing
// the command internally. Also $arrayToObject's format codes from
// MongoDB's own arrayToObject test.
func TestNulInComputedFieldNames(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	for pipeline, code := range map[string]int32{
		`[{"$replaceWith": {"$arrayToObject": {"$literal": [["a\u0000b", "x"]]}}}]`:                        4940400,
		`[{"$replaceWith": {"$arrayToObject": {"$literal": [{"k": "a\u0000b", "v": "x"}]}}}]`:              4940401,
		`[{"$replaceWith": {"$setField": {"field": "a\u0000b", "input": "$$ROOT", "value": 1}}}]`:          2,
		`[{"$project": {"c": {"$arrayToObject": {"$literal": [["item", "apple"], {"k": "p", "v": 1}]}}}}]`: 40396,
		`[{"$project": {"c": {"$arrayToObject": {"$literal": [[321, 12]]}}}}]`:                             40395,
		`[{"$project": {"c": {"$arrayToObject": {"$literal": [{"y": "x", "x": "y"}]}}}}]`:                  40393,
	} {
		_, err, _ := aggOne(t, d, pipeline, 0)
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != code {
			t.Errorf("%s: %v, want code %d", pipeline, err, code)
		}
	}
}

// TestFieldPathSkipsNestedArrays: a field path through an array takes
// the field of each element that is a document and skips the rest,
// nested arrays included ("$a.b" of {a: [[{b: 1}], {b: 2}]} is [2]), as
// mongod's field path does; from MongoDB's own reduce test.
func TestFieldPathSkipsNestedArrays(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	r, err, _ := aggOne(t, d, `[{"$project": {"_id": 0,
		"p": {"$let": {"vars": {"a": [[{"b": 1}], {"b": 2}, 3, {"c": 4}]}, "in": "$$a.b"}},
		"r": {"$reduce": {"input": [1, 2], "initialValue": [], "in": {"$concatArrays": ["$$value", ["$$value.notAField"]]}}}}}]`, 0)
	if err != nil {
		t.Fatal(err)
	}
	doc := r.Lookup("cursor", "firstBatch", "0").Document()
	if got := doc.Lookup("p").String(); got != `[{"$numberInt":"2"}]` {
		t.Errorf("$$a.b: %s, want [2]", got)
	}
	if got := doc.Lookup("r").String(); got != `[[],[]]` {
		t.Errorf("$reduce: %s, want [[], []]", got)
	}
}

// TestAddFieldsThroughNestedArrays: a dotted $addFields through an array
// keeps the array's nested arrays and sets the field in their documents,
// as mongod does (Lode replaced a nested array by a new document, losing
// what it held); from MongoDB's own addFields dotted_paths test.
func TestAddFieldsThroughNestedArrays(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	r, err, _ := aggOne(t, d, `[{"$project": {"_id": 0, "a": [[[{"x": 0, "y": 7}]]], "f": [1, {"s": 2}, [1]]}},
		{"$addFields": {"a.x": 5, "f.n": "v"}}]`, 0)
	if err != nil {
		t.Fatal(err)
	}
	doc := r.Lookup("cursor", "firstBatch", "0").Document()
	if got := strings.ReplaceAll(doc.Lookup("a").String(), " ", ""); got != `[[[{"x":{"$numberInt":"5"},"y":{"$numberInt":"7"}}]]]` {
		t.Errorf("a: %s, want [[[{x: 5, y: 7}]]]", got)
	}
	if got := strings.ReplaceAll(doc.Lookup("f").String(), " ", ""); got != `[{"n":"v"},{"s":{"$numberInt":"2"},"n":"v"},[{"n":"v"}]]` {
		t.Errorf("f: %s, want [{n: v}, {s: 2, n: v}, [{n: v}]]", got)
	}
}

// TestProjectMixesDottedAndNested: a dotted path and a nested
// specification of the same parent project together in either order
// (mongod's SERVER-6184; MongoDB's own nested_dotted_common_prefix
// test), and a path below a computed field is 31249.
func TestProjectMixesDottedAndNested(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	for _, proj := range []string{`{"_id": 0, "b.c": 1, "b": {"a": 1}}`, `{"_id": 0, "b": {"a": 1}, "b.c": 1}`} {
		r, err, _ := aggOne(t, d, `[{"$replaceWith": {"a": "missing", "b": {"c": "bar", "a": "baz", "z": "not there"}}}, {"$project": `+proj+`}]`, 0)
		if err != nil {
			t.Fatalf("%s: %v", proj, err)
		}
		if got := strings.ReplaceAll(r.Lookup("cursor", "firstBatch", "0").String(), " ", ""); got != `{"b":{"c":"bar","a":"baz"}}` {
			t.Errorf("%s: %s, want {b: {c: bar, a: baz}}", proj, got)
		}
	}
	_, err, _ := aggOne(t, d, `[{"$project": {"x": {"$add": [1]}, "x.b": 1}}]`, 0)
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 31249 {
		t.Errorf("a path below a computed field: %v, want 31249", err)
	}
}
