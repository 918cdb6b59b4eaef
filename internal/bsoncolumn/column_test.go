package bsoncolumn

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func vInt32(i int32) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, i)}
}
func vInt64(i int64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeInt64, Data: bsoncore.AppendInt64(nil, i)}
}
func vDouble(f float64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeDouble, Data: bsoncore.AppendDouble(nil, f)}
}
func vDoubleBits(b uint64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeDouble, Data: binary.LittleEndian.AppendUint64(nil, b)}
}
func vDate(ms int64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeDateTime, Data: bsoncore.AppendDateTime(nil, ms)}
}
func vString(s string) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, s)}
}
func vBool(b bool) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeBoolean, Data: bsoncore.AppendBoolean(nil, b)}
}
func vTimestamp(t, i uint32) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeTimestamp, Data: bsoncore.AppendTimestamp(nil, t, i)}
}
func vOID(b [12]byte) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeObjectID, Data: append([]byte(nil), b[:]...)}
}
func vBinary(sub byte, b []byte) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeBinary, Data: bsoncore.AppendBinary(nil, sub, b)}
}
func vDecimal(hi, lo uint64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeDecimal128, Data: bsoncore.AppendDecimal128(nil, hi, lo)}
}
func vDoc(d bson.D) bsoncore.Value {
	b, err := bson.Marshal(d)
	if err != nil {
		panic(err)
	}
	return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: b}
}
func vArray(vals ...any) bsoncore.Value {
	d := bson.D{}
	for i, v := range vals {
		d = append(d, bson.E{Key: fmt.Sprint(i), Value: v})
	}
	v := vDoc(d)
	v.Type = bsoncore.TypeArray
	return v
}

var skip = bsoncore.Value{}

func checkRoundTrip(t testing.TB, vals []bsoncore.Value) []byte {
	t.Helper()
	col := Encode(vals)
	got, err := Decode(col)
	if err != nil {
		t.Fatalf("decode: %v\ncolumn % x", err, col)
	}
	// Trailing skips are kept.
	if len(got) != len(vals) {
		t.Fatalf("got %d values, want %d\ncolumn % x", len(got), len(vals), col)
	}
	for i := range vals {
		if got[i].Type != vals[i].Type || !bytes.Equal(got[i].Data, vals[i].Data) {
			t.Fatalf("value %d: got %v (% x), want %v (% x)\ncolumn % x", i, got[i].Type, got[i].Data, vals[i].Type, vals[i].Data, col)
		}
	}
	return col
}

