package changestream

import (
	"strconv"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// updateDescription turns a $v: 2 delta into an update event's
// {updatedFields, removedFields, truncatedArrays}, with dotted paths for
// changes inside embedded documents and arrays.
func updateDescription(diff bsoncore.Document) bsoncore.Document {
	var d describer
	d.doc(diff, "")
	b := bsoncore.NewDocumentBuilder()
	b.AppendDocument("updatedFields", d.finishUpdated())
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
	return b.Build()
}

type describer struct {
	updated   []byte
	removed   []string
	truncated []struct {
		field string
		size  int32
	}
}

func (d *describer) finishUpdated() bsoncore.Document {
	idx, dst := bsoncore.AppendDocumentStart(nil)
	dst = append(dst, d.updated...)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

func join(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

func (d *describer) doc(diff bsoncore.Document, prefix string) {
	els, _ := diff.Elements()
	for _, el := range els {
		k := el.Key()
		switch {
		case k == "d":
			sub, _ := el.Value().DocumentOK()
			fs, _ := sub.Elements()
			for _, f := range fs {
				d.removed = append(d.removed, join(prefix, f.Key()))
			}
		case k == "u" || k == "i":
			sub, _ := el.Value().DocumentOK()
			fs, _ := sub.Elements()
			for _, f := range fs {
				d.updated = bsoncore.AppendValueElement(d.updated, join(prefix, f.Key()), f.Value())
			}
		case len(k) > 1 && k[0] == 's':
			sub, _ := el.Value().DocumentOK()
			path := join(prefix, k[1:])
			if a, ok := sub.Lookup("a").BooleanOK(); ok && a {
				d.array(sub, path)
			} else {
				d.doc(sub, path)
			}
		}
	}
}

func (d *describer) array(diff bsoncore.Document, path string) {
	els, _ := diff.Elements()
	for _, el := range els {
		k := el.Key()
		switch {
		case k == "a":
		case k == "l":
			n, _ := el.Value().AsInt64OK()
			d.truncated = append(d.truncated, struct {
				field string
				size  int32
			}{path, int32(n)})
		case len(k) > 1 && k[0] == 'u':
			if _, err := strconv.Atoi(k[1:]); err == nil {
				d.updated = bsoncore.AppendValueElement(d.updated, path+"."+k[1:], el.Value())
			}
		case len(k) > 1 && k[0] == 's':
			sub, _ := el.Value().DocumentOK()
			p := path + "." + k[1:]
			if a, ok := sub.Lookup("a").BooleanOK(); ok && a {
				d.array(sub, p)
			} else {
				d.doc(sub, p)
			}
		}
	}
}
