package keystring

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// sameValue reports whether got restores want exactly: same type and
// bytes, except that NaNs only need the same type (payload and sign are
// not kept).
func sameValue(want, got bsoncore.Value) bool {
	if want.Type != got.Type {
		return false
	}
	switch want.Type {
	case bsoncore.TypeDouble:
		if math.IsNaN(want.Double()) {
			return math.IsNaN(got.Double())
		}
	case bsoncore.TypeDecimal128:
		if bson.NewDecimal128(want.Decimal128()).IsNaN() {
			return bson.NewDecimal128(got.Decimal128()).IsNaN()
		}
	case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
		we, _ := bsoncore.Document(want.Data).Elements()
		ge, _ := bsoncore.Document(got.Data).Elements()
		if len(we) != len(ge) {
			return false
		}
		for i := range we {
			if we[i].Key() != ge[i].Key() || !sameValue(we[i].Value(), ge[i].Value()) {
				return false
			}
		}
		return true
	case bsoncore.TypeCodeWithScope:
		wc, ws := want.CodeWithScope()
		gc, gs := got.CodeWithScope()
		return wc == gc && sameValue(bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: ws},
			bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: gs})
	}
	return bytes.Equal(want.Data, got.Data)
}

func roundTrip(t testing.TB, vals []bsoncore.Value, dirs []bool) {
	t.Helper()
	var b Builder
	for i, v := range vals {
		b.Append(v, dirs[i])
	}
	rid := []byte{0xFF, 0, 7}
	key := append(append([]byte{}, b.Key()...), rid...)
	got, rest, err := DecodePrefix(key, dirs, b.TypeBits())
	if err != nil {
		t.Fatalf("decode %v: %v (key %x, tb %x)", vals, err, b.Key(), b.TypeBits())
	}
	if !bytes.Equal(rest, rid) {
		t.Fatalf("rest = %x, want %x", rest, rid)
	}
	for i := range vals {
		if !sameValue(vals[i], got[i]) {
			t.Fatalf("field %d: decoded %s, want %s (key %x, tb %x)", i, show(got[i]), show(vals[i]), b.Key(), b.TypeBits())
		}
	}
}

func TestRoundTripKnown(t *testing.T) {
	for _, group := range knownOrder {
		for _, v := range group {
			for _, desc := range []bool{false, true} {
				roundTrip(t, []bsoncore.Value{v}, []bool{desc})
			}
		}
	}
}

func TestRoundTripRandom(t *testing.T) {
	g := gen{rand.New(rand.NewPCG(11, 12))}
	for i := 0; i < 20000; i++ {
		n := 1 + g.r.IntN(3)
		vals := make([]bsoncore.Value, n)
		dirs := make([]bool, n)
		for j := range vals {
			vals[j] = g.value(3)
			dirs[j] = g.r.IntN(2) == 1
		}
		roundTrip(t, vals, dirs)
	}
}

func TestTypeBitsEmptyForNaturalTypes(t *testing.T) {
	var b Builder
	for _, v := range []bsoncore.Value{i32(5), str("x"), dbl(1.5), i64(1 << 40), oid(1), date(3),
		doc(kv{"a", i32(1)}, kv{"b", str("s")}), arr(dbl(0.25))} {
		b.Append(v, false)
	}
	if tb := b.TypeBits(); len(tb) != 0 {
		t.Fatalf("type bits = %x, want empty", tb)
	}
	b.Reset()
	b.Append(dbl(1), false)
	b.Append(i32(1), true)
	if tb := b.TypeBits(); !bytes.Equal(tb, []byte{tbDouble}) {
		t.Fatalf("type bits = %x, want %x", tb, []byte{tbDouble})
	}
}

func TestDecodeErrors(t *testing.T) {
	good := AppendValue(nil, str("abc"), false)
	for _, key := range [][]byte{nil, {0x01}, good[:len(good)-1], {tNumPos, 1, 2}, {tString, 'a', 0, 7}} {
		if _, err := Decode(key, []bool{false}, nil); err == nil {
			t.Errorf("Decode(%x) succeeded, want error", key)
		}
	}
	if _, err := Decode(append(good, 1), []bool{false}, nil); err == nil {
		t.Error("Decode with trailing bytes succeeded")
	}
}
