package keystring

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func TestPrefixEnd(t *testing.T) {
	tests := []struct{ in, want []byte }{
		{nil, nil},
		{[]byte{0xFF, 0xFF}, nil},
		{[]byte{1}, []byte{2}},
		{[]byte{1, 0xFF}, []byte{2}},
		{[]byte{1, 0xFE, 0xFF}, []byte{1, 0xFF}},
	}
	for _, tt := range tests {
		if got := PrefixEnd(tt.in); !bytes.Equal(got, tt.want) {
			t.Errorf("PrefixEnd(%x) = %x, want %x", tt.in, got, tt.want)
		}
	}
}

// inRange reports start <= key < end (nil end: unbounded).
func inRange(key, start, end []byte) bool {
	return bytes.Compare(key, start) >= 0 && (end == nil || bytes.Compare(key, end) < 0)
}

// TestInterval builds keys (prefix, field k, later field, recordID) and
// checks that Interval selects exactly the keys whose field k lies in the
// value interval.
func TestInterval(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(13, 14))}
	prefix := []byte{0, 0, 0, 9}
	other := append([]byte{}, prefix...)
	other[3]++
	vals := make([]bsoncore.Value, 300)
	for i := range vals {
		vals[i] = g.value(1)
	}
	vals = append(vals, minKey, maxKey, i32(5), dbl(5), str(""), doc())
	for _, desc := range []bool{false, true} {
		var keys [][]byte
		var fields []bsoncore.Value
		for _, v := range vals {
			for _, later := range []bsoncore.Value{minKey, i32(1), maxKey} {
				k := AppendValue(append([]byte{}, prefix...), v, desc)
				k = AppendValue(k, later, !desc)
				keys = append(keys, append(k, 0xFF, 0xFF))
				fields = append(fields, v)
			}
		}
		// Keys of a neighbouring index must never match.
		keys = append(keys, other, append(append([]byte{}, other...), 0xFF))
		fields = append(fields, bsoncore.Value{}, bsoncore.Value{})
		for i := 0; i < 200; i++ {
			lo, hi := vals[g.r.IntN(len(vals))], vals[g.r.IntN(len(vals))]
			if i < 4 {
				lo, hi = minKey, maxKey
			}
			li, hiIncl := g.r.IntN(2) == 1, g.r.IntN(2) == 1
			start, end := Interval(prefix, lo, hi, li, hiIncl, desc)
			for j, key := range keys {
				want := false
				if fields[j].Type != 0 {
					cl, ch := refCompare(fields[j], lo), refCompare(fields[j], hi)
					want = (cl > 0 || (li && cl == 0)) && (ch < 0 || (hiIncl && ch == 0))
				}
				if got := inRange(key, start, end); got != want {
					t.Fatalf("desc=%v interval %s%s, %s%s: value %s in range = %v, want %v",
						desc, map[bool]string{true: "[", false: "("}[li], show(lo), show(hi),
						map[bool]string{true: "]", false: ")"}[hiIncl], show(fields[j]), got, want)
				}
			}
		}
	}
}

func TestPoint(t *testing.T) {
	prefix := []byte{7}
	start, end := Point(prefix, i32(1), false)
	for _, v := range []bsoncore.Value{i64(1), dbl(1), dec("1.00")} {
		k := AppendValue([]byte{7}, v, false)
		k = append(AppendValue(k, str("later"), true), 1, 2, 3)
		if !inRange(k, start, end) {
			t.Errorf("%s not in Point(1)", show(v))
		}
	}
	for _, v := range []bsoncore.Value{i64(2), dbl(1.5), str("1"), maxKey} {
		k := AppendValue([]byte{7}, v, false)
		if inRange(k, start, end) {
			t.Errorf("%s in Point(1)", show(v))
		}
	}
}
