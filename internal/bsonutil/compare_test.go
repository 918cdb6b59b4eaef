package bsonutil

import (
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func dbl(f float64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeDouble, Data: bsoncore.AppendDouble(nil, f)}
}
func i32(i int32) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, i)}
}
func i64(i int64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeInt64, Data: bsoncore.AppendInt64(nil, i)}
}
func dec(s string) bsoncore.Value {
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		panic(err)
	}
	h, l := d.GetBytes()
	return bsoncore.Value{Type: bsoncore.TypeDecimal128, Data: bsoncore.AppendDecimal128(nil, h, l)}
}
func str(s string) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, s)}
}

// Expected orders follow MongoDB's documented comparison/sort order.
func TestCompare(t *testing.T) {
	cases := []struct {
		a, b bsoncore.Value
		want int
	}{
		{i32(1), i64(1), 0},
		{i32(1), dbl(1.0), 0},
		{dec("1.00"), i32(1), 0},
		{dbl(0.5), i32(1), -1},
		{dbl(math.NaN()), dbl(math.Inf(-1)), -1},
		{dbl(math.NaN()), dbl(math.NaN()), 0},
		{dbl(math.Copysign(0, -1)), i32(0), 0},
		{i64(math.MaxInt64), dbl(9223372036854775807.0), -1},
		{dec("1.8E+308"), dbl(math.Inf(1)), -1},
		{dec("-1E+6111"), dbl(math.Inf(-1)), 1},
		{dbl(math.Inf(1)), dec("1E+400"), 1},
		{dec("NaN"), dec("-Infinity"), -1},
		{i32(5), str("5"), -1},
		{bsoncore.Value{Type: bsoncore.TypeNull}, i32(-100), -1},
		{bsoncore.Value{Type: bsoncore.TypeMinKey}, bsoncore.Value{Type: bsoncore.TypeNull}, -1},
		{str("a"), str("ab"), -1},
	}
	for i, c := range cases {
		if got := Compare(c.a, c.b); got != c.want {
			t.Errorf("case %d: Compare(%s, %s) = %d, want %d", i, c.a, c.b, got, c.want)
		}
		if got := Compare(c.b, c.a); got != -c.want {
			t.Errorf("case %d reversed: got %d, want %d", i, got, -c.want)
		}
	}
}
