package keystring

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func benchAppend(b *testing.B, vals []bsoncore.Value, dirs []bool) {
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for i, v := range vals {
			buf = AppendValue(buf, v, dirs[i])
		}
	}
}

func BenchmarkAppendInt(b *testing.B) { benchAppend(b, []bsoncore.Value{i32(123456)}, []bool{false}) }
func BenchmarkAppendInt64Large(b *testing.B) {
	benchAppend(b, []bsoncore.Value{i64(1<<62 + 12345)}, []bool{false})
}
func BenchmarkAppendDouble(b *testing.B) { benchAppend(b, []bsoncore.Value{dbl(-12.5)}, []bool{true}) }
func BenchmarkAppendDecimal(b *testing.B) {
	benchAppend(b, []bsoncore.Value{dec("1234.56")}, []bool{false})
}
func BenchmarkAppendString(b *testing.B) {
	benchAppend(b, []bsoncore.Value{str("category-electronics")}, []bool{false})
}
func BenchmarkAppendObjectID(b *testing.B) {
	benchAppend(b, []bsoncore.Value{oid(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)}, []bool{false})
}

// BenchmarkAppendCompound encodes a queue-like key {category: 1,
// startTime: -1, _id: 1}.
func BenchmarkAppendCompound(b *testing.B) {
	benchAppend(b, []bsoncore.Value{str("electronics"), date(1700000000000), oid(1, 2, 3)},
		[]bool{false, true, false})
}

func BenchmarkBuilderCompound(b *testing.B) {
	vals := []bsoncore.Value{str("electronics"), date(1700000000000), oid(1, 2, 3)}
	var kb Builder
	b.ReportAllocs()
	for b.Loop() {
		kb.Reset()
		for i, v := range vals {
			kb.Append(v, i == 1)
		}
		_ = kb.TypeBits()
	}
}

func BenchmarkDecodeCompound(b *testing.B) {
	vals := []bsoncore.Value{str("electronics"), date(1700000000000), oid(1, 2, 3)}
	dirs := []bool{false, true, false}
	var kb Builder
	for i, v := range vals {
		kb.Append(v, dirs[i])
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(kb.Key(), dirs, kb.TypeBits()); err != nil {
			b.Fatal(err)
		}
	}
}

func TestAppendDoesNotAllocate(t *testing.T) {
	buf := make([]byte, 0, 256)
	for _, v := range []bsoncore.Value{i32(1), i64(1<<62 + 1), dbl(-0.1), dec("12.34"), str("a\x00b"),
		oid(1), date(5), doc(kv{"a", arr(i32(1), str("x"))})} {
		n := testing.AllocsPerRun(100, func() {
			buf = AppendValue(buf[:0], v, true)
			buf = AppendTypeBits(buf[:0], v)
		})
		if n != 0 {
			t.Errorf("AppendValue(%s) allocates %v times", show(v), n)
		}
	}
}
