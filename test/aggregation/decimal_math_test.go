package aggregation_test

import (
	"testing"
)

// TestDecimalExpLogPowPrecision: $exp, $ln, $log10, $log and $pow of
// decimals answer in decimal128's 34 digits, not a double's 15, with
// mongod's forms for exact results; expected values from MongoDB's own
// log_pow_exp test.
func TestDecimalExpLogPowPrecision(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	r, err, _ := aggOne(t, d, `[{"$project": {"_id": 0,
		"exp1": {"$exp": {"$numberDecimal": "1"}},
		"expm1": {"$exp": {"$numberDecimal": "-1"}},
		"lnE": {"$ln": {"$numberDecimal": "2.718281828459045235360287471352662"}},
		"log10ten": {"$log10": {"$numberDecimal": "10"}},
		"log10one": {"$log10": {"$numberDecimal": "1"}},
		"log8": {"$log": [{"$numberDecimal": "2.5"}, 8]},
		"log1": {"$log": [1, {"$numberDecimal": "8"}]},
		"pow": {"$pow": [{"$numberDecimal": "10.0"}, -2]},
		"pow2": {"$pow": [{"$numberDecimal": "10.0"}, 2]},
		"powneg": {"$pow": [{"$numberInt": "5"}, {"$numberDecimal": "-112"}]},
		"sqrt": {"$sqrt": {"$numberDecimal": "2"}}}}]`, 0)
	if err != nil {
		t.Fatal(err)
	}
	doc := r.Lookup("cursor", "firstBatch", "0").Document()
	for f, want := range map[string]string{
		"exp1":     "2.718281828459045235360287471352662",
		"expm1":    "0.3678794411714423215955237701614609",
		"lnE":      "0.9999999999999999999999999999999998",
		"log10ten": "1",
		"log10one": "0",
		"log8":     "0.4406426982957874492901064764964633",
		"log1":     "0E+33",
		"pow":      "0.01000000000000000000000000000000000",
		"pow2":     "100.0000000000000000000000000000000",
		"powneg":   "5.192296858534827628530496329220096E-79",
		"sqrt":     "1.414213562373095048801688724209698",
	} {
		v, ok := doc.Lookup(f).Decimal128OK()
		if !ok || v.String() != want {
			t.Errorf("%s: %v, want NumberDecimal(%q)", f, doc.Lookup(f), want)
		}
	}
}

// TestDecimalTanhOfInfinity: $tanh of a decimal ±Infinity is exactly
// ±1 (MongoDB's own expression_trigonometric test).
func TestDecimalTanhOfInfinity(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	r, err, _ := aggOne(t, d, `[{"$project": {"_id": 0, "p": {"$tanh": {"$numberDecimal": "Infinity"}}, "n": {"$tanh": {"$numberDecimal": "-Infinity"}}}}]`, 0)
	if err != nil {
		t.Fatal(err)
	}
	doc := r.Lookup("cursor", "firstBatch", "0").Document()
	for f, want := range map[string]string{"p": "1", "n": "-1"} {
		if v, ok := doc.Lookup(f).Decimal128OK(); !ok || v.String() != want {
			t.Errorf("%s: %v, want NumberDecimal(%q)", f, doc.Lookup(f), want)
		}
	}
}
