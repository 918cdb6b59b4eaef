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

// TestModDecimalSignAndInfinity: a decimal $mod takes IEEE 754's
// remainder, as mongod's Decimal128 does: a zero result has the
// dividend's sign (MongoDB's own mod_overflow test expects -0 for the
// smallest long modulo NumberDecimal("-1")), an infinite divisor leaves
// the dividend, an infinite dividend is NaN.
func TestModDecimalSignAndInfinity(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	r, err, _ := aggOne(t, d, `[{"$project": {"_id": 0,
		"negzero": {"$mod": [{"$numberLong": "-9223372036854775808"}, {"$numberDecimal": "-1"}]},
		"neg5": {"$mod": [{"$numberDecimal": "-5"}, {"$numberDecimal": "5"}]},
		"pos": {"$mod": [{"$numberDecimal": "6"}, {"$numberInt": "3"}]},
		"rem": {"$mod": [{"$numberDecimal": "-7"}, {"$numberDecimal": "5"}]},
		"infdiv": {"$mod": [{"$numberDecimal": "5.5"}, {"$numberDecimal": "Infinity"}]},
		"infdividend": {"$mod": [{"$numberDecimal": "-Infinity"}, {"$numberInt": "3"}]}}}]`, 0)
	if err != nil {
		t.Fatal(err)
	}
	doc := r.Lookup("cursor", "firstBatch", "0").Document()
	for f, want := range map[string]string{"negzero": "-0", "neg5": "-0", "pos": "0", "rem": "-2", "infdiv": "5.5", "infdividend": "NaN"} {
		v, ok := doc.Lookup(f).Decimal128OK()
		if !ok || v.String() != want {
			t.Errorf("%s: %v, want NumberDecimal(%q)", f, doc.Lookup(f), want)
		}
	}
}
