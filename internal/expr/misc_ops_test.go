package expr

import (
	"errors"
	"testing"

	"github.com/lodedb/lode/internal/errs"
)

// TestBitwise follows the $bitAnd, $bitOr, $bitXor and $bitNot pages: the
// switches collection ({a: 0, b: 127}, {a: 2, b: 3}, {a: 3, b: 5}) and
// their outputs, and the int/long result rule.
func TestBitwise(t *testing.T) {
	runCases(t, []tc{
		{expr: `{"$bitAnd": ["$a", "$b"]}`, doc: `{"a": 0, "b": 127}`, want: `0`},
		{expr: `{"$bitAnd": ["$a", "$b"]}`, doc: `{"a": 2, "b": 3}`, want: `2`},
		{expr: `{"$bitAnd": ["$a", "$b"]}`, doc: `{"a": 3, "b": 5}`, want: `1`},
		{expr: `{"$bitAnd": ["$a", {"$numberLong": "63"}]}`, doc: `{"a": 3}`, want: `{"$numberLong": "3"}`},
		{expr: `{"$bitOr": ["$a", "$b"]}`, doc: `{"a": 0, "b": 127}`, want: `127`},
		{expr: `{"$bitOr": ["$a", "$b"]}`, doc: `{"a": 2, "b": 3}`, want: `3`},
		{expr: `{"$bitOr": ["$a", "$b"]}`, doc: `{"a": 3, "b": 5}`, want: `7`},
		{expr: `{"$bitXor": ["$a", "$b"]}`, doc: `{"a": 0, "b": 127}`, want: `127`},
		{expr: `{"$bitXor": ["$a", "$b"]}`, doc: `{"a": 2, "b": 3}`, want: `1`},
		{expr: `{"$bitXor": ["$a", "$b"]}`, doc: `{"a": 3, "b": 5}`, want: `6`},
		{expr: `{"$bitNot": "$a"}`, doc: `{"a": 0}`, want: `-1`},
		{expr: `{"$bitNot": "$a"}`, doc: `{"a": 2}`, want: `-3`},
		{expr: `{"$bitNot": "$a"}`, doc: `{"a": 3}`, want: `-4`},
		{expr: `{"$bitNot": {"$numberLong": "3"}}`, want: `{"$numberLong": "-4"}`},
		{expr: `{"$bitAnd": []}`, want: `-1`},
		{expr: `{"$bitOr": []}`, want: `0`},
		{expr: `{"$bitAnd": [1, null]}`, want: `null`},
		{expr: `{"$bitOr": ["$missing", 1]}`, want: `null`},
		{expr: `{"$bitNot": null}`, want: `null`},
		{expr: `{"$bitAnd": 1.5}`, code: 14},
		{expr: `{"$bitOr": [1, "a"]}`, code: 14},
		{expr: `{"$bitNot": 1.5}`, code: 14},
		{expr: `{"$bitNot": "abc"}`, code: 28765},
		{expr: `{"$bitNot": [1, 2]}`, code: 16020},
	})
}

// TestDataSizeAndTimestamps covers $bsonSize, $binarySize, $tsSecond and
// $tsIncrement: sizes of encodings whose lengths are known, and the parts
// of a timestamp.
func TestDataSizeAndTimestamps(t *testing.T) {
	runCases(t, []tc{
		{expr: `{"$bsonSize": "$$ROOT"}`, doc: `{"a": 1}`, want: `12`},
		{expr: `{"$bsonSize": {}}`, want: `5`},
		{expr: `{"$bsonSize": null}`, want: `null`},
		{expr: `{"$bsonSize": "$missing"}`, want: `null`},
		{expr: `{"$bsonSize": 1}`, code: 31393},
		{expr: `{"$bsonSize": [[1]]}`, code: 31393},
		{expr: `{"$binarySize": "Hello World!"}`, want: `12`},
		{expr: `{"$binarySize": "cafétéria"}`, want: `11`},
		{expr: `{"$binarySize": "$b"}`, doc: `{"b": {"$binary": {"base64": "AAECAw==", "subType": "00"}}}`, want: `4`},
		{expr: `{"$binarySize": null}`, want: `null`},
		{expr: `{"$binarySize": 1}`, code: 51276},
		{expr: `{"$tsSecond": "$t"}`, doc: `{"t": {"$timestamp": {"t": 1622731060, "i": 10}}}`, want: `{"$numberLong": "1622731060"}`},
		{expr: `{"$tsIncrement": "$t"}`, doc: `{"t": {"$timestamp": {"t": 1622731060, "i": 10}}}`, want: `{"$numberLong": "10"}`},
		{expr: `{"$tsSecond": null}`, want: `null`},
		{expr: `{"$tsIncrement": "$missing"}`, want: `null`},
		{expr: `{"$tsSecond": 1}`, code: 5687301},
		{expr: `{"$tsIncrement": "a"}`, code: 5687302},
		// JavaScript is refused as not implemented.
		{expr: `{"$function": {"body": "function() { return 1 }", "args": [], "lang": "js"}}`, code: 238},
		{expr: `{"$accumulator": {}}`, code: 168},
	})
}

