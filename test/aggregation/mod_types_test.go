package aggregation_test

import "testing"

// TestModResultTypes checks through the Go driver the result types of
// MongoDB's own $mod test: a double dividend, or a double divisor that is
// not an exact 32-bit integer, gives a double; an integral double divisor
// keeps the integer type of the dividend (long if either is a long).
func TestModResultTypes(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	r, err, _ := aggOne(t, d, `[{"$project": {"_id": 0,
		"int_dubint": {"$type": {"$mod": [{"$numberInt": "8"}, 3.0]}},
		"long_dubint": {"$type": {"$mod": [{"$numberLong": "8"}, 3.0]}},
		"long_dublong": {"$type": {"$mod": [{"$numberLong": "500000000000"}, 450000000000.0]}},
		"int_dub": {"$type": {"$mod": [{"$numberInt": "8"}, 3.25]}},
		"dub_int": {"$type": {"$mod": [138.5, {"$numberInt": "3"}]}},
		"value": {"$mod": [{"$numberInt": "8"}, 3.0]}}}]`, 0)
	if err != nil {
		t.Fatal(err)
	}
	doc := r.Lookup("cursor", "firstBatch", "0").Document()
	for f, want := range map[string]string{"int_dubint": "int", "long_dubint": "long", "long_dublong": "double", "int_dub": "double", "dub_int": "double"} {
		if got := doc.Lookup(f).StringValue(); got != want {
			t.Errorf("%s: %s, want %s", f, got, want)
		}
	}
	if v, ok := doc.Lookup("value").Int32OK(); !ok || v != 2 {
		t.Errorf("value: %v, want the int 2", doc.Lookup("value"))
	}
}
