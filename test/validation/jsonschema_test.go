package validation

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

type m = bson.M

// jsonSchemaCases: for each keyword a schema, a document it accepts and
// one it rejects, per MongoDB's $jsonSchema documentation (draft 4 with
// bsonType; no implicit array traversal; a keyword about one kind of
// value ignores values of other kinds).
var jsonSchemaCases = []struct {
	name       string
	schema     m
	pass, fail m
}{
	{"bsonType", m{"properties": m{"a": m{"bsonType": "int"}}}, m{"a": int32(1)}, m{"a": "x"}},
	{"bsonType array", m{"properties": m{"a": m{"bsonType": bson.A{"string", "null"}}}}, m{"a": nil}, m{"a": 1.5}},
	{"bsonType number", m{"properties": m{"a": m{"bsonType": "number"}}}, m{"a": int64(3)}, m{"a": true}},
	{"bsonType object at top", m{"bsonType": "object"}, m{"a": 1}, nil},
	{"type", m{"properties": m{"a": m{"type": "string"}}}, m{"a": "s"}, m{"a": int32(1)}},
	{"type array is not traversed", m{"properties": m{"a": m{"type": "number"}}}, m{"a": 2}, m{"a": bson.A{1, 2}}},
	{"required", m{"required": bson.A{"a", "b"}}, m{"a": 1, "b": 2}, m{"a": 1}},
	{"properties nested", m{"properties": m{"o": m{"properties": m{"x": m{"minimum": 5}}}}}, m{"o": m{"x": 5}}, m{"o": m{"x": 4}}},
	{"patternProperties", m{"patternProperties": m{"^s_": m{"bsonType": "string"}}}, m{"s_1": "x", "n": 1}, m{"s_1": 1}},
	{"additionalProperties false", m{"properties": m{"_id": m{}, "a": m{}}, "additionalProperties": false}, m{"a": 1}, m{"a": 1, "b": 2}},
	{"additionalProperties schema", m{"properties": m{"_id": m{}}, "additionalProperties": m{"bsonType": "int"}}, m{"a": int32(1)}, m{"a": "x"}},
	{"enum", m{"properties": m{"a": m{"enum": bson.A{"red", "green"}}}}, m{"a": "red"}, m{"a": "blue"}},
	{"minimum", m{"properties": m{"a": m{"minimum": 10}}}, m{"a": 10}, m{"a": 9.5}},
	{"maximum", m{"properties": m{"a": m{"maximum": 10}}}, m{"a": int64(10)}, m{"a": 11}},
	{"exclusiveMinimum", m{"properties": m{"a": m{"minimum": 10, "exclusiveMinimum": true}}}, m{"a": 11}, m{"a": 10}},
	{"exclusiveMaximum", m{"properties": m{"a": m{"maximum": 10, "exclusiveMaximum": true}}}, m{"a": 9}, m{"a": 10}},
	{"minimum ignores strings", m{"properties": m{"a": m{"minimum": 10}}}, m{"a": "abc"}, m{"a": 1}},
	{"minLength", m{"properties": m{"a": m{"minLength": 3}}}, m{"a": "héé"}, m{"a": "ab"}},
	{"maxLength", m{"properties": m{"a": m{"maxLength": 2}}}, m{"a": "ab"}, m{"a": "abc"}},
	{"pattern", m{"properties": m{"a": m{"pattern": "^[a-z]+$"}}}, m{"a": "abc"}, m{"a": "aB1"}},
	{"items schema", m{"properties": m{"a": m{"items": m{"bsonType": "int"}}}}, m{"a": bson.A{int32(1), int32(2)}}, m{"a": bson.A{int32(1), "x"}}},
	{"items tuple", m{"properties": m{"a": m{"items": bson.A{m{"bsonType": "string"}, m{"bsonType": "int"}}}}}, m{"a": bson.A{"x", int32(1), true}}, m{"a": bson.A{int32(1), "x"}}},
	{"additionalItems false", m{"properties": m{"a": m{"items": bson.A{m{}}, "additionalItems": false}}}, m{"a": bson.A{1}}, m{"a": bson.A{1, 2}}},
	{"additionalItems schema", m{"properties": m{"a": m{"items": bson.A{m{}}, "additionalItems": m{"bsonType": "string"}}}}, m{"a": bson.A{1, "x"}}, m{"a": bson.A{1, 2}}},
	{"minItems", m{"properties": m{"a": m{"minItems": 2}}}, m{"a": bson.A{1, 2}}, m{"a": bson.A{1}}},
	{"maxItems", m{"properties": m{"a": m{"maxItems": 1}}}, m{"a": bson.A{1}}, m{"a": bson.A{1, 2}}},
	{"uniqueItems", m{"properties": m{"a": m{"uniqueItems": true}}}, m{"a": bson.A{1, 2}}, m{"a": bson.A{1, 1}}},
	{"minProperties", m{"minProperties": 3}, m{"a": 1, "b": 2}, m{"a": 1}},
	{"maxProperties", m{"maxProperties": 2}, m{"a": 1}, m{"a": 1, "b": 2}},
	{"dependencies fields", m{"dependencies": m{"card": bson.A{"billing"}}}, m{"card": 1, "billing": 2}, m{"card": 1}},
	{"dependencies schema", m{"dependencies": m{"card": m{"required": bson.A{"billing"}}}}, m{"other": 1}, m{"card": 1}},
	{"allOf", m{"allOf": bson.A{m{"required": bson.A{"a"}}, m{"required": bson.A{"b"}}}}, m{"a": 1, "b": 1}, m{"a": 1}},
	{"anyOf", m{"anyOf": bson.A{m{"required": bson.A{"a"}}, m{"required": bson.A{"b"}}}}, m{"b": 1}, m{"c": 1}},
	{"oneOf", m{"oneOf": bson.A{m{"required": bson.A{"a"}}, m{"required": bson.A{"b"}}}}, m{"a": 1}, m{"a": 1, "b": 1}},
	{"not", m{"not": m{"required": bson.A{"secret"}}}, m{"a": 1}, m{"secret": 1}},
	{"title and description", m{"title": "t", "description": "d", "required": bson.A{"a"}}, m{"a": 1}, m{"b": 1}},
}

