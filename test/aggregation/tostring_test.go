package aggregation_test

import "testing"

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
