package timeseries

import (
	"encoding/binary"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
)

// Bucket is one open bucket: the measurements of one meta value within
// [MinTime, MinTime+bucketMaxSpanSeconds), at most MaxCount of them and
// about MaxSize bytes, kept as mongod's version-1 columns. A measurement
// is appended to each column it has a field for (an element keyed by its
// position, "0", "1", ...), and the control minimum and maximum of each
// field are kept as it goes, so that the bucket document is assembled
// from the columns without re-reading the measurements (Document).
//
// Written and RID describe the version last stored: the engine writes a
// new bucket as an insert and later versions as updates of that record.
type Bucket struct {
	ID      bson.ObjectID
	metaKey string
	meta    []byte // the normalised meta element, keyed "meta" (nil: none)
	MinTime int64  // the rounded start, ms
	MaxTime int64  // the latest measurement's time, ms
	Count   int
	Size    int // mongod's estimate of the bucket's size

	fields  []*column
	byName  map[string]*column
	timeCol *column

	// Written is the document last stored (nil: not yet), RID its record.
	Written bsoncore.Document
	RID     uint64
	// dirty: measurements were added since Written.
	dirty bool
	// touched: the batch being written holds this bucket already.
	touched bool
	// keptOpen: counted once as kept open for large measurements.
	keptOpen bool
}

// column is one data field: its elements, and the field's control minimum
// and maximum as values the column owns.
type column struct {
	name     string
	data     []byte // elements "<i>": value
	min, max bsoncore.Value
	timeCol  bool
	// written is len(data) in the version last written; -1 for a column
	// that version does not have.
	written int
}

// Dirty reports whether measurements were added since the last Written.
func (b *Bucket) Dirty() bool { return b.dirty }

// Touched reports whether the command being written holds b already.
func (b *Bucket) Touched() bool { return b.touched }

// SetTouched sets what Touched reports.
func (b *Bucket) SetTouched(v bool) { b.touched = v }

// MarkWritten records that doc, as record rid, is the bucket's stored
// version.
func (b *Bucket) MarkWritten(doc bsoncore.Document, rid uint64) {
	b.Written, b.RID, b.dirty, b.touched = doc, rid, false, false
	for _, c := range b.fields {
		c.written = len(c.data)
	}
}

// add appends measurement m (whose time is t) as position b.Count. The
// meta field is skipped: it lives in the bucket's meta.
func (b *Bucket) add(m bsoncore.Document, t int64, o *Options, size int) {
	key := bsonutil.ArrayKey(b.Count)
	pos := 0
	_ = bsonutil.EachElementTrusted(m, func(el bsoncore.Element) error {
		kb := el.KeyBytes()
		if o.MetaField != "" && string(kb) == o.MetaField {
			return nil
		}
		// Measurements mostly repeat their fields in one order: the
		// column at the same position is tried first.
		var c *column
		if pos < len(b.fields) && b.fields[pos].name == string(kb) {
			c = b.fields[pos]
		} else if c = b.byName[string(kb)]; c == nil {
			name := string(kb)
			c = &column{name: name, timeCol: name == o.TimeField, written: -1}
			b.byName[name] = c
			b.fields = append(b.fields, c)
			if c.timeCol {
				b.timeCol = c
			}
		}
		pos++
		v := el.Value()
		c.data = bsoncore.AppendValueElement(c.data, key, v)
		if c.timeCol {
			return nil // the time's min and max are the bucket's own
		}
		if c.min.Type == 0 {
			c.min, c.max = cloneValue(v), cloneValue(v)
			return nil
		}
		if nv, changed := minMax(c.min, v, -1); changed {
			c.min = nv
		}
		if nv, changed := minMax(c.max, v, 1); changed {
			c.max = nv
		}
		return nil
	})
	if t > b.MaxTime || b.Count == 0 {
		b.MaxTime = t
	}
	b.Count++
	b.Size += size
	b.dirty = true
}

func cloneValue(v bsoncore.Value) bsoncore.Value {
	return bsoncore.Value{Type: v.Type, Data: append([]byte(nil), v.Data...)}
}

// minMax returns the control minimum (dir -1) or maximum (dir 1) of cur
// and v as mongod keeps them: objects field by field and arrays element
// by element when both sides are of that type, other values by MongoDB's
// order. changed is false when cur stays.
func minMax(cur, v bsoncore.Value, dir int) (bsoncore.Value, bool) {
	if cur.Type == v.Type && (v.Type == bsoncore.TypeEmbeddedDocument || v.Type == bsoncore.TypeArray) {
		return mergeContainer(cur, v, dir)
	}
	c := bsonutil.Compare(v, cur)
	if c*dir > 0 {
		return cloneValue(v), true
	}
	return cur, false
}