// TestJSONSchemaInFind: each keyword accepts and rejects documents in a
// find filter.
func TestJSONSchemaInFind(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	for i, tc := range jsonSchemaCases {
		coll := d.Collection(fmt.Sprintf("find%d", i))
		docs := []any{withID("pass", tc.pass)}
		if tc.fail != nil {
			docs = append(docs, withID("fail", tc.fail))
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			t.Fatalf("%s: insert: %v", tc.name, err)
		}
		cur, err := coll.Find(ctx, bson.D{{Key: "$jsonSchema", Value: tc.schema}})
		if err != nil {
			t.Fatalf("%s: find: %v", tc.name, err)
		}
		var got []bson.M
		if err := cur.All(ctx, &got); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(got) != 1 || got[0]["_id"] != "pass" {
			t.Errorf("%s: find matched %v, want only the passing document", tc.name, got)
		}
	}
}

// TestJSONSchemaValidator: $jsonSchema as a collection validator accepts
// the passing document and refuses the failing one with 121.
func TestJSONSchemaValidator(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	for i, tc := range jsonSchemaCases {
		name := fmt.Sprintf("v%d", i)
		coll := createWith(t, d, name, bson.E{Key: "validator", Value: bson.D{{Key: "$jsonSchema", Value: tc.schema}}})
		if _, err := coll.InsertOne(ctx, withID("pass", tc.pass)); err != nil {
			t.Errorf("%s: passing insert: %v", tc.name, err)
		}
		if tc.fail == nil {
			continue
		}
		_, err := coll.InsertOne(ctx, withID("fail", tc.fail))
		info := wantValidationFailure(t, tc.name, err)
		if op := info.Lookup("details", "operatorName").StringValue(); op != "$jsonSchema" {
			t.Errorf("%s: details.operatorName = %q, want $jsonSchema", tc.name, op)
		}
	}
}

