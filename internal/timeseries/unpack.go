package timeseries

import (
	"strconv"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Measurements returns the measurements of version-1 bucket doc, each
// rebuilt with its fields in column order and the metaField (when the
// bucket has a meta value) after the time field, for a write that must
// test them one by one (a delete by measurement fields). ok is false for
// a bucket of another version.
func Measurements(o *Options, doc bsoncore.Document) (out []bsoncore.Document, ok bool) {
	if v, vok := doc.Lookup("control", "version").AsInt64OK(); !vok || v != 1 {
		return nil, false
	}
	data, dok := doc.Lookup("data").DocumentOK()
	if !dok {
		return nil, false
	}
	cols, err := data.Elements()
	if err != nil {
		return nil, false
	}
	meta, hasMeta := doc.LookupErr("meta")
	type colVals struct {
		name  string
		byPos map[int]bsoncore.Value
	}
	n := 0
	cv := make([]colVals, 0, len(cols))
	for _, c := range cols {
		d, isDoc := c.Value().DocumentOK()
		if !isDoc {
			return nil, false
		}
		els, err := d.Elements()
		if err != nil {
			return nil, false
		}
		m := make(map[int]bsoncore.Value, len(els))
		for _, el := range els {
			i, err := strconv.Atoi(el.Key())
			if err != nil || i < 0 {
				return nil, false
			}
			m[i] = el.Value()
			if i+1 > n {
				n = i + 1
			}
		}
		cv = append(cv, colVals{c.Key(), m})
	}
	out = make([]bsoncore.Document, n)
	for i := 0; i < n; i++ {
		idx, b := bsoncore.AppendDocumentStart(nil)
		for _, c := range cv {
			if v, ok := c.byPos[i]; ok {
				b = bsoncore.AppendValueElement(b, c.name, v)
				if c.name == o.TimeField && hasMeta == nil && o.MetaField != "" {
					b = bsoncore.AppendValueElement(b, o.MetaField, meta)
				}
			}
		}
		out[i], _ = bsoncore.AppendDocumentEnd(b, idx)
	}
	return out, true
}

// Rebuild returns bucket doc holding only the measurements keep (as
// Measurements gave them): the same _id, start and meta, positions
// renumbered, control recomputed. It returns nil when keep is empty.
func Rebuild(o *Options, doc bsoncore.Document, keep []bsoncore.Document) bsoncore.Document {
	if len(keep) == 0 {
		return nil
	}
	id, _ := doc.Lookup("_id").ObjectIDOK()
	start, _ := doc.Lookup("control", "min", o.TimeField).DateTimeOK()
	b := &Bucket{ID: id, MinTime: start, byName: map[string]*column{}}
	if m, err := doc.LookupErr("meta"); err == nil {
		b.meta = bsoncore.AppendValueElement(nil, "meta", m)
	}
	for _, m := range keep {
		t, _ := m.Lookup(o.TimeField).DateTimeOK()
		b.add(m, t, o, 0)
	}
	return b.Document(nil)
}
