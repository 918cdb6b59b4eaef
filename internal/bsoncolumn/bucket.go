package bsoncolumn

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Time series buckets in mongod's shapes. Version 1 keeps each data field
// as an object {"0": v0, "1": v1, ...} in insertion order; version 2 (what
// mongod 7.0 writes when it closes a bucket) sorts the measurements by time
// and keeps each data field as a BSONColumn (BinData subtype 7), the time
// field's first, with control.count; version 3 is version 2 unsorted.

// BinData subtype of a BSONColumn.
const BinarySubtypeColumn = 7

// Bucket versions.
const (
	VersionUncompressed       = 1
	VersionCompressedSorted   = 2
	VersionCompressedUnsorted = 3
)

// ErrNotCompressible is returned by CompressBucket for a bucket it must
// leave as it is (as mongod does): no time column, time values that are not
// dates, or data keys that do not follow the time field's.
var ErrNotCompressible = errors.New("bsoncolumn: bucket cannot be compressed")

type dataColumn struct {
	name []byte
	doc  []byte
	pos  int // next element's offset in doc
}

// peek returns the key, value and element size at the column's position.
func (c *dataColumn) peek() (key []byte, v bsoncore.Value, size int, ok bool) {
	end := len(c.doc) - 1
	if c.pos >= end {
		return nil, bsoncore.Value{}, 0, false
	}
	t := bsoncore.Type(c.doc[c.pos])
	k := indexZero(c.doc[:end], c.pos+1)
	if k < 0 {
		return nil, bsoncore.Value{}, 0, false
	}
	n, valid := valueSize(t, c.doc[k+1:end])
	if !valid {
		return nil, bsoncore.Value{}, 0, false
	}
	return c.doc[c.pos+1 : k], bsoncore.Value{Type: t, Data: c.doc[k+1 : k+1+n]}, k + 1 + n - c.pos, true
}