// TestJSONSchemaParseErrors: malformed schemas fail with mongod's codes.
func TestJSONSchemaParseErrors(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := d.Collection("errs")
	cases := []struct {
		name   string
		schema any
		code   int32
	}{
		{"not an object", 1, 14},
		{"unknown keyword", m{"foo": 1}, 9},
		{"unsupported $ref", m{"$ref": "#/x"}, 9},
		{"type and bsonType", m{"type": "string", "bsonType": "string"}, 9},
		{"bad bsonType alias", m{"bsonType": "nope"}, 2},
		{"bsonType not a string", m{"bsonType": 1}, 14},
		{"minimum not a number", m{"minimum": "x"}, 14},
		{"exclusiveMinimum without minimum", m{"exclusiveMinimum": true}, 9},
		{"required not an array", m{"required": "a"}, 14},
		{"required empty", m{"required": bson.A{}}, 2},
		{"required duplicate", m{"required": bson.A{"a", "a"}}, 9},
		{"properties not an object", m{"properties": 1}, 14},
		{"minLength negative", m{"minLength": -1}, 9},
		{"allOf empty", m{"allOf": bson.A{}}, 2},
		{"nested unknown keyword", m{"properties": m{"a": m{"bogus": 1}}}, 9},
	}
	for _, tc := range cases {
		_, err := coll.Find(ctx, bson.D{{Key: "$jsonSchema", Value: tc.schema}})
		testenv.WantCode(t, tc.name+" (find)", err, tc.code)
		_, err = testenv.RunCmd(t, d, bson.D{{Key: "create", Value: "c"}, {Key: "validator", Value: bson.D{{Key: "$jsonSchema", Value: tc.schema}}}})
		testenv.WantCode(t, tc.name+" (create)", err, tc.code)
	}
}

func withID(id string, doc m) m {
	out := m{"_id": id}
	for k, v := range doc {
		out[k] = v
	}
	return out
}

// TestJSONSchemaWithIndexes: $jsonSchema combines with indexed
// predicates, inside $and and $or, and in an aggregation $match.
func TestJSONSchemaWithIndexes(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := d.Collection("ix")
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: 1}})
	if _, err := coll.InsertMany(ctx, []any{
		m{"_id": 1, "a": 1, "s": "x"}, m{"_id": 2, "a": 1}, m{"_id": 3, "a": 2, "s": "y"},
	}); err != nil {
		t.Fatal(err)
	}
	js := bson.D{{Key: "$jsonSchema", Value: m{"required": bson.A{"s"}}}}
	cases := []struct {
		name   string
		filter bson.D
		want   int64
	}{
		{"with an indexed equality", append(bson.D{{Key: "a", Value: 1}}, js...), 1},
		{"in $and", bson.D{{Key: "$and", Value: bson.A{js, bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 1}}}}}}}, 2},
		{"in $or", bson.D{{Key: "$or", Value: bson.A{js, bson.D{{Key: "a", Value: 1}}}}}, 3},
		{"in $nor", bson.D{{Key: "$nor", Value: bson.A{js}}}, 1},
	}
	for _, tc := range cases {
		if n, err := coll.CountDocuments(ctx, tc.filter); err != nil || n != tc.want {
			t.Errorf("%s: count %d %v, want %d", tc.name, n, err, tc.want)
		}
		if n := testenv.Count(t, coll, tc.filter); n != tc.want {
			t.Errorf("%s: count command %d, want %d", tc.name, n, tc.want)
		}
	}
	if _, err := testenv.RunCmd(t, d, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "ix"}, {Key: "filter", Value: cases[0].filter}}}}); err != nil {
		t.Errorf("explain: %v", err)
	}
}