func TestRoundTripEveryType(t *testing.T) {
	oid := [12]byte{0x65, 1, 2, 3, 9, 9, 9, 9, 9, 0, 0, 1}
	oid2 := oid
	oid2[11] = 7
	oid3 := oid
	oid3[5] = 1 // another process
	re := bsoncore.Value{Type: bsoncore.TypeRegex, Data: bsoncore.AppendRegex(nil, "a.*", "i")}
	dbp := bsoncore.Value{Type: bsoncore.TypeDBPointer, Data: bsoncore.AppendDBPointer(nil, "db.c", bson.ObjectID(oid))}
	code := bsoncore.Value{Type: bsoncore.TypeJavaScript, Data: bsoncore.AppendJavaScript(nil, "f()")}
	code2 := bsoncore.Value{Type: bsoncore.TypeJavaScript, Data: bsoncore.AppendJavaScript(nil, "g()")}
	sym := bsoncore.Value{Type: bsoncore.TypeSymbol, Data: bsoncore.AppendSymbol(nil, "sym")}
	cws := bsoncore.Value{Type: bsoncore.TypeCodeWithScope, Data: bsoncore.AppendCodeWithScope(nil, "x", bsoncore.NewDocumentBuilder().AppendInt32("a", 1).Build())}
	vals := []bsoncore.Value{
		vInt32(1), vInt32(2), vInt32(3), skip, vInt32(math.MaxInt32), vInt32(math.MinInt32),
		vInt64(5), vInt64(math.MaxInt64), vInt64(math.MinInt64), vInt64(0),
		vDouble(1.5), vDouble(1.7), vDouble(2.25), vDouble(math.Copysign(0, -1)), vDouble(0), vDouble(math.Inf(1)),
		vDoubleBits(0x7ff8000000000123), vDoubleBits(0x7ff8000000000123), vDoubleBits(0xfff0000000000001), vDouble(1e300), vDouble(0.1 + 0.2),
		vDate(1700000000000), vDate(1700000001000), vDate(1700000002000), vDate(-5),
		vTimestamp(100, 1), vTimestamp(100, 2), vTimestamp(101, 0),
		vOID(oid), vOID(oid2), vOID(oid3),
		vBool(true), vBool(false), vBool(false), vBool(true),
		vString(""), vString("abc"), vString("abd"), vString("a\x00b"), vString("\x00lead"), vString("a string longer than sixteen"), vString("short"),
		code, code2, sym, sym, cws, cws,
		vBinary(0, []byte{1, 2, 3}), vBinary(0, []byte{1, 2, 4}), vBinary(4, []byte{1, 2, 4}), vBinary(0, bytes.Repeat([]byte{7}, 20)), vBinary(2, []byte{3, 0, 0, 0, 1, 2, 3}),
		vDecimal(0x3040000000000000, 1), vDecimal(0x3040000000000000, 2), vDecimal(0x7c00000000000000, 0),
		{Type: bsoncore.TypeNull}, {Type: bsoncore.TypeNull}, {Type: bsoncore.TypeUndefined}, {Type: bsoncore.TypeMinKey}, {Type: bsoncore.TypeMaxKey}, {Type: bsoncore.TypeMaxKey},
		re, re, dbp,
		vDoc(bson.D{{Key: "a", Value: 1}}), vDoc(bson.D{{Key: "a", Value: 1}}), vDoc(bson.D{}), vArray(1, "x"), vArray(),
		skip, skip,
	}
	checkRoundTrip(t, vals)
	checkRoundTrip(t, nil)
	checkRoundTrip(t, []bsoncore.Value{skip})
	checkRoundTrip(t, []bsoncore.Value{skip, skip, vInt32(1)})
}

func TestRoundTripRuns(t *testing.T) {
	// Long constant runs and constant deltas go through run blocks.
	var vals []bsoncore.Value
	for i := 0; i < 5000; i++ {
		vals = append(vals, vDate(1700000000000+int64(i)*1000))
	}
	col := checkRoundTrip(t, vals)
	if len(col) > 80 {
		t.Errorf("5000 evenly spaced dates take %d bytes, want runs", len(col))
	}
	vals = vals[:0]
	for i := 0; i < 3000; i++ {
		if i%7 == 3 {
			vals = append(vals, skip)
		} else {
			vals = append(vals, vInt32(int32(i/100)))
		}
	}
	checkRoundTrip(t, vals)
	vals = vals[:0]
	for i := 0; i < 2000; i++ {
		vals = append(vals, skip)
	}
	vals = append(vals, vString("x"))
	checkRoundTrip(t, vals)
	vals = vals[:0]
	for i := 0; i < 2000; i++ {
		vals = append(vals, vString("same"))
	}
	checkRoundTrip(t, vals)
}

func TestRoundTripDoublesScales(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var vals []bsoncore.Value
	for i := 0; i < 3000; i++ {
		switch r.IntN(6) {
		case 0:
			vals = append(vals, vDouble(float64(r.IntN(1000))))
		case 1:
			vals = append(vals, vDouble(float64(r.IntN(10000))/10))
		case 2:
			vals = append(vals, vDouble(float64(r.IntN(100000))/10000))
		case 3:
			vals = append(vals, vDouble(r.Float64()))
		case 4:
			vals = append(vals, skip)
		default:
			vals = append(vals, vDouble(float64(r.IntN(1e9))/1e8))
		}
	}
	checkRoundTrip(t, vals)
	// A slowly varying temperature compresses to a few bits per value.
	vals = vals[:0]
	x := 2150
	for i := 0; i < 1000; i++ {
		x += r.IntN(5) - 2
		vals = append(vals, vDouble(float64(x)/100))
	}
	col := checkRoundTrip(t, vals)
	if len(col) > 1000 {
		t.Errorf("1000 temperatures take %d bytes", len(col))
	}
}

func TestRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 200; round++ {
		n := r.IntN(300)
		vals := make([]bsoncore.Value, 0, n)
		for i := 0; i < n; i++ {
			vals = append(vals, randomValue(r))
		}
		checkRoundTrip(t, vals)
	}
}

func randomValue(r *rand.Rand) bsoncore.Value {
	switch r.IntN(15) {
	case 12, 13:
		d := bson.D{}
		for _, k := range []string{"a", "b", "c"} {
			if r.IntN(3) > 0 {
				v := randomValue(r)
				if v.Type == 0 {
					continue
				}
				d = append(d, bson.E{Key: k, Value: bson.RawValue{Type: bson.Type(v.Type), Value: v.Data}})
			}
		}
		return vDoc(d)
	case 14:
		return vArray(r.IntN(3), r.IntN(2))
	case 0:
		return skip
	case 1:
		return vInt32(int32(r.IntN(5)))
	case 2:
		return vInt64(r.Int64() >> uint(r.IntN(64)))
	case 3:
		return vDoubleBits(r.Uint64() >> uint(r.IntN(64)))
	case 4:
		return vDouble(float64(r.IntN(100)) / 10)
	case 5:
		return vDate(1700000000000 + int64(r.IntN(3))*1000)
	case 6:
		return vString(string(rune('a' + r.IntN(3))))
	case 7:
		b := make([]byte, r.IntN(18))
		for i := range b {
			b[i] = byte(r.IntN(3))
		}
		return vBinary(0, b)
	case 8:
		return vDecimal(r.Uint64()>>uint(r.IntN(64)), r.Uint64())
	case 9:
		return vTimestamp(uint32(r.IntN(3)), uint32(r.IntN(1<<31)))
	case 10:
		var o [12]byte
		o[11] = byte(r.IntN(4))
		o[3] = byte(r.IntN(2))
		return vOID(o)
	default:
		return vBool(r.IntN(2) == 0)
	}
}

// Hand-built columns, worked out from the format description.

func block(w uint64) []byte { return binary.LittleEndian.AppendUint64(nil, w) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func literal(v bsoncore.Value) []byte { return cat([]byte{byte(v.Type), 0}, v.Data) }

func checkDecode(t *testing.T, col []byte, want []bsoncore.Value) {
	t.Helper()
	got, err := Decode(col)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d values, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].Type != want[i].Type || !bytes.Equal(got[i].Data, want[i].Data) {
			t.Fatalf("value %d: got %v, want %v", i, got[i], want[i])
		}
	}
}