// mergeContainer merges two objects (or arrays) field-wise.
func mergeContainer(cur, v bsoncore.Value, dir int) (bsoncore.Value, bool) {
	ce, _ := bsoncore.Document(cur.Data).Elements()
	ve, _ := bsoncore.Document(v.Data).Elements()
	changed := false
	idx, out := bsoncore.AppendDocumentStart(nil)
	seen := make(map[string]bool, len(ce))
	for _, el := range ce {
		k := el.Key()
		seen[k] = true
		cv := el.Value()
		var nv bsoncore.Value
		found := false
		for _, x := range ve {
			if x.Key() == k {
				nv, found = x.Value(), true
				break
			}
		}
		if found {
			if m, ch := minMax(cv, nv, dir); ch {
				cv, changed = m, true
			}
		}
		out = bsoncore.AppendValueElement(out, k, cv)
	}
	for _, x := range ve {
		if !seen[x.Key()] {
			out = bsoncore.AppendValueElement(out, x.Key(), x.Value())
			changed = true
		}
	}
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	if !changed {
		return cur, false
	}
	return bsoncore.Value{Type: cur.Type, Data: out}, true
}

// schemaFits reports whether m's fields keep the types the bucket holds
// for them (numbers of any kind alike, as mongod's schema check): a
// change of type closes the bucket.
func (b *Bucket) schemaFits(m bsoncore.Document, o *Options) bool {
	if b.Count == 0 {
		return true
	}
	ok := true
	_ = bsonutil.EachElementTrusted(m, func(el bsoncore.Element) error {
		c := b.byName[el.Key()]
		if c == nil || c.timeCol || c.min.Type == 0 {
			return nil
		}
		t := bsoncore.Type(el[0])
		if bsonutil.TypeOrder(t) != bsonutil.TypeOrder(c.min.Type) {
			ok = false
		}
		return nil
	})
	return ok
}

// Document assembles the bucket in mongod's version-1 shape:
// {_id, control: {version: 1, min, max}, meta, data: {<field>: {"0": ...}}}
// with the fields in the order they first appeared and the time field's
// minimum the bucket's rounded start.
func (b *Bucket) Document(dst []byte) bsoncore.Document {
	idx, out := bsoncore.AppendDocumentStart(dst)
	out = bsoncore.AppendObjectIDElement(out, "_id", b.ID)
	out = b.appendControl(out)
	if b.meta != nil {
		out = append(out, b.meta...)
	}
	di, o3 := bsoncore.AppendDocumentElementStart(out, "data")
	out = o3
	for _, c := range b.fields {
		out = append(out, byte(bsoncore.TypeEmbeddedDocument))
		out = append(out, c.name...)
		out = append(out, 0)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(c.data)+5))
		out = append(out, c.data...)
		out = append(out, 0)
	}
	out, _ = bsoncore.AppendDocumentEnd(out, di)
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out
}

// appendControl appends the bucket's control element.
func (b *Bucket) appendControl(out []byte) []byte {
	ci, out := bsoncore.AppendDocumentElementStart(out, "control")
	out = bsoncore.AppendInt32Element(out, "version", 1)
	for _, dir := range []int{-1, 1} {
		name := "min"
		if dir > 0 {
			name = "max"
		}
		mi, o2 := bsoncore.AppendDocumentElementStart(out, name)
		out = o2
		for _, c := range b.fields {
			if c.timeCol {
				t := b.MinTime
				if dir > 0 {
					t = b.MaxTime
				}
				out = bsoncore.AppendDateTimeElement(out, c.name, t)
				continue
			}
			v := c.min
			if dir > 0 {
				v = c.max
			}
			out = bsoncore.AppendValueElement(out, c.name, v)
		}
		out, _ = bsoncore.AppendDocumentEnd(out, mi)
	}
	out, _ = bsoncore.AppendDocumentEnd(out, ci)
	return out
}