// TestJSONSchemaErrInfo: the students example of MongoDB's "Specify JSON
// Schema Validation" page: a gpa stored as an int fails bsonType double,
// and errInfo.details names the property, its description and the rule.
func TestJSONSchemaErrInfo(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	schema := bson.D{
		{Key: "bsonType", Value: "object"},
		{Key: "title", Value: "Student Object Validation"},
		{Key: "required", Value: bson.A{"address", "major", "name", "year"}},
		{Key: "properties", Value: bson.D{
			{Key: "name", Value: bson.D{{Key: "bsonType", Value: "string"}, {Key: "description", Value: "'name' must be a string and is required"}}},
			{Key: "year", Value: bson.D{{Key: "bsonType", Value: "int"}, {Key: "minimum", Value: 2017}, {Key: "maximum", Value: 3017},
				{Key: "description", Value: "'year' must be an integer in [ 2017, 3017 ] and is required"}}},
			{Key: "gpa", Value: bson.D{{Key: "bsonType", Value: bson.A{"double"}}, {Key: "description", Value: "'gpa' must be a double if the field exists"}}},
		}},
	}
	coll := createWith(t, d, "students", bson.E{Key: "validator", Value: bson.D{{Key: "$jsonSchema", Value: schema}}})
	_, err := coll.InsertOne(ctx, bson.D{{Key: "name", Value: "Alice"}, {Key: "year", Value: int32(2019)},
		{Key: "major", Value: "History"}, {Key: "gpa", Value: int32(3)}, {Key: "address", Value: bson.D{{Key: "city", Value: "NYC"}}}})
	info := wantValidationFailure(t, "insert", err)
	if _, err := info.LookupErr("failingDocumentId"); err != nil {
		t.Errorf("errInfo has no failingDocumentId: %v", info)
	}
	details := info.Lookup("details").Document()
	if got := details.Lookup("operatorName").StringValue(); got != "$jsonSchema" {
		t.Errorf("operatorName = %q", got)
	}
	if got := details.Lookup("title").StringValue(); got != "Student Object Validation" {
		t.Errorf("title = %q", got)
	}
	rules, _ := details.Lookup("schemaRulesNotSatisfied").Array().Values()
	if len(rules) != 1 || rules[0].Document().Lookup("operatorName").StringValue() != "properties" {
		t.Fatalf("schemaRulesNotSatisfied = %v, want one properties rule", details)
	}
	props, _ := rules[0].Document().Lookup("propertiesNotSatisfied").Array().Values()
	if len(props) != 1 {
		t.Fatalf("propertiesNotSatisfied = %v", props)
	}
	p := props[0].Document()
	if p.Lookup("propertyName").StringValue() != "gpa" || p.Lookup("description").StringValue() != "'gpa' must be a double if the field exists" {
		t.Errorf("property entry = %v", p)
	}
	pd, _ := p.Lookup("details").Array().Values()
	if len(pd) != 1 {
		t.Fatalf("property details = %v", pd)
	}
	r := pd[0].Document()
	if r.Lookup("operatorName").StringValue() != "bsonType" || r.Lookup("reason").StringValue() != "type did not match" ||
		r.Lookup("consideredType").StringValue() != "int" || r.Lookup("consideredValue").Int32() != 3 {
		t.Errorf("bsonType rule = %v", r)
	}
	if !bsonEqual(r.Lookup("specifiedAs").Document(), must(bson.Marshal(bson.D{{Key: "bsonType", Value: bson.A{"double"}}}))) {
		t.Errorf("specifiedAs = %v", r.Lookup("specifiedAs"))
	}

	// Missing required fields: a required rule with missingProperties.
	_, err = coll.InsertOne(ctx, bson.D{{Key: "name", Value: "Bob"}, {Key: "year", Value: int32(2020)}})
	info = wantValidationFailure(t, "insert missing", err)
	rules, _ = info.Lookup("details", "schemaRulesNotSatisfied").Array().Values()
	found := false
	for _, rv := range rules {
		rd := rv.Document()
		if rd.Lookup("operatorName").StringValue() == "required" {
			found = true
			miss, _ := rd.Lookup("missingProperties").Array().Values()
			if len(miss) != 2 || miss[0].StringValue() != "address" || miss[1].StringValue() != "major" {
				t.Errorf("missingProperties = %v, want [address major]", miss)
			}
		}
	}
	if !found {
		t.Errorf("no required rule in %v", rules)
	}
}
