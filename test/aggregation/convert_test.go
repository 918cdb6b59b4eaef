package aggregation_test

import (
	"testing"

	"github.com/lodedb/lode/test/testenv"
)

// TestToStringDouble checks through the Go driver that $toString (and
// $convert to string) writes a double as mongod does, with C's "%g": six
// significant digits, an exponent from 1e6 and below 1e-4.
func TestToStringDouble(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	r, err, _ := aggOne(t, d, `[{"$project": {"_id": 0,
		"third": {"$toString": {"$divide": [1, 3]}},
		"big": {"$toString": 123456789.125},
		"exact": {"$toString": 100000.0},
		"small": {"$convert": {"input": 0.00001, "to": "string"}},
		"price": {"$toString": 19.99}}}]`, 0)
	if err != nil {
		t.Fatal(err)
	}
	doc := r.Lookup("cursor", "firstBatch", "0").Document()
	for field, want := range map[string]string{"third": "0.333333", "big": "1.23457e+08", "exact": "100000", "small": "1e-05", "price": "19.99"} {
		if got := doc.Lookup(field).StringValue(); got != want {
			t.Errorf("%s: %q, want %q", field, got, want)
		}
	}
}

// TestConvertTargets checks through the Go driver the conversions of
// MongoDB's own $convert test that Lode refused: any value that is not a
// number, a boolean or null converts to true (a document, an array,
// MinKey, a regex, binary data), and a target that names a BSON type
// $convert cannot produce (object, minKey, missing ...) is a conversion
// failure that onError catches, where an unknown name is BadValue.
func TestConvertTargets(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	r, err, _ := aggOne(t, d, `[{"$project": {"_id": 0,
		"doc": {"$toBool": {"$literal": {"a": 0}}},
		"arr": {"$convert": {"input": {"$literal": []}, "to": "bool"}},
		"min": {"$toBool": {"$minKey": 1}},
		"re": {"$toBool": {"$regularExpression": {"pattern": "b*", "options": ""}}},
		"obj": {"$convert": {"input": 1.9, "to": "object", "onError": "E"}},
		"mk": {"$convert": {"input": 1.9, "to": -1, "onError": "E"}},
		"ms": {"$convert": {"input": 1.9, "to": "missing", "onError": "E"}}}}]`, 0)
	if err != nil {
		t.Fatal(err)
	}
	doc := r.Lookup("cursor", "firstBatch", "0").Document()
	for _, f := range []string{"doc", "arr", "min", "re"} {
		if b, ok := doc.Lookup(f).BooleanOK(); !ok || !b {
			t.Errorf("%s: %v, want true", f, doc.Lookup(f))
		}
	}
	for _, f := range []string{"obj", "mk", "ms"} {
		if s, ok := doc.Lookup(f).StringValueOK(); !ok || s != "E" {
			t.Errorf("%s: %v, want the onError value", f, doc.Lookup(f))
		}
	}
	_, err, _ = aggOne(t, d, `[{"$project": {"x": {"$convert": {"input": 1.9, "to": "object"}}}}]`, 0)
	testenv.WantCmdError(t, err, 241, "ConversionFailure")
	_, err, _ = aggOne(t, d, `[{"$project": {"x": {"$convert": {"input": 1.9, "to": "foo", "onError": "E"}}}}]`, 0)
	testenv.WantCmdError(t, err, 2, "BadValue")
}
