package keystring

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
)

func enc(v bsoncore.Value, desc bool) []byte { return AppendValue(nil, v, desc) }

func show(v bsoncore.Value) string {
	if v.Type == bsoncore.TypeDecimal128 {
		return "dec(" + v.String() + ")"
	}
	return fmt.Sprintf("%s(%s)", v.Type, v)
}

// knownOrder lists groups of equal values in ascending order, following
// MongoDB's documented comparison/sort order: MinKey, (undefined), null,
// numbers, symbol/string, object, array, binData, ObjectId, boolean, date,
// timestamp, regex, (dbPointer, code, code with scope), MaxKey.
var knownOrder = [][]bsoncore.Value{
	{minKey},
	{undef},
	{null},
	// Numbers: NaN lowest, then by value across types.
	{dbl(math.NaN()), dec("NaN"), dec("-NaN")},
	{dbl(math.Inf(-1)), dec("-Infinity")},
	{dec("-1E+6111")},
	{dbl(-math.MaxFloat64)},
	{i64(math.MinInt64), dbl(-9.223372036854775808e18), dec("-9223372036854775808")},
	{i64(math.MinInt64 + 1)},
	{i64(-(1 << 53) - 1), dec("-9007199254740993")},
	{i64(-(1 << 53)), dbl(-(1 << 53))},
	{i32(-2), dbl(-2), dec("-2.000")},
	{dec("-1.5"), dbl(-1.5)},
	{i32(-1), i64(-1), dbl(-1), dec("-1")},
	{dbl(-0.1)}, // the double nearest 0.1 is slightly above 0.1 in magnitude
	{dec("-0.1")},
	{dbl(-math.SmallestNonzeroFloat64)},
	{dec("-1E-6176")},
	{i32(0), i64(0), dbl(0), dbl(math.Copysign(0, -1)), dec("0"), dec("-0"), dec("0E+300"), dec("-0E-10")},
	{dec("1E-6176")},
	{dbl(math.SmallestNonzeroFloat64)},
	{dec("0.1"), dec("0.10")},
	{dbl(0.1)},
	{dec("0.1000000000000000055511151231257828")},
	{dbl(0.5), dec("0.5"), dec("5E-1")},
	{i32(1), i64(1), dbl(1), dec("1.0"), dec("1"), dec("0.001E+3")},
	{dec("1.000000000000000000000000000000001")},
	{dbl(1.0000000000000002)},
	{dbl(12.34)},
	{dec("12.34")}, // 12.34 as a double is slightly below 12.34
	{i32(math.MaxInt32), i64(math.MaxInt32), dbl(math.MaxInt32)},
	{i64(1 << 53), dbl(1 << 53)},
	{i64(1<<53 + 1), dec("9007199254740993")},
	{i64(1<<53 + 2), dbl(1<<53 + 2)},
	{i64(math.MaxInt64 - 1)},
	{i64(math.MaxInt64), dec("9223372036854775807")},
	{dbl(9.223372036854775807e18), dec("9223372036854775808")}, // 2^63
	{dec("9223372036854775808.5")},
	{dbl(math.MaxFloat64)},
	{dec("1.8E+308")},
	{dec("9999999999999999999999999999999999E+6111")},
	{dbl(math.Inf(1)), dec("Infinity")},
	// Strings and symbols: binary order, a prefix first.
	{str(""), sym("")},
	{str("\x00")},
	{str("\x00\x00")},
	{str("\x00a")},
	{str("\x01")},
	{str("A")},
	{str("a"), sym("a")},
	{str("a\x00")},
	{str("a\x00\x00")},
	{str("a\x01")},
	{str("ab")},
	{str("b")},
	{str("\xff")},
	// Objects: per element type bracket, then name, then value.
	{doc()},
	{doc(kv{"b", minKey})},
	{doc(kv{"a", null})},
	{doc(kv{"b", null})},
	{doc(kv{"a", i32(1)}), doc(kv{"a", dbl(1)})},
	{doc(kv{"a", i32(1)}, kv{"b", i32(1)})},
	{doc(kv{"a", i32(1)}, kv{"b", str("")})},
	{doc(kv{"a", i32(2)})},
	{doc(kv{"b", i32(1)})},
	{doc(kv{"a", str("x")})},
	{doc(kv{"a", doc()})},
	{doc(kv{"a", doc(kv{"a", i32(1)})})},
	{doc(kv{"a", arr()})},
	{doc(kv{"a", maxKey})},
	// Arrays.
	{arr()},
	{arr(minKey)},
	{arr(i32(1)), arr(i64(1))},
	{arr(i32(1), i32(2))},
	{arr(i32(2))},
	{arr(str("a"))},
	{arr(arr())},
	// binData: length, then subtype, then bytes.
	{bin(0x80, "")},
	{bin(0, "b")},
	{bin(0, "c")},
	{bin(4, "a")},
	{bin(0, "aa")},
	// ObjectId, booleans.
	{oid()},
	{oid(1)},
	{oid(1, 0)},
	{boolean(false)},
	{boolean(true)},
	// Dates are signed.
	{date(math.MinInt64)},
	{date(-1)},
	{date(0)},
	{date(1)},
	{date(math.MaxInt64)},
	// Timestamps are unsigned: t, then i.
	{ts(0, 0)},
	{ts(0, math.MaxUint32)},
	{ts(1, 0)},
	{ts(math.MaxUint32, 0)},
	// Regex: pattern, then flags.
	{regex("", "")},
	{regex("a", "")},
	{regex("a", "i")},
	{regex("a", "m")},
	{regex("ab", "")},
	// DBPointer: namespace length, namespace, ObjectId.
	{dbptr("b", 0)},
	{dbptr("b", 1)},
	{dbptr("c", 0)},
	{dbptr("aa", 0)},
	// Code, code with scope.
	{code("")},
	{code("a")},
	{code("b")},
	{cws("", doc())},
	{cws("", doc(kv{"a", i32(1)})), cws("", doc(kv{"a", dbl(1)}))},
	{cws("a", doc())},
	{maxKey},
}

