package expr

import (
	"testing"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

func TestTrigonometry(t *testing.T) {
	runCases(t, []tc{
		{expr: `{"$sin": 0}`, want: `0.0`},
		{expr: `{"$cos": 0}`, want: `1.0`},
		{expr: `{"$tan": {"$numberLong": "0"}}`, want: `0.0`},
		{expr: `{"$asin": 1}`, want: `1.5707963267948966`},
		{expr: `{"$acos": 1}`, want: `0.0`},
		{expr: `{"$atan": 1}`, want: `0.7853981633974483`},
		{expr: `{"$atan2": [1, 1]}`, want: `0.7853981633974483`},
		{expr: `{"$atan2": [0, -1]}`, want: `3.141592653589793`},
		{expr: `{"$sinh": 0}`, want: `0.0`},
		{expr: `{"$cosh": 0}`, want: `1.0`},
		{expr: `{"$tanh": {"$numberDouble": "Infinity"}}`, want: `1.0`},
		{expr: `{"$asinh": 0}`, want: `0.0`},
		{expr: `{"$acosh": 1}`, want: `0.0`},
		{expr: `{"$acosh": {"$numberDouble": "Infinity"}}`, want: `{"$numberDouble": "Infinity"}`},
		{expr: `{"$atanh": 0}`, want: `0.0`},
		{expr: `{"$atanh": 1}`, want: `{"$numberDouble": "Infinity"}`},
		{expr: `{"$degreesToRadians": 180}`, want: `3.141592653589793`},
		{expr: `{"$radiansToDegrees": 3.141592653589793}`, want: `180.0`},
		// The reference pages' behaviour tables: null, NaN, infinities.
		{expr: `{"$sin": null}`, want: `null`},
		{expr: `{"$sin": "$missing"}`, want: `null`},
		{expr: `{"$sin": {"$numberDouble": "NaN"}}`, want: `{"$numberDouble": "NaN"}`},
		{expr: `{"$degreesToRadians": {"$numberDouble": "-Infinity"}}`, want: `{"$numberDouble": "-Infinity"}`},
		{expr: `{"$radiansToDegrees": {"$numberDouble": "Infinity"}}`, want: `{"$numberDouble": "Infinity"}`},
		{expr: `{"$atan": {"$numberDouble": "Infinity"}}`, want: `1.5707963267948966`},
		{expr: `{"$acos": {"$numberDecimal": "NaN"}}`, want: `{"$numberDecimal": "NaN"}`},
		// Domains.
		{expr: `{"$sin": {"$numberDouble": "Infinity"}}`, code: 50989},
		{expr: `{"$cos": {"$numberDecimal": "-Infinity"}}`, code: 50989},
		{expr: `{"$acos": 1.5}`, code: 50989},
		{expr: `{"$asin": -2}`, code: 50989},
		{expr: `{"$acosh": 0.5}`, code: 50989},
		{expr: `{"$atanh": {"$numberDecimal": "1.0000000000000000000000000000001"}}`, code: 50989},
		// Types and arity.
		{expr: `{"$sin": "a"}`, code: 28765},
		{expr: `{"$sin": [1, 2]}`, code: 16020},
		{expr: `{"$atan2": ["a", 1]}`, code: 51044},
		{expr: `{"$atan2": [1, true]}`, code: 51045},
		{expr: `{"$atan2": [null, "a"]}`, want: `null`},
		{expr: `{"$atan2": [1]}`, code: 16020},
		// Decimals stay decimals.
		{expr: `{"$sin": {"$numberDecimal": "0"}}`, want: `{"$numberDecimal": "0"}`},
		{expr: `{"$cosh": {"$numberDecimal": "0"}}`, want: `{"$numberDecimal": "1"}`},
		{expr: `{"$atanh": {"$numberDecimal": "1"}}`, want: `{"$numberDecimal": "Infinity"}`},
		{expr: `{"$tanh": {"$numberDecimal": "-Infinity"}}`, want: `{"$numberDecimal": "-1"}`},
	})
}

// TestTrigDecimalDigits checks decimal results digit by digit: the
// $degreesToRadians page's angles in radians (its output, which the
// $radiansToDegrees page lists as input), the $sin page's 3-4-5 triangle
// (side_b = hypotenuse · sin(angle_a) = 4), and values whose exact digits
// are known (π/2, π, 3π/4, sin 30° = 0.5).
func TestTrigDecimalDigits(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{`{"$degreesToRadians": {"$numberDecimal": "53.13010235415597870314438744090659"}}`, "0.9272952180016122324285124629224290"},
		{`{"$degreesToRadians": {"$numberDecimal": "36.86989764584402129685561255909341"}}`, "0.6435011087932843868028092287173227"},
		{`{"$degreesToRadians": {"$numberDecimal": "90"}}`, "1.570796326794896619231321691639752"},
		{`{"$asin": {"$numberDecimal": "1"}}`, "1.570796326794896619231321691639751"},
		{`{"$atan": {"$numberDecimal": "Infinity"}}`, "1.570796326794896619231321691639751"},
		{`{"$acos": {"$numberDecimal": "-1"}}`, "3.141592653589793238462643383279503"},
		{`{"$atan2": [{"$numberDecimal": "1"}, {"$numberDecimal": "-1"}]}`, "2.356194490192344928846982537459627"},
		{`{"$sin": {"$numberDecimal": "0.5235987755982988730771072305465838"}}`, "0.5000000000000000000000000000000000"},
		{`{"$multiply": [{"$sin": {"$degreesToRadians": {"$numberDecimal": "53.13010235415597870314438744090659"}}}, {"$numberDecimal": "5"}]}`, "4.000000000000000000000000000000000"},
	} {
		e, err := Parse(mustVal(t, c.expr), NewParseContext())
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Eval(mustDoc(t, ""), nil)
		if err != nil {
			t.Fatal(err)
		}
		if s := bsonutil.Decimal(got).String(); s != c.want {
			t.Errorf("%s = %s, want %s", c.expr, s, c.want)
		}
	}
}