func TestDecodeHandBuilt(t *testing.T) {
	t.Run("int32 deltas, a run and a skip", func(t *testing.T) {
		// Literal 1; one control of 3 blocks: selector 14 holding zigzag(+1)=2
		// twice, then a run block of 120 repeats of 2, then selector 14 all ones.
		col := cat(literal(vInt32(1)), []byte{0x83}, block(14|2<<4), block(14|2<<4), block(15), block(0xFFFFFFFFFFFFFFFE), []byte{0})
		want := []bsoncore.Value{vInt32(1), vInt32(2), vInt32(3)}
		for i := 0; i < 120; i++ {
			want = append(want, vInt32(int32(4+i)))
		}
		want = append(want, skip)
		checkDecode(t, col, want)
	})
	t.Run("scaled double", func(t *testing.T) {
		// 1.5 at scale index 1 is 15; +2 (zigzag 4) gives 17, that is 1.7.
		checkDecode(t, cat(literal(vDouble(1.5)), []byte{0xA0}, block(14|4<<4), []byte{0}),
			[]bsoncore.Value{vDouble(1.5), vDouble(1.7)})
	})
	t.Run("date delta of delta", func(t *testing.T) {
		// Selector 13: two 30-bit slots: zigzag(+10)=20 then 0.
		checkDecode(t, cat(literal(vDate(1000)), []byte{0x80}, block(13|20<<4|0<<34), []byte{0}),
			[]bsoncore.Value{vDate(1000), vDate(1010), vDate(1020)})
	})
	t.Run("string delta", func(t *testing.T) {
		// "abc" and "abd" differ by one in their reversed little-endian form.
		checkDecode(t, cat(literal(vString("abc")), []byte{0x80}, block(14|2<<4), []byte{0}),
			[]bsoncore.Value{vString("abc"), vString("abd")})
	})
	t.Run("short strings of different lengths", func(t *testing.T) {
		// Reversed, "a".."d" are 0x61..0x64 (+1 each, zigzag 2) and "bb" is
		// 0x6262 (+0x61FE, zigzag 0xC3FC): three 20-bit slots of selector
		// 12, then selector 14.
		col := cat(literal(vString("a")), []byte{0x81}, block(12|2<<4|2<<24|2<<44), block(14|0xC3FC<<4), []byte{0})
		want := []bsoncore.Value{vString("a"), vString("b"), vString("c"), vString("d"), vString("bb")}
		checkDecode(t, col, want)
		if got := Encode(want); !bytes.Equal(got, col) {
			t.Errorf("encoded % x\nwant     % x", got, col)
		}
	})
	t.Run("objectid delta of delta", func(t *testing.T) {
		o := [12]byte{0x65, 0, 0, 1, 5, 5, 5, 5, 5, 0, 0, 9}
		o2 := o
		o2[11] = 10 // counter +1: lowest byte of the encoded integer
		checkDecode(t, cat(literal(vOID(o)), []byte{0x80}, block(14|2<<4), []byte{0}),
			[]bsoncore.Value{vOID(o), vOID(o2)})
	})
	t.Run("extended selector 7", func(t *testing.T) {
		// Selector 7, extension 1: nine slots of 2 value bits and a 4-bit
		// count of trailing zeros: value 1 with 10 zeros is 1024 = zigzag(512).
		w := uint64(7 | 1<<4)
		for k := 0; k < 9; k++ {
			w |= (1<<4 | 10) << (8 + 6*k)
		}
		want := []bsoncore.Value{vInt64(0)}
		for k := 1; k <= 9; k++ {
			want = append(want, vInt64(int64(512*k)))
		}
		checkDecode(t, cat(literal(vInt64(0)), []byte{0x80}, block(w), []byte{0}), want)
	})
	t.Run("extended selector 8 on 128 bits", func(t *testing.T) {
		// Selector 8, extension 13: one slot of 51 value bits and a 5-bit
		// count of zero nibbles: 1 shifted by 31 nibbles is zigzag(2^123).
		w := uint64(8|13<<4) | (1<<5|31)<<8
		lo := vDecimal(0, 0)
		want := vDecimal(1<<59, 0)
		checkDecode(t, cat(literal(lo), []byte{0x80}, block(w), []byte{0}), []bsoncore.Value{lo, want})
	})
	t.Run("run block first after a literal", func(t *testing.T) {
		// Before a run's first block a decoder repeats 0: 960 zero deltas, then
		// 30 + 8 + 1 more in selectors 2, 7 and 14.
		col := cat(literal(vDouble(2)), []byte{0x93}, block(15|7<<4), block(2), block(7), block(14), []byte{0})
		want := make([]bsoncore.Value, 1000)
		for i := range want {
			want[i] = vDouble(2)
		}
		checkDecode(t, col, want)
		if got := Encode(want); len(got) >= len(col) {
			t.Errorf("our column of the same values takes %d bytes, this one %d", len(got), len(col))
		}
	})
	t.Run("skips before any literal", func(t *testing.T) {
		checkDecode(t, cat([]byte{0x80}, block(0xFFFFFFFFFFFFFFFE), literal(vInt32(7)), []byte{0}),
			[]bsoncore.Value{skip, vInt32(7)})
	})
	t.Run("interleaved objects", func(t *testing.T) {
		ref := vDoc(bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: bson.D{{Key: "c", Value: "x"}}}})
		// Object 1 asks stream a, then stream b.c, for a control each; the
		// second object reads their second values; the third finds EOO.
		a := block(13 | 2<<4 | 2<<34)               // +1, +1
		c := block(13 | 0<<4 | uint64(1<<30-1)<<34) // repeat, skip
		col := cat([]byte{0xF1}, ref.Data, []byte{0x80}, a, []byte{0x80}, c, []byte{0}, []byte{0})
		checkDecode(t, col, []bsoncore.Value{
			vDoc(bson.D{{Key: "a", Value: int32(2)}, {Key: "b", Value: bson.D{{Key: "c", Value: "x"}}}}),
			vDoc(bson.D{{Key: "a", Value: int32(3)}}),
		})
	})
	t.Run("interleaved array root and a missing object", func(t *testing.T) {
		ref := vArray(int32(10), int32(20))
		s0 := block(13 | 2<<4 | uint64(1<<30-1)<<34) // +1, skip
		s1 := block(13 | 0<<4 | uint64(1<<30-1)<<34) // repeat, skip
		// After the interleaved objects, a zero delta repeats the last one
		// (here the missing one: a skip).
		col := cat([]byte{0xF2}, ref.Data, []byte{0x80}, s0, []byte{0x80}, s1, []byte{0}, []byte{0x80}, block(14), []byte{0})
		checkDecode(t, col, []bsoncore.Value{vArray(int32(11), int32(20)), skip, skip})
	})
	t.Run("interleaved legacy keeps arrays whole", func(t *testing.T) {
		ref := vDoc(bson.D{{Key: "x", Value: bson.A{int32(1)}}, {Key: "n", Value: int64(5)}})
		s0 := block(14)        // the array repeats
		s1 := block(14 | 4<<4) // +2
		col := cat([]byte{0xF0}, ref.Data, []byte{0x80}, s0, []byte{0x80}, s1, []byte{0}, []byte{0})
		checkDecode(t, col, []bsoncore.Value{vDoc(bson.D{{Key: "x", Value: bson.A{int32(1)}}, {Key: "n", Value: int64(7)}})})
	})
}

