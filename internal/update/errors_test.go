package update

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func TestParseErrors(t *testing.T) {
	doc := `{"_id": 1, "a": 1}`
	runCases(t, []updCase{
		{name: "unknown modifier", doc: doc, update: `{"$foo": {"a": 1}}`, code: 9,
			msg: `Unknown modifier: $foo. Expected a valid update modifier or pipeline-style update specified as an array`},
		{name: "mixed operators and fields", doc: doc, update: `{"$set": {"a": 1}, "b": 1}`, code: 9,
			msg: `Unknown modifier: b. Expected a valid update modifier or pipeline-style update specified as an array`},
		{name: "operand not a document", doc: doc, update: `{"$set": 1}`, code: 9,
			msg: `Modifiers operate on fields but we found type int instead. For example: {$mod: {<field>: ...}} not {$set: 1}`},
		{name: "conflict parent child", doc: doc, update: `{"$set": {"a": 1, "a.b": 2}}`, code: 40,
			msg: `Updating the path 'a.b' would create a conflict at 'a'`},
		{name: "conflict child parent", doc: doc, update: `{"$set": {"a.b": 1}, "$unset": {"a": 1}}`, code: 40,
			msg: `Updating the path 'a' would create a conflict at 'a'`},
		{name: "conflict across operators", doc: doc, update: `{"$set": {"a": 1}, "$inc": {"a": 1}}`, code: 40,
			msg: `Updating the path 'a' would create a conflict at 'a'`},
		{name: "conflict rename", doc: doc, update: `{"$rename": {"a": "b"}, "$set": {"b": 1}}`, code: 40,
			msg: `Updating the path 'b' would create a conflict at 'b'`},
		{name: "unused array filter", doc: doc, update: `{"$set": {"a": 1}}`, filters: []string{`{"x": 1}`}, code: 9,
			msg: `The array filter for identifier 'x' was not used in the update { $set: { a: 1 } }`},
		{name: "missing array filter", doc: doc, update: `{"$set": {"a.$[id]": 1}}`, code: 2,
			msg: `No array filter found for identifier 'id' in path 'a.$[id]'`},
		{name: "duplicate array filter", doc: doc, update: `{"$set": {"a.$[x]": 1}}`, filters: []string{`{"x": 1}`, `{"x": 2}`}, code: 9,
			msg: `Found multiple array filters with the same top-level field name x`},
		{name: "two identifiers in one filter", doc: doc, update: `{"$set": {"a.$[x]": 1}}`, filters: []string{`{"x": 1, "y": 2}`}, code: 9},
		{name: "empty path", doc: doc, update: `{"$set": {"": 1}}`, code: 56, msg: `An empty update path is not valid.`},
		{name: "empty field name", doc: doc, update: `{"$set": {"a..b": 1}}`, code: 56,
			msg: `The update path 'a..b' contains an empty field name, which is not allowed.`},
		{name: "two positionals", doc: doc, update: `{"$set": {"a.$.b.$": 1}}`, code: 2,
			msg: `Too many positional (i.e. '$') elements found in path 'a.$.b.$'`},
		{name: "positional first", doc: doc, update: `{"$set": {"$.a": 1}}`, code: 2,
			msg: `Cannot have positional (i.e. '$') element in the first position in path '$.a'`},
	})
}

func TestApplyErrors(t *testing.T) {
	runCases(t, []updCase{
		{name: "change _id", doc: `{"_id": 1}`, update: `{"$set": {"_id": 2}}`, code: 66,
			msg: `Performing an update on the path '_id' would modify the immutable field '_id'`},
		{name: "change inside _id", doc: `{"_id": {"a": 1}}`, update: `{"$inc": {"_id.a": 1}}`, code: 66,
			msg: `Performing an update on the path '_id.a' would modify the immutable field '_id'`},
		{name: "unset _id", doc: `{"_id": 1}`, update: `{"$unset": {"_id": 1}}`, code: 66},
		{name: "path through scalar", doc: `{"_id": 1, "a": 1}`, update: `{"$set": {"a.b": 1}}`, code: 28,
			msg: `Cannot create field 'b' in element {a: 1}`},
		{name: "field in array", doc: `{"_id": 1, "a": [1, 2]}`, update: `{"$set": {"a.b": 1}}`, code: 28,
			msg: `Cannot create field 'b' in element {a: [ 1, 2 ]}`},
		{name: "deep path through scalar", doc: `{"_id": 1, "a": {"b": "x"}}`, update: `{"$inc": {"a.b.c.d": 1}}`, code: 28,
			msg: `Cannot create field 'c' in element {b: "x"}`},
		{name: "array updates on scalar", doc: `{"_id": 1, "a": 5}`, update: `{"$set": {"a.$[]": 1}}`, code: 2,
			msg: `Cannot apply array updates to non-array element a: 5`},
		{name: "top-level dollar field", doc: `{"_id": 1}`, update: `{"$set": {"$x": 1}}`, code: 52},
		{name: "_id array", doc: `{"a": 1}`, insert: true, update: `{"$set": {"_id": [1]}}`, code: 53,
			msg: `The '_id' value cannot be of type array`},
	})
}

func TestReplacement(t *testing.T) {
	runCases(t, []updCase{
		{name: "keeps _id first", doc: `{"_id": 1, "item": "paper", "qty": 1}`, update: `{"item": "paperX", "instock": [{"warehouse": "A", "qty": 60}]}`,
			want: `{"_id": 1, "item": "paperX", "instock": [{"warehouse": "A", "qty": 60}]}`},
		{name: "same _id", doc: `{"_id": 1, "a": 1}`, update: `{"a": 2, "_id": 1}`, want: `{"a": 2, "_id": 1}`},
		{name: "unchanged", doc: `{"_id": 1, "a": 1}`, update: `{"a": 1}`, want: `{"_id": 1, "a": 1}`, noop: true},
		{name: "empty", doc: `{"_id": 1, "a": 1}`, update: `{}`, want: `{"_id": 1}`},
		{name: "dotted names allowed", doc: `{"_id": 1}`, update: `{"a.b": 1, "c": {"$d": 1}}`, want: `{"_id": 1, "a.b": 1, "c": {"$d": 1}}`},
		{name: "different _id", doc: `{"_id": 1}`, update: `{"_id": 2, "a": 1}`, code: 66,
			msg: `After applying the update, the (immutable) field '_id' was found to have been altered to _id: 2`},
		{name: "dollar field", doc: `{"_id": 1}`, update: `{"a": 1, "$set": {"b": 1}}`, code: 52,
			msg: `The dollar ($) prefixed field '$set' in '$set' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.`},
	})
	u, err := Parse(d(t, `{"a": 1}`), nil)
	if err != nil || !u.IsReplacement() {
		t.Fatalf("IsReplacement = false, err %v", err)
	}
	u, err = Parse(d(t, `{"$set": {"a": 1}}`), nil)
	if err != nil || u.IsReplacement() {
		t.Fatalf("IsReplacement = true, err %v", err)
	}
}

func TestDocumentTooLarge(t *testing.T) {
	big := strings.Repeat("x", 9<<20)
	spec := bsoncore.NewDocumentBuilder().AppendDocument("$set",
		bsoncore.NewDocumentBuilder().AppendString("a", big).AppendString("b", big).Build()).Build()
	u, err := Parse(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = u.Apply(d(t, `{"_id": 1}`), ApplyOptions{Pos: -1})
	if err == nil || !strings.Contains(err.Error(), "Resulting document after update is larger than 16777216") {
		t.Fatalf("got %v", err)
	}
}
