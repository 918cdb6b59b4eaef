package agg

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// lookupPath returns the value at a dotted path through embedded documents
// only (no traversal of arrays), or missing.
func lookupPath(doc bsoncore.Document, parts []string) bsoncore.Value {
	cur := doc
	for i, p := range parts {
		v, err := cur.LookupErr(p)
		if err != nil {
			return bsoncore.Value{}
		}
		if i == len(parts)-1 {
			return v
		}
		d, ok := v.DocumentOK()
		if !ok {
			return bsoncore.Value{}
		}
		cur = d
	}
	return bsoncore.Value{}
}

// setPath returns a copy of doc with the dotted path set to v, creating
// embedded documents as needed (replacing non-documents on the way). A
// missing v removes the field.
func setPath(doc bsoncore.Document, parts []string, v bsoncore.Value) bsoncore.Document {
	idx, out := bsoncore.AppendDocumentStart(nil)
	found := false
	elems, _ := doc.Elements()
	for _, el := range elems {
		if el.Key() != parts[0] {
			out = append(out, el...)
			continue
		}
		found = true
		if len(parts) == 1 {
			if v.Type != 0 {
				out = bsoncore.AppendValueElement(out, parts[0], v)
			}
			continue
		}
		sub := emptyDoc
		if d, ok := el.Value().DocumentOK(); ok {
			sub = d
		}
		out = bsoncore.AppendDocumentElement(out, parts[0], setPath(sub, parts[1:], v))
	}
	if !found && v.Type != 0 {
		if len(parts) == 1 {
			out = bsoncore.AppendValueElement(out, parts[0], v)
		} else {
			out = bsoncore.AppendDocumentElement(out, parts[0], setPath(emptyDoc, parts[1:], v))
		}
	}
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out
}