func TestDecodeRejects(t *testing.T) {
	for name, col := range map[string][]byte{
		"empty":                {},
		"no end":               literal(vInt32(1)),
		"bytes after end":      {0, 0},
		"selector 0":           cat(literal(vInt32(1)), []byte{0x80}, block(0), []byte{0}),
		"scaled int":           cat(literal(vInt32(1)), []byte{0x90}, block(14), []byte{0}),
		"delta on null":        cat([]byte{0x0A, 0}, []byte{0x80}, block(14|2<<4), []byte{0}),
		"control past end":     cat(literal(vInt32(1)), []byte{0x81}, block(14)),
		"bad control":          cat(literal(vInt32(1)), []byte{0xE0}, block(14), []byte{0}),
		"interleaved no objs":  cat([]byte{0xF1}, vDoc(bson.D{{Key: "a", Value: 1}}).Data, []byte{0, 0}),
		"interleaved no leafs": cat([]byte{0xF1}, vDoc(bson.D{}).Data, []byte{0x80}, block(14), []byte{0, 0}),
	} {
		if _, err := Decode(col); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
}

func TestSimple8bPackUnpack(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := 0; round < 500; round++ {
		var vals []s8val
		n := 1 + r.IntN(400)
		for i := 0; i < n; i++ {
			var v s8val
			switch r.IntN(5) {
			case 0:
				v.skip = true
			case 1:
				if i > 0 {
					v = vals[i-1]
				}
			default:
				v.v = u128{lo: r.Uint64() >> uint(r.IntN(64))}
				v.v = v.v.shl(uint(r.IntN(12)))
				if v.v.hi != 0 || !encodable(v.v) {
					v.v = u128{lo: 3}
				}
			}
			vals = append(vals, v)
		}
		p := newPacker()
		blocks := p.pack(nil, vals)
		var got []s8val
		var prev s8val
		var out [60]uint64
		for _, w := range blocks {
			if w&15 == rleSelector {
				c, _ := blockCount(w)
				for k := 0; k < c; k++ {
					got = append(got, prev)
				}
				continue
			}
			m, skips, err := unpack64(w, &out)
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < m; k++ {
				x := s8val{v: u128{lo: out[k]}}
				if skips&(1<<k) != 0 {
					x = s8val{skip: true}
				}
				got = append(got, x)
			}
			prev = got[len(got)-1]
		}
		if len(got) != len(vals) {
			t.Fatalf("round %d: %d values back, want %d", round, len(got), len(vals))
		}
		for i := range vals {
			if got[i] != vals[i] {
				t.Fatalf("round %d value %d: got %+v want %+v", round, i, got[i], vals[i])
			}
		}
	}
}

func TestRoundTripInterleaved(t *testing.T) {
	var vals []bsoncore.Value
	for i := 0; i < 700; i++ {
		d := bson.D{{Key: "t", Value: float64(i) / 10}, {Key: "n", Value: int32(i)}}
		if i%3 == 0 {
			d = append(d, bson.E{Key: "sub", Value: bson.D{{Key: "x", Value: "s" + fmt.Sprint(i%4)}, {Key: "arr", Value: bson.A{int64(i), int64(i + 1)}}}})
		}
		if i%5 == 0 {
			d = append(d, bson.E{Key: "late", Value: true})
		}
		if i%50 == 7 {
			d[1].Value = "type change"
		}
		vals = append(vals, vDoc(d))
		if i%11 == 0 {
			vals = append(vals, skip)
		}
	}
	col := checkRoundTrip(t, vals)
	if col[0] != interleavedObject {
		t.Errorf("objects not written in interleaved mode: first byte %#x", col[0])
	}
	literalSize := 0
	for _, v := range vals {
		literalSize += 2 + len(v.Data)
	}
	if len(col)*4 > literalSize {
		t.Errorf("interleaved column %d bytes, literals would take %d", len(col), literalSize)
	}

	// Runs end where an object breaks the reference's order or shape, and
	// between objects and other values.
	checkRoundTrip(t, []bsoncore.Value{
		vDoc(bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 2}}),
		vDoc(bson.D{{Key: "b", Value: 3}, {Key: "a", Value: 4}}),
		vDoc(bson.D{{Key: "b", Value: bson.D{{Key: "c", Value: 1}}}}),
		vDoc(bson.D{{Key: "b", Value: bson.A{1}}}),
		vDoc(bson.D{{Key: "b", Value: bson.A{}}}),
		vDoc(bson.D{{Key: "b", Value: bson.A{1, 2}}}),
		skip, skip,
		vInt32(5),
		vArray(1, 2), vArray(1, 2, 3), vArray(1), skip,
		vDoc(bson.D{{Key: "a", Value: 1}}),
		skip,
	})
}

func TestDoublesLeaveRawBits(t *testing.T) {
	// After a value only raw bits carry, decimal values go back to a scale.
	vals := []bsoncore.Value{vDouble(1), vDouble(math.NaN())}
	for i := 0; i < 200; i++ {
		vals = append(vals, vDouble(2+float64(i)/2))
	}
	col := checkRoundTrip(t, vals)
	if len(col) > 100 {
		t.Errorf("%d bytes for a run of halves after a NaN", len(col))
	}
}

func TestZeroIterator(t *testing.T) {
	var it Iterator
	if _, ok := it.Next(); ok || it.Err() != nil {
		t.Errorf("zero iterator: ok %v err %v", ok, it.Err())
	}
	it.Reset([]byte{})
	if _, ok := it.Next(); ok || it.Err() == nil {
		t.Errorf("empty column: ok %v err %v", ok, it.Err())
	}
}