// TestTrigDecimalExtremes runs every operator over extreme decimals: no
// panic, and a decimal (or mongod's domain error) for each.
func TestTrigDecimalExtremes(t *testing.T) {
	ops := []string{"$sin", "$cos", "$tan", "$asin", "$acos", "$atan", "$sinh", "$cosh", "$tanh",
		"$asinh", "$acosh", "$atanh", "$degreesToRadians", "$radiansToDegrees"}
	vals := []string{"0", "-0", "1E-6000", "-1E-6000", "1E+6000", "-1E+6000", "9.999999999999999999999999999999999E+6144",
		"1E-6176", "0.5", "-0.999999999999999999999999999999999", "1.000000000000000000000000000000001", "12345678901234567890.5", "Infinity", "-Infinity", "NaN"}
	for _, op := range ops {
		for _, v := range vals {
			js := `{"` + op + `": {"$numberDecimal": "` + v + `"}}`
			e, err := Parse(mustVal(t, js), NewParseContext())
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.Eval(mustDoc(t, ""), nil)
			if err != nil {
				if !errsIs(err, 50989) {
					t.Errorf("%s: %v", js, err)
				}
				continue
			}
			if got.Type != 0x13 {
				t.Errorf("%s: got type %v", js, got.Type)
			}
		}
	}
	e, _ := Parse(mustVal(t, `{"$atan2": [{"$numberDecimal": "-1E+6000"}, {"$numberDecimal": "1E-6000"}]}`), NewParseContext())
	if got, err := e.Eval(mustDoc(t, ""), nil); err != nil || bsonutil.Decimal(got).String() != "-1.570796326794896619231321691639751" {
		t.Errorf("$atan2 extreme: %v %v", got, err)
	}
}

func errsIs(err error, code int) bool { return errs.Is(err, errs.Code(code)) }