// TestPercentileExpr runs the $percentile and $median pages' $project
// examples (the testScores collection: each student's three tests) and
// the parse errors mongod reports.
func TestPercentileExpr(t *testing.T) {
	scores := `{"test01": 62, "test02": 81, "test03": 80}`
	runCases(t, []tc{
		{expr: `{"$percentile": {"input": ["$test01", "$test02", "$test03"], "p": [0.5, 0.95], "method": "approximate"}}`, doc: scores, want: `[80.0, 81.0]`},
		{expr: `{"$median": {"input": ["$test01", "$test02", "$test03"], "method": "approximate"}}`, doc: scores, want: `80.0`},
		{expr: `{"$percentile": {"input": ["$test01", "$test02", "$test03"], "p": [0.5, 0.95], "method": "approximate"}}`, doc: `{"test01": 60, "test02": 53, "test03": 72}`, want: `[60.0, 72.0]`},
		// A number is its own percentile; non-numbers and NaN are ignored.
		{expr: `{"$median": {"input": 7, "method": "approximate"}}`, want: `7.0`},
		{expr: `{"$percentile": {"input": {"$numberDecimal": "2.5"}, "p": [0, 1], "method": "approximate"}}`, want: `[2.5, 2.5]`},
		{expr: `{"$median": {"input": [1, "a", null, {"$numberDouble": "NaN"}, 3, 2], "method": "approximate"}}`, want: `2.0`},
		{expr: `{"$percentile": {"input": [1, 2, 3, 4], "p": [0, 0.25, 0.5, 0.51, 1], "method": "approximate"}}`, want: `[1.0, 1.0, 2.0, 3.0, 4.0]`},
		{expr: `{"$percentile": {"input": [{"$numberDouble": "-Infinity"}, 5], "p": [0.5], "method": "approximate"}}`, want: `[{"$numberDouble": "-Infinity"}]`},
		{expr: `{"$median": {"input": "$missing", "method": "approximate"}}`, want: `null`},
		{expr: `{"$median": {"input": [], "method": "approximate"}}`, want: `null`},
		{expr: `{"$percentile": {"input": ["a"], "p": [0.1, 0.9], "method": "approximate"}}`, want: `[null, null]`},
		// Parse errors, in mongod's order.
		{expr: `{"$median": 5}`, code: 7436201},
		{expr: `{"$percentile": 5}`, code: 7436200},
		{expr: `{"$median": {}}`, code: 40414},
		{expr: `{"$median": {"input": "$x"}}`, code: 40414},
		{expr: `{"$percentile": {"input": "$x", "method": "approximate"}}`, code: 40414},
		{expr: `{"$median": {"input": "$x", "method": "continuous"}}`, code: 2},
		{expr: `{"$median": {"input": "$x", "method": "discrete"}}`, code: 2},
		{expr: `{"$median": {"input": "$x", "method": 1}}`, code: 14},
		{expr: `{"$median": {"input": "$x", "p": [0.5], "method": "approximate"}}`, code: 40415},
		{expr: `{"$median": {"zz": 1, "method": "approximate"}}`, code: 40415},
		{expr: `{"$percentile": {"input": "$x", "p": 0.5, "method": "approximate"}}`, code: 7750301},
		{expr: `{"$percentile": {"input": "$x", "p": [], "method": "approximate"}}`, code: 7750301},
		{expr: `{"$percentile": {"input": "$x", "p": ["a"], "method": "approximate"}}`, code: 7750302},
		{expr: `{"$percentile": {"input": "$x", "p": [1.5], "method": "approximate"}}`, code: 7750303},
		{expr: `{"$percentile": {"input": "$x", "p": [-0.1], "method": "approximate"}}`, code: 7750303},
		{expr: `{"$percentile": {"input": "$x", "p": "$ps", "method": "approximate"}}`, code: 7750300},
	})
}

