package expr

import (
	"encoding/binary"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Value constructors.

// Null is BSON null.
var Null = bsoncore.Value{Type: bsoncore.TypeNull}

var (
	valTrue  = bsoncore.Value{Type: bsoncore.TypeBoolean, Data: []byte{1}}
	valFalse = bsoncore.Value{Type: bsoncore.TypeBoolean, Data: []byte{0}}
)

// Bool returns a BSON boolean.
func Bool(b bool) bsoncore.Value {
	if b {
		return valTrue
	}
	return valFalse
}

// Int32 returns a BSON int32.
func Int32(i int32) bsoncore.Value {
	if i >= 0 && i < smallInt32s {
		// Shared encodings (capacity-limited, never written): date parts
		// and counts would otherwise allocate 4 bytes per value.
		return bsoncore.Value{Type: bsoncore.TypeInt32, Data: smallInt32Data[i*4 : i*4+4 : i*4+4]}
	}
	return bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, i)}
}

// smallInt32s is how many int32 values, from 0, have a shared encoding.
const smallInt32s = 10000

var smallInt32Data = func() []byte {
	b := make([]byte, 0, smallInt32s*4)
	for i := int32(0); i < smallInt32s; i++ {
		b = bsoncore.AppendInt32(b, i)
	}
	return b
}()

// Int64 returns a BSON int64.
func Int64(i int64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeInt64, Data: bsoncore.AppendInt64(nil, i)}
}

// Double returns a BSON double.
func Double(f float64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeDouble, Data: bsoncore.AppendDouble(nil, f)}
}

// String returns a BSON string.
func String(s string) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, s)}
}

// DecimalValue returns a BSON decimal128.
func DecimalValue(d bson.Decimal128) bsoncore.Value {
	h, l := d.GetBytes()
	return bsoncore.Value{Type: bsoncore.TypeDecimal128, Data: bsoncore.AppendDecimal128(nil, h, l)}
}

// Date returns a BSON datetime of ms milliseconds since the epoch.
func Date(ms int64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeDateTime, Data: bsoncore.AppendDateTime(nil, ms)}
}

// TimeValue returns a BSON datetime for t.
func TimeValue(t time.Time) bsoncore.Value { return Date(t.UnixMilli()) }

func str(v bsoncore.Value) string {
	if v.Type == bsoncore.TypeSymbol {
		return v.Symbol()
	}
	return v.StringValue()
}

// stringBytes is the bytes of string or symbol v, without its length
// prefix and NUL and without a copy: they alias v.Data.
func stringBytes(v bsoncore.Value) []byte {
	if len(v.Data) < 5 {
		return nil
	}
	return v.Data[4 : len(v.Data)-1]
}

// stringOfParts is the BSON string of parts joined, n bytes in all,
// built in one allocation.
func stringOfParts(parts [][]byte, n int) bsoncore.Value {
	data := make([]byte, 4, 4+n+1)
	binary.LittleEndian.PutUint32(data, uint32(n+1))
	for _, p := range parts {
		data = append(data, p...)
	}
	return bsoncore.Value{Type: bsoncore.TypeString, Data: append(data, 0)}
}

func isString(v bsoncore.Value) bool {
	return v.Type == bsoncore.TypeString || v.Type == bsoncore.TypeSymbol
}

// forEach calls f for each element of the document or array bytes d, in
// order, stopping when f returns false.
func forEach(d []byte, f func(key []byte, v bsoncore.Value) bool) {
	if len(d) < 5 {
		return
	}
	rem := d[4 : len(d)-1]
	for len(rem) > 0 {
		el, r, ok := bsoncore.ReadElement(rem)
		if !ok {
			return
		}
		rem = r
		if !f(el.KeyBytes(), el.Value()) {
			return
		}
	}
}

// values returns the values of an array.
func values(v bsoncore.Value) []bsoncore.Value {
	var out []bsoncore.Value
	forEach(v.Data, func(_ []byte, x bsoncore.Value) bool {
		out = append(out, x)
		return true
	})
	return out
}

// arrayLen counts an array's elements.
func arrayLen(v bsoncore.Value) int {
	n := 0
	forEach(v.Data, func(_ []byte, _ bsoncore.Value) bool { n++; return true })
	return n
}

// ArrayBuilder builds a BSON array value.
type ArrayBuilder struct {
	buf []byte
	idx int32
	n   int
}

// NewArrayBuilder starts an array.
func NewArrayBuilder() *ArrayBuilder {
	b := &ArrayBuilder{}
	b.idx, b.buf = bsoncore.AppendArrayStart(nil)
	return b
}

// Append adds v; missing values are skipped.
func (b *ArrayBuilder) Append(v bsoncore.Value) {
	if v.Type == 0 {
		return
	}
	b.buf = bsoncore.AppendValueElement(b.buf, strconv.Itoa(b.n), v)
	b.n++
}

// Len returns the number of elements appended.
func (b *ArrayBuilder) Len() int { return b.n }

// Value finishes the array.
func (b *ArrayBuilder) Value() bsoncore.Value {
	buf, _ := bsoncore.AppendArrayEnd(b.buf, b.idx)
	return bsoncore.Value{Type: bsoncore.TypeArray, Data: buf}
}

// Array builds an array value from vals (missing skipped).
func Array(vals ...bsoncore.Value) bsoncore.Value {
	b := NewArrayBuilder()
	for _, v := range vals {
		b.Append(v)
	}
	return b.Value()
}

// DocBuilder builds a BSON document value.
type DocBuilder struct {
	buf []byte
	idx int32
}

// NewDocBuilder starts a document.
func NewDocBuilder() *DocBuilder {
	b := &DocBuilder{}
	b.idx, b.buf = bsoncore.AppendDocumentStart(nil)
	return b
}

// Append adds key: v; missing values are skipped.
func (b *DocBuilder) Append(key string, v bsoncore.Value) {
	if v.Type == 0 {
		return
	}
	b.buf = bsoncore.AppendValueElement(b.buf, key, v)
}

// Document finishes the document.
func (b *DocBuilder) Document() bsoncore.Document {
	buf, _ := bsoncore.AppendDocumentEnd(b.buf, b.idx)
	return buf
}

// Value finishes the document as a value.
func (b *DocBuilder) Value() bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: b.Document()}
}

// ArrayValues returns the elements of an array value.
func ArrayValues(v bsoncore.Value) []bsoncore.Value { return values(v) }