func TestKnownOrder(t *testing.T) {
	type item struct {
		v     bsoncore.Value
		group int
	}
	var items []item
	for g, vs := range knownOrder {
		for _, v := range vs {
			items = append(items, item{v, g})
		}
	}
	for _, a := range items {
		for _, b := range items {
			want := sign(a.group - b.group)
			if got := refCompare(a.v, b.v); got != want {
				t.Fatalf("oracle: refCompare(%s, %s) = %d, want %d", show(a.v), show(b.v), got, want)
			}
			for _, desc := range []bool{false, true} {
				got := bytes.Compare(enc(a.v, desc), enc(b.v, desc))
				if desc {
					got = -got
				}
				if got != want {
					t.Errorf("desc=%v: cmp(enc %s, enc %s) = %d, want %d\n%x\n%x", desc, show(a.v), show(b.v),
						got, want, enc(a.v, desc), enc(b.v, desc))
				}
			}
		}
	}
}

// TestBsonutilKnownOrder reports where bsonutil.Compare disagrees with the
// documented order on the known-order table.
func TestBsonutilKnownOrder(t *testing.T) {
	var items []bsoncore.Value
	var groups []int
	for g, vs := range knownOrder {
		for _, v := range vs {
			items = append(items, v)
			groups = append(groups, g)
		}
	}
	for i, a := range items {
		for j, b := range items {
			if got, want := bsonutil.Compare(a, b), sign(groups[i]-groups[j]); got != want {
				if knownBsonutilBug(a, b) {
					t.Logf("known bsonutil bug: Compare(%s, %s) = %d, want %d", show(a), show(b), got, want)
					continue
				}
				t.Errorf("bsonutil.Compare(%s, %s) = %d, want %d", show(a), show(b), got, want)
			}
		}
	}
}

// knownBsonutilBug reports pairs on which bsonutil.Compare is known to be
// wrong (reported, not ours to fix): a finite decimal128 beyond the double
// range compares equal to an infinity, because compareViaBig rounds the
// finite side to float64.
func knownBsonutilBug(a, b bsoncore.Value) bool {
	isInf := func(v bsoncore.Value) bool {
		c, _ := refNum(v)
		return bsonutil.IsNumber(v.Type) && (c == 1 || c == 3)
	}
	isHuge := func(v bsoncore.Value) bool {
		c, r := refNum(v)
		if v.Type != bsoncore.TypeDecimal128 || c != 2 {
			return false
		}
		f, _ := r.Float64()
		return math.IsInf(f, 0)
	}
	return (isInf(a) && isHuge(b)) || (isHuge(a) && isInf(b))
}