// TestFieldOperatorChecks covers the parse-time checks of $getField,
// $setField and $unsetField on 'field' (mongod reports $unsetField's
// under the $setField name).
func TestFieldOperatorChecks(t *testing.T) {
	runCases(t, []tc{
		{expr: `{"$getField": "$price"}`, code: 5654600},
		{expr: `{"$getField": {"field": "$price", "input": {}}}`, code: 5654600},
		{expr: `{"$getField": {"field": {"$concat": ["a", "$b"]}}}`, code: 5654601},
		{expr: `{"$getField": {"field": true}}`, code: 5654602},
		{expr: `{"$getField": {"field": "a", "zz": 1}}`, code: 3041701},
		{expr: `{"$getField": {"input": {}}}`, code: 3041702},
		{expr: `{"$getField": {"field": "a", "input": 5}}`, want: ``},
		{expr: `{"$getField": {"field": "a", "input": null}}`, want: `null`},
		{expr: `{"$setField": {"field": "$a", "input": {}, "value": 1}}`, code: 4161108},
		{expr: `{"$setField": {"field": {"$toUpper": "$b"}, "input": {}, "value": 1}}`, code: 4161106},
		{expr: `{"$setField": {"field": true, "input": {}, "value": 1}}`, code: 4161107},
		{expr: `{"$unsetField": {"field": 1, "input": {}}}`, code: 4161107},
		// A missing value is 4161103, a missing input 4161109 (MongoDB's own
		// expression_set_field test).
		{expr: `{"$setField": {"field": "a", "input": {}}}`, code: 4161103},
		{expr: `{"$setField": {"field": "a", "value": 1}}`, code: 4161109},
		{expr: `{"$unsetField": {"field": "a", "input": {}, "value": 1}}`, code: 4161101},
		{expr: `{"$setField": {"field": "a", "input": 1, "value": 1}}`, code: 4161105},
		{expr: `{"$setField": {"field": {"$literal": "$a"}, "input": {}, "value": 1}}`, want: `{"$a": 1}`},
		{expr: `{"$unsetField": {"field": "a", "input": null}}`, want: `null`},
	})
}

// TestToHashedIndexKey checks the $toHashedIndexKey page's example and
// that numbers of every type with the same integral value hash alike, as
// they do in a hashed index.
func TestToHashedIndexKey(t *testing.T) {
	runCases(t, []tc{
		{expr: `{"$toHashedIndexKey": "$val"}`, doc: `{"val": "string to hash"}`, want: `{"$numberLong": "763543691661428748"}`},
		{expr: `{"$toHashedIndexKey": [1, 2]}`, code: 16020},
	})
	same := [][]string{
		{`1`, `{"$numberLong": "1"}`, `1.0`, `1.9`, `{"$numberDecimal": "1.0"}`},
		{`{"$numberDouble": "NaN"}`, `0`, `-0.5`},
		{`"a"`, `{"$symbol": "a"}`},
	}
	for _, group := range same {
		var first int64
		for i, js := range group {
			h := HashedIndexKey(mustVal(t, js))
			if i == 0 {
				first = h
			} else if h != first {
				t.Errorf("%s hashes to %d, %s to %d", group[0], first, js, h)
			}
		}
	}
	if HashedIndexKey(mustVal(t, `null`)) == HashedIndexKey(mustVal(t, `2`)) {
		t.Error("null and 2 hash alike")
	}
	if HashedIndexKey(mustVal(t, `{"a": 1}`)) == HashedIndexKey(mustVal(t, `{"b": 1}`)) {
		t.Error("field names are not hashed")
	}
}

// TestPercentileMessages pins mongod's messages for p and the spec.
func TestPercentileMessages(t *testing.T) {
	for js, want := range map[string]string{
		`{"$median": 5}`: "specification must be an object; found $median: 5",
		`{"$percentile": {"input": "$x", "p": [2], "method": "approximate"}}`:    "The $percentile 'p' field must be an array of numbers from [0.0, 1.0], but found: 2",
		`{"$percentile": {"input": "$x", "p": [-0.1], "method": "approximate"}}`: "The $percentile 'p' field must be an array of numbers from [0.0, 1.0], but found: -0.1",
		`{"$percentile": {"input": "$x", "p": ["a"], "method": "approximate"}}`:  `The $percentile 'p' field must be an array of numbers from [0.0, 1.0], but found: "a"`,
		`{"$median": {"input": "$x", "method": "discrete"}}`:                     "Currently only 'approximate' can be used as percentile 'method'.",
		`{"$median": {"input": "$x"}}`:                                           "BSON field '$median.method' is missing but a required field",
		`{"$median": {"input": "$x", "zz": 1}}`:                                  "BSON field '$median.zz' is an unknown field.",
		`{"$acos": 2}`:                                                           "cannot apply $acos to 2, value must in [-1,1]",
		`{"$sin": {"$numberDouble": "-Infinity"}}`:                               "cannot apply $sin to -inf, value must in (-inf,inf)",
		`{"$acosh": 0.5}`:                      "cannot apply $acosh to 0.5, value must in [1,inf]",
		`{"$asin": {"$numberDecimal": "1.5"}}`: "cannot apply $asin to 1.5, value must in [-1,1]",
	} {
		_, err := Parse(mustVal(t, js), NewParseContext())
		if err == nil {
			var e Expr
			e, _ = Parse(mustVal(t, js), NewParseContext())
			_, err = e.Eval(mustDoc(t, ""), nil)
		}
		var me *errs.Error
		if !errors.As(err, &me) || me.Msg != want {
			t.Errorf("%s: got %v, want %q", js, err, want)
		}
	}
}
