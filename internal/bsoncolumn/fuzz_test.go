package bsoncolumn

import (
	"bytes"
	"encoding/binary"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// valuesFromBytes turns fuzz input into a sequence of values: each step
// takes a kind byte and a few payload bytes.
func valuesFromBytes(b []byte) []bsoncore.Value {
	var out []bsoncore.Value
	take := func(n int) []byte {
		if n > len(b) {
			n = len(b)
		}
		p := b[:n]
		b = b[n:]
		return p
	}
	u64 := func(n int) uint64 {
		var a [8]byte
		copy(a[:], take(n))
		return binary.LittleEndian.Uint64(a[:])
	}
	for len(b) > 0 && len(out) < 2000 {
		k := take(1)[0]
		switch k % 14 {
		case 0:
			out = append(out, skip)
		case 1:
			out = append(out, vInt32(int32(u64(4))))
		case 2:
			out = append(out, vInt64(int64(u64(8))))
		case 3:
			out = append(out, vDoubleBits(u64(8)))
		case 4:
			out = append(out, vDouble(float64(int64(u64(3)))/[]float64{1, 10, 100, 1e4, 1e8}[k/14%5]))
		case 5:
			out = append(out, vDate(1700000000000+int64(u64(2))))
		case 6:
			out = append(out, vTimestamp(uint32(u64(1)), uint32(u64(2))))
		case 7:
			var o [12]byte
			copy(o[:], take(1))
			o[11] = byte(u64(1))
			out = append(out, vOID(o))
		case 8:
			out = append(out, vString(string(take(int(u64(1)%20)))))
		case 9:
			out = append(out, vBinary(byte(k>>7), take(int(u64(1)%20))))
		case 10:
			out = append(out, vDecimal(u64(8), u64(8)))
		case 11:
			out = append(out, vBool(k&0x80 != 0))
		case 12:
			d := bson.D{}
			f := u64(1)
			if f&1 != 0 {
				d = append(d, bson.E{Key: "a", Value: int32(u64(1))})
			}
			if f&2 != 0 {
				d = append(d, bson.E{Key: "b", Value: bson.D{{Key: "c", Value: float64(u64(1)) / 4}}})
			}
			if f&4 != 0 {
				d = append(d, bson.E{Key: "d", Value: bson.A{string(take(2))}})
			}
			if f&8 != 0 {
				d = append(d, bson.E{Key: "a", Value: "late"})
			}
			out = append(out, vDoc(d))
		default:
			// Repeat the previous value a number of times, for runs.
			if n := len(out); n > 0 {
				for i := 0; i < int(u64(1))*8; i++ {
					out = append(out, out[n-1])
				}
			}
		}
	}
	return out
}

func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{1, 1, 0, 0, 0, 1, 2, 0, 0, 0, 13, 40})
	f.Add([]byte{3, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f, 4, 15, 4, 16, 0, 18, 1, 13, 200})
	f.Add([]byte{8, 3, 'a', 'b', 'c', 8, 3, 'a', 'b', 'd', 9, 2, 1, 2, 10, 1, 2, 3})
	f.Add([]byte{5, 0, 0, 5, 10, 0, 5, 20, 0, 13, 255, 7, 1, 2, 7, 1, 3, 6, 1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		checkRoundTrip(t, valuesFromBytes(b))
	})
}

func FuzzDecode(f *testing.F) {
	f.Add(Encode([]bsoncore.Value{vInt32(1), vInt32(2), skip, vDouble(1.5), vDouble(1.7)}))
	f.Add(cat([]byte{0xF1}, vDoc(bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: bson.D{{Key: "c", Value: "x"}}}}).Data,
		[]byte{0x80}, block(13|2<<4|2<<34), []byte{0x80}, block(13|uint64(1<<30-1)<<34), []byte{0, 0}))
	f.Add(cat(literal(vDecimal(0, 0)), []byte{0x80}, block(uint64(8|13<<4)|(1<<5|31)<<8), []byte{0}))
	f.Add(cat(literal(vString("abc")), []byte{0x81}, block(14|2<<4), block(15|3<<4), []byte{0}))
	f.Fuzz(func(t *testing.T, b []byte) {
		vals, err := Decode(b)
		if err != nil {
			return
		}
		// Whatever decodes must survive our own round trip.
		col := Encode(vals)
		again, err := Decode(col)
		if err != nil {
			t.Fatalf("re-encoded column does not decode: %v", err)
		}
		if len(again) != len(vals) {
			t.Fatalf("re-encoded column has %d values, want %d", len(again), len(vals))
		}
		for i := range vals {
			if again[i].Type != vals[i].Type || !bytes.Equal(again[i].Data, vals[i].Data) {
				t.Fatalf("value %d changed in the round trip", i)
			}
		}
	})
}