// CompressBucket returns the version-2 form of a version-1 bucket: the
// measurements sorted by time (equal times keep their order), control.version
// 2 and control.count added after the other control fields (min and max kept),
// the fields other than _id, control and data kept in their order, and data
// with the time column first, then the other fields in their order, each a
// BSONColumn with a skip where a measurement lacks the field.
func CompressBucket(bucket bsoncore.Document, timeField string) (bsoncore.Document, error) {
	var id, control, data []byte
	var others [][]byte // whole elements
	err := walkElems(bucket, func(t bsoncore.Type, key, val, elem []byte) error {
		switch string(key) {
		case "_id":
			id = elem
		case "control":
			if t != bsoncore.TypeEmbeddedDocument {
				return fmt.Errorf("%w: control is not an object", ErrNotCompressible)
			}
			control = val
		case "data":
			if t != bsoncore.TypeEmbeddedDocument {
				return fmt.Errorf("%w: data is not an object", ErrNotCompressible)
			}
			data = val
		default:
			others = append(others, elem)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if control == nil || data == nil {
		return nil, fmt.Errorf("%w: no control or data", ErrNotCompressible)
	}

	var timeDoc []byte
	var cols []dataColumn
	err = walk(data, func(t bsoncore.Type, key, val []byte) error {
		if t != bsoncore.TypeEmbeddedDocument {
			return fmt.Errorf("%w: data.%s is not an object", ErrNotCompressible, key)
		}
		if string(key) == timeField {
			timeDoc = val
		} else {
			cols = append(cols, dataColumn{name: key, doc: val, pos: 4})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if timeDoc == nil {
		return nil, fmt.Errorf("%w: no time column data.%s", ErrNotCompressible, timeField)
	}

	// Read the measurements: times, and each column's value or a skip.
	rows := 0
	if err := walk(timeDoc, func(bsoncore.Type, []byte, []byte) error { rows++; return nil }); err != nil {
		return nil, err
	}
	st := compressPool.Get().(*compressState)
	defer st.release()
	times := slices.Grow(st.times[:0], rows)
	millis := slices.Grow(st.millis[:0], rows)
	cells := slices.Grow(st.cells[:0], rows*len(cols)) // row-major
	defer func() { st.times, st.millis, st.cells = times, millis, cells }()
	err = walk(timeDoc, func(t bsoncore.Type, key, val []byte) error {
		if t != bsoncore.TypeDateTime {
			return fmt.Errorf("%w: time value is not a date", ErrNotCompressible)
		}
		times = append(times, bsoncore.Value{Type: t, Data: val})
		millis = append(millis, int64(binary.LittleEndian.Uint64(val)))
		for i := range cols {
			c := &cols[i]
			k, v, size, ok := c.peek()
			if ok && string(k) == string(key) {
				cells = append(cells, v)
				c.pos += size
			} else {
				cells = append(cells, bsoncore.Value{})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range cols {
		if cols[i].pos < len(cols[i].doc)-1 {
			return nil, fmt.Errorf("%w: data.%s has keys the time field lacks or out of order", ErrNotCompressible, cols[i].name)
		}
	}

	n := len(times)
	order := slices.Grow(st.order[:0], n)[:n]
	st.order = order
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		switch {
		case millis[a] < millis[b]:
			return -1
		case millis[a] > millis[b]:
			return 1
		}
		return 0
	})

	out := make([]byte, 0, len(bucket))
	out = append(out, 0, 0, 0, 0)
	if id != nil {
		out = append(out, id...)
	}
	// control
	out = append(out, byte(bsoncore.TypeEmbeddedDocument))
	out = append(out, "control"...)
	out = append(out, 0)
	cstart := len(out)
	out = append(out, 0, 0, 0, 0)
	versionSet := false
	err = walkElems(control, func(t bsoncore.Type, key, val, elem []byte) error {
		switch string(key) {
		case "version":
			out = bsoncore.AppendInt32Element(out, "version", VersionCompressedSorted)
			versionSet = true
		case "count":
			// Rewritten below.
		default:
			out = append(out, elem...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !versionSet {
		out = bsoncore.AppendInt32Element(out, "version", VersionCompressedSorted)
	}
	out = bsoncore.AppendInt32Element(out, "count", int32(n))
	out = append(out, 0)
	binary.LittleEndian.PutUint32(out[cstart:], uint32(len(out)-cstart))
	for _, e := range others {
		out = append(out, e...)
	}
	// data
	out = append(out, byte(bsoncore.TypeEmbeddedDocument))
	out = append(out, "data"...)
	out = append(out, 0)
	dstart := len(out)
	out = append(out, 0, 0, 0, 0)
	b := &st.b
	b.Reset()
	for _, i := range order {
		b.Append(times[i])
	}
	out = appendColumnElement(out, timeField, b.Finish())
	for c := range cols {
		b.Reset()
		for _, i := range order {
			b.Append(cells[int(i)*len(cols)+c])
		}
		out = appendColumnElement(out, string(cols[c].name), b.Finish())
	}
	out = append(out, 0)
	binary.LittleEndian.PutUint32(out[dstart:], uint32(len(out)-dstart))
	out = append(out, 0)
	binary.LittleEndian.PutUint32(out, uint32(len(out)))
	return out, nil
}

// compressState is CompressBucket's working memory, pooled: a bucket is
// compressed each time one closes.
type compressState struct {
	b      Builder
	times  []bsoncore.Value
	millis []int64
	cells  []bsoncore.Value
	order  []int32
}

var compressPool = sync.Pool{New: func() any { return new(compressState) }}

// release drops the references into the caller's bucket and pools st.
func (st *compressState) release() {
	clear(st.times)
	clear(st.cells)
	compressPool.Put(st)
}

func appendColumnElement(dst []byte, key string, col []byte) []byte {
	return bsoncore.AppendBinaryElement(dst, key, BinarySubtypeColumn, col)
}

// IsCompressed reports whether bucket's control.version is 2 or 3.
func IsCompressed(bucket bsoncore.Document) bool {
	v, err := bucket.LookupErr("control", "version")
	if err != nil {
		return false
	}
	n, ok := v.AsInt64OK()
	if !ok {
		return false
	}
	return n == VersionCompressedSorted || n == VersionCompressedUnsorted
}

// DecompressBucket returns the version-1 form of a version-2 or 3 bucket:
// control.version 1 without control.count, each data column back to an
// object keyed "0", "1", ... by position, skipped positions left out.
func DecompressBucket(bucket bsoncore.Document) (bsoncore.Document, error) {
	out := make([]byte, 0, 2*len(bucket))
	out = append(out, 0, 0, 0, 0)
	var it Iterator
	var key []byte
	err := walkElems(bucket, func(t bsoncore.Type, k, val, elem []byte) error {
		switch string(k) {
		case "control":
			if t != bsoncore.TypeEmbeddedDocument {
				return errors.New("bsoncolumn: bucket control is not an object")
			}
			out = append(out, byte(t))
			out = append(out, "control"...)
			out = append(out, 0)
			start := len(out)
			out = append(out, 0, 0, 0, 0)
			err := walkElems(val, func(t bsoncore.Type, k, v, e []byte) error {
				switch string(k) {
				case "version":
					if t != bsoncore.TypeInt32 {
						return errors.New("bsoncolumn: bucket is not compressed")
					}
					if n := int32(binary.LittleEndian.Uint32(v)); n != VersionCompressedSorted && n != VersionCompressedUnsorted {
						return errors.New("bsoncolumn: bucket is not compressed")
					}
					out = bsoncore.AppendInt32Element(out, "version", VersionUncompressed)
				case "count":
				default:
					out = append(out, e...)
				}
				return nil
			})
			if err != nil {
				return err
			}
			out = append(out, 0)
			binary.LittleEndian.PutUint32(out[start:], uint32(len(out)-start))
		case "data":
			if t != bsoncore.TypeEmbeddedDocument {
				return errors.New("bsoncolumn: bucket data is not an object")
			}
			out = append(out, byte(t))
			out = append(out, "data"...)
			out = append(out, 0)
			start := len(out)
			out = append(out, 0, 0, 0, 0)
			err := walk(val, func(t bsoncore.Type, k, v []byte) error {
				col, ok := columnOf(bsoncore.Value{Type: t, Data: v})
				if !ok {
					return fmt.Errorf("bsoncolumn: data.%s is not a BSONColumn", k)
				}
				out = append(out, byte(bsoncore.TypeEmbeddedDocument))
				out = append(out, k...)
				out = append(out, 0)
				fstart := len(out)
				out = append(out, 0, 0, 0, 0)
				it.Reset(col)
				i := 0
				for x, ok := it.Next(); ok; x, ok = it.Next() {
					if x.Type != 0 {
						key = strconv.AppendInt(key[:0], int64(i), 10)
						out = append(out, byte(x.Type))
						out = append(out, key...)
						out = append(out, 0)
						out = append(out, x.Data...)
					}
					i++
				}
				if err := it.Err(); err != nil {
					return err
				}
				out = append(out, 0)
				binary.LittleEndian.PutUint32(out[fstart:], uint32(len(out)-fstart))
				return nil
			})
			if err != nil {
				return err
			}
			out = append(out, 0)
			binary.LittleEndian.PutUint32(out[start:], uint32(len(out)-start))
		default:
			out = append(out, elem...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out = append(out, 0)
	binary.LittleEndian.PutUint32(out, uint32(len(out)))
	return out, nil
}

// columnOf returns the BSONColumn binary of a BinData subtype 7 value.
func columnOf(v bsoncore.Value) (Column, bool) {
	if v.Type != bsoncore.TypeBinary || len(v.Data) < 5 || v.Data[4] != BinarySubtypeColumn {
		return nil, false
	}
	return Column(v.Data[5:]), true
}

// ColumnOf returns the BSONColumn in v, which must be BinData subtype 7.
func ColumnOf(v bsoncore.Value) (Column, bool) { return columnOf(v) }

// walkElems is walk that also passes each whole element.
func walkElems(doc []byte, f func(t bsoncore.Type, key, val, elem []byte) error) error {
	return walk(doc, func(t bsoncore.Type, key, val []byte) error {
		// key and val are slices of doc: the element runs from the type byte
		// before key to the end of val.
		start := cap(doc) - cap(key) - 1
		end := cap(doc) - cap(val) + len(val)
		return f(t, key, val, doc[start:end])
	})
}

// NamedColumn is one data field of a compressed bucket.
type NamedColumn struct {
	Name   []byte // a slice of the bucket
	Column Column
}

// DataColumns appends to dst the data columns of a compressed (version 2 or
// 3) bucket, in the bucket's order (the time field's first in what mongod
// writes). An unpack stage reads them side by side, one Iterator each: the
// n-th value of every column belongs to the n-th measurement.
func DataColumns(bucket bsoncore.Document, dst []NamedColumn) ([]NamedColumn, error) {
	data, err := bucket.LookupErr("data")
	if err != nil {
		return dst, errors.New("bsoncolumn: bucket without data")
	}
	doc, ok := data.DocumentOK()
	if !ok {
		return dst, errors.New("bsoncolumn: bucket data is not an object")
	}
	err = walk(doc, func(t bsoncore.Type, k, v []byte) error {
		col, ok := columnOf(bsoncore.Value{Type: t, Data: v})
		if !ok {
			return fmt.Errorf("bsoncolumn: data.%s is not a BSONColumn", k)
		}
		dst = append(dst, NamedColumn{Name: k, Column: col})
		return nil
	})
	return dst, err
}