// UpdateDiff returns the oplog's description of the change from the
// version last written (Written) to Document's: mongod's $v: 2 delta
// {$v: 2, diff: {u: {control}, sdata: {i: {<new field>: column},
// s<field>: {i: {<position>: value, ...}}}}}, built from what was
// appended since, so that no whole bucket is compared.
func (b *Bucket) UpdateDiff() bsoncore.Document {
	idx, out := bsoncore.AppendDocumentStart(nil)
	out = bsoncore.AppendInt32Element(out, "$v", 2)
	di, out := bsoncore.AppendDocumentElementStart(out, "diff")
	ui, out := bsoncore.AppendDocumentElementStart(out, "u")
	out = b.appendControl(out)
	out, _ = bsoncore.AppendDocumentEnd(out, ui)
	si, out := bsoncore.AppendDocumentElementStart(out, "sdata")
	inserted := false
	for _, c := range b.fields {
		if c.written < 0 {
			inserted = true
			break
		}
	}
	if inserted {
		ii, o2 := bsoncore.AppendDocumentElementStart(out, "i")
		out = o2
		for _, c := range b.fields {
			if c.written < 0 {
				out = append(out, byte(bsoncore.TypeEmbeddedDocument))
				out = append(out, c.name...)
				out = append(out, 0)
				out = binary.LittleEndian.AppendUint32(out, uint32(len(c.data)+5))
				out = append(out, c.data...)
				out = append(out, 0)
			}
		}
		out, _ = bsoncore.AppendDocumentEnd(out, ii)
	}
	for _, c := range b.fields {
		if c.written < 0 || c.written == len(c.data) {
			continue
		}
		ci, o2 := bsoncore.AppendDocumentElementStart(out, "s"+c.name)
		ii, o3 := bsoncore.AppendDocumentElementStart(o2, "i")
		out = append(o3, c.data[c.written:]...)
		out, _ = bsoncore.AppendDocumentEnd(out, ii)
		out, _ = bsoncore.AppendDocumentEnd(out, ci)
	}
	out, _ = bsoncore.AppendDocumentEnd(out, si)
	out, _ = bsoncore.AppendDocumentEnd(out, di)
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out
}

// Compressed reports whether doc, the version about to be written, is not
// the bucket's own assembly (a closed bucket's compressed form), for
// which UpdateDiff does not describe the change.
func (b *Bucket) Compressed(doc bsoncore.Document) bool {
	v, ok := doc.Lookup("control", "version").Int32OK()
	return !ok || v != 1
}

// FromDocument rebuilds the bucket stored as doc (record rid) to take more
// measurements: a version-1 bucket whose columns are positional and of
// one length. It returns nil for any other document.
func FromDocument(o *Options, doc bsoncore.Document, rid uint64) *Bucket {
	if v, ok := doc.Lookup("control", "version").AsInt64OK(); !ok || v != 1 {
		return nil
	}
	id, ok := doc.Lookup("_id").ObjectIDOK()
	if !ok {
		return nil
	}
	minDoc, ok1 := doc.Lookup("control", "min").DocumentOK()
	maxDoc, ok2 := doc.Lookup("control", "max").DocumentOK()
	data, ok3 := doc.Lookup("data").DocumentOK()
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	b := &Bucket{ID: id, byName: map[string]*column{}, Written: append(bsoncore.Document(nil), doc...), RID: rid}
	if el, err := doc.LookupErr("meta"); err == nil {
		b.meta = bsoncore.AppendValueElement(nil, "meta", el)
		b.metaKey = string(b.meta)
		b.Size = len(b.meta)
	}
	cols, err := data.Elements()
	if err != nil {
		return nil
	}
	count := -1
	lasts := make([]int, 0, len(cols))
	for _, el := range cols {
		cd, ok := el.Value().DocumentOK()
		if !ok {
			return nil
		}
		c := &column{name: el.Key(), timeCol: el.Key() == o.TimeField}
		c.data = append([]byte(nil), cd[4:len(cd)-1]...)
		c.written = len(c.data)
		n := 0
		last := -1
		vals, err := cd.Elements()
		if err != nil {
			return nil
		}
		for _, x := range vals {
			i, err := strconv.Atoi(x.Key())
			if err != nil || i <= last {
				return nil
			}
			last = i
			n++
		}
		lasts = append(lasts, last)
		if c.timeCol {
			count = last + 1
			if count != n {
				return nil // a time column with gaps
			}
			b.timeCol = c
			tmin, ok1 := minDoc.Lookup(c.name).DateTimeOK()
			tmax, ok2 := maxDoc.Lookup(c.name).DateTimeOK()
			if !ok1 || !ok2 {
				return nil
			}
			b.MinTime, b.MaxTime = tmin, tmax
		} else {
			mn, err1 := minDoc.LookupErr(c.name)
			mx, err2 := maxDoc.LookupErr(c.name)
			if err1 != nil || err2 != nil {
				return nil
			}
			c.min, c.max = cloneValue(mn), cloneValue(mx)
		}
		b.Size += len(c.data)
		b.fields = append(b.fields, c)
		b.byName[c.name] = c
	}
	if count <= 0 {
		return nil
	}
	// Every column's positions are below the count.
	for _, last := range lasts {
		if last >= count {
			return nil
		}
	}
	b.Count = count
	return b
}
