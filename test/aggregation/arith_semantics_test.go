package aggregation_test

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestArithmeticSemantics: cases from MongoDB's own add_with_date,
// subtract, add, log_pow_exp and round_trunc tests. A date in $add
// takes the numbers after it rounded one by one into int64 milliseconds
// (a decimal half to even), overflow is Overflow (15) rather than a
// wrapped date; the expression $sum adds doubles with the accumulator's
// compensation; $log of a double NaN is NaN; $round of a long that
// overflows is 51080; a decimal rounded to more places gains trailing
// zeros; ranged-arity operators count arguments with 28667.
func TestArithmeticSemantics(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	project := func(fields string) (bson.Raw, error) {
		r, err, _ := aggOne(t, d, `[{"$project": {"_id": 0, `+fields+`}}]`, 0)
		if err != nil {
			return nil, err
		}
		return r.Lookup("cursor", "firstBatch", "0").Document(), nil
	}
	date := `{"$date": "2019-01-30T07:30:10.137Z"}`
	r, err := project(`
		"a": {"$add": [` + date + `, {"$numberDecimal": "819.5359123621083"}, 819.536, {"$numberLong": "820"}]},
		"b": {"$add": [{"$numberDecimal": "819.5359123621083"}, 819.536, {"$numberLong": "820"}, ` + date + `]},
		"c": {"$add": [` + date + `, {"$numberLong": "2397083434877565865"}, 819.536, {"$numberLong": "-2397083434877565864"}]},
		"tie": {"$subtract": [{"$date": {"$numberLong": "1683794065002"}}, {"$numberDecimal": "2.5"}]},
		"sum": {"$sum": [0.1, 0.2, 0.3]},
		"avg": {"$avg": [0.1, 0.2, 0.3]},
		"lognan": {"$log": [{"$numberDouble": "NaN"}, 10]},
		"pad": {"$trunc": [{"$numberDecimal": "1.298"}, 100]}`)
	if err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]int64{"a": 1548833412597, "b": 1548833412596, "c": 1548833410958, "tie": 1683794065000} {
		if got, ok := r.Lookup(f).DateTimeOK(); !ok || got != want {
			t.Errorf("%s: %v, want the date %d", f, r.Lookup(f), want)
		}
	}
	if v := r.Lookup("sum").Double(); v != 0.6 {
		t.Errorf("$sum of 0.1, 0.2, 0.3: %v, want 0.6 (the accumulator's compensated sum)", v)
	}
	if v := r.Lookup("avg").Double(); v != 0.19999999999999998 && v != 0.2 {
		t.Errorf("$avg: %v", v)
	}
	if v := r.Lookup("lognan").Double(); v == v {
		t.Errorf("$log of NaN: %v, want NaN", v)
	}
	if v, _ := r.Lookup("pad").Decimal128OK(); v.String() != "1.298000000000000000000000000000000" {
		t.Errorf("$trunc to 100 places: %v, want 1.298 and 31 zeros", v)
	}
	for expr, code := range map[string]int32{
		`{"$add": [` + date + `, {"$numberLong": "9223372036854775807"}]}`:                           15,
		`{"$subtract": [{"$date": {"$numberLong": "10"}}, {"$numberLong": "-9223372036854775808"}]}`: 15,
		`{"$round": [{"$numberLong": "9223372036854775806"}, -1]}`:                                   51080,
		`{"$trunc": [1, 2, 3]}`:   28667,
		`{"$slice": [[1, 2, 3]]}`: 28667,
	} {
		_, err := project(`"x": ` + expr)
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != code {
			t.Errorf("%s: %v, want code %d", expr, err, code)
		}
	}
}
