package changestream

import (
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// updateDescription turns a $v: 2 delta into an update event's
// {updatedFields, removedFields, truncatedArrays}, with dotted paths for
// changes inside embedded documents and arrays. With expanded events
// (showExpandedEvents) it adds disambiguatedPaths, as mongod 6.1 and
// later do: for each of those paths that a dotted string cannot name
// unambiguously (one with a numeric field name below the top level, or a
// field name containing a dot), the path as an array of its parts, array
// indexes as integers; an empty document when no path is ambiguous.
func updateDescription(diff bsoncore.Document, expanded bool) bsoncore.Document {
	var d describer
	d.doc(diff)
	b := bsoncore.NewDocumentBuilder()
	b.AppendDocument("updatedFields", finish(d.updated))
	removed := bsoncore.NewArrayBuilder()
	for _, p := range d.removed {
		removed.AppendString(p)
	}
	b.AppendArray("removedFields", removed.Build())
	tr := bsoncore.NewArrayBuilder()
	for _, t := range d.truncated {
		tr.AppendDocument(bsoncore.NewDocumentBuilder().AppendString("field", t.field).AppendInt32("newSize", t.size).Build())
	}
	b.AppendArray("truncatedArrays", tr.Build())
	if expanded {
		b.AppendDocument("disambiguatedPaths", finish(d.disambiguated))
	}
	return b.Build()
}

// pathPart is one step of the path the describer is at: a field name or
// an array index, and whether the path up to it is ambiguous.
type pathPart struct {
	name      string
	index     bool
	ambiguous bool
}

type describer struct {
	path      []pathPart
	updated   []byte // elements of updatedFields
	removed   []string
	truncated []struct {
		field string
		size  int32
	}
	disambiguated []byte // elements of disambiguatedPaths
}

func finish(elems []byte) bsoncore.Document {
	idx, dst := bsoncore.AppendDocumentStart(nil)
	dst = append(dst, elems...)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// push appends a field name or array index to the path. A path is
// ambiguous from a field name that is a number (below the top level,
// where it could be read as an array index) or contains a dot; an array
// index alone does not make it so.
func (d *describer) push(name string, index bool) {
	amb := len(d.path) > 0 && d.path[len(d.path)-1].ambiguous
	if !amb && !index {
		amb = (len(d.path) > 0 && numericPart(name)) || strings.Contains(name, ".")
	}
	d.path = append(d.path, pathPart{name: name, index: index, ambiguous: amb})
}

func (d *describer) pop() { d.path = d.path[:len(d.path)-1] }

// numericPart is mongod's FieldRef::isNumericPathComponentStrict: digits
// without a leading zero (but "0").
func numericPart(s string) bool {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// dotted is the current path as a dotted string.
func (d *describer) dotted() string {
	var sb strings.Builder
	for i, p := range d.path {
		if i > 0 {
			sb.WriteByte('.')
		}
		sb.WriteString(p.name)
	}
	return sb.String()
}

// noteAmbiguous records the current path in disambiguatedPaths when it
// is ambiguous.
func (d *describer) noteAmbiguous(dotted string) {
	if len(d.path) == 0 || !d.path[len(d.path)-1].ambiguous {
		return
	}
	ab := bsoncore.NewArrayBuilder()
	for _, p := range d.path {
		if p.index {
			n, _ := strconv.Atoi(p.name)
			ab.AppendInt32(int32(n))
		} else {
			ab.AppendString(p.name)
		}
	}
	d.disambiguated = bsoncore.AppendArrayElement(d.disambiguated, dotted, ab.Build())
}

func (d *describer) addUpdated(name string, index bool, v bsoncore.Value) {
	d.push(name, index)
	p := d.dotted()
	d.updated = bsoncore.AppendValueElement(d.updated, p, v)
	d.noteAmbiguous(p)
	d.pop()
}

func (d *describer) addRemoved(name string) {
	d.push(name, false)
	p := d.dotted()
	d.removed = append(d.removed, p)
	d.noteAmbiguous(p)
	d.pop()
}

// sub describes the subdiff of field or array element name.
func (d *describer) sub(name string, index bool, sub bsoncore.Document) {
	d.push(name, index)
	if a, ok := sub.Lookup("a").BooleanOK(); ok && a {
		d.array(sub)
	} else {
		d.doc(sub)
	}
	d.pop()
}

func (d *describer) doc(diff bsoncore.Document) {
	els, _ := diff.Elements()
	for _, el := range els {
		k := el.Key()
		switch {
		case k == "d":
			sub, _ := el.Value().DocumentOK()
			fs, _ := sub.Elements()
			for _, f := range fs {
				d.addRemoved(f.Key())
			}
		case k == "u" || k == "i":
			sub, _ := el.Value().DocumentOK()
			fs, _ := sub.Elements()
			for _, f := range fs {
				d.addUpdated(f.Key(), false, f.Value())
			}
		case len(k) > 1 && k[0] == 's':
			sub, _ := el.Value().DocumentOK()
			d.sub(k[1:], false, sub)
		}
	}
}

func (d *describer) array(diff bsoncore.Document) {
	els, _ := diff.Elements()
	for _, el := range els {
		k := el.Key()
		switch {
		case k == "a":
		case k == "l":
			n, _ := el.Value().AsInt64OK()
			p := d.dotted()
			d.truncated = append(d.truncated, struct {
				field string
				size  int32
			}{p, int32(n)})
			d.noteAmbiguous(p)
		case len(k) > 1 && k[0] == 'u':
			if _, err := strconv.Atoi(k[1:]); err == nil {
				d.addUpdated(k[1:], true, el.Value())
			}
		case len(k) > 1 && k[0] == 's':
			sub, _ := el.Value().DocumentOK()
			d.sub(k[1:], true, sub)
		}
	}
}
