package agg

import (
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/expr"
)

// This file finds which top-level fields of the measurements the stages
// after $_internalUnpackBucket read (mongod's dependency analysis, as the
// stage uses it): when the set is finite, the stage unpacks only those
// fields (include). It reads the stages' raw specifications and errs
// towards reading more: a string "$a.b" anywhere in an expression counts
// as a read of a (even inside $literal), and a stage it does not know
// makes the set unknown.

// depSet collects top-level field names.
type depSet struct {
	fields []string
	// whole: the whole document is needed ($$ROOT, an unknown stage).
	whole bool
}

func (d *depSet) add(path string) {
	if i := strings.IndexByte(path, '.'); i >= 0 {
		path = path[:i]
	}
	if path == "" {
		return
	}
	if !slices.Contains(d.fields, path) {
		d.fields = append(d.fields, path)
	}
}

// pipelineDeps returns the top-level fields the stages read, plus those
// of the filter extra (nil for none); ok is false when the set is not
// finite (a stage may pass the whole document on to the output).
func pipelineDeps(stages []bsoncore.Document, extra bsoncore.Document) ([]string, bool) {
	var d depSet
	if extra != nil {
		d.filter(extra)
	}
	for _, st := range stages {
		elems, err := st.Elements()
		if err != nil || len(elems) != 1 {
			return nil, false
		}
		name, v := elems[0].Key(), elems[0].Value()
		exhaustive := false
		switch name {
		case "$match":
			f, ok := v.DocumentOK()
			if !ok {
				return nil, false
			}
			d.filter(f)
		case "$project":
			p, ok := v.DocumentOK()
			if !ok {
				return nil, false
			}
			exhaustive = d.project(p)
		case "$addFields", "$set":
			d.expr(v)
		case "$unset", "$limit", "$skip":
		case "$_internalBoundedSort":
			k, err := bsoncore.Document(v.Data).LookupErr("sortKey")
			if err != nil || k.Type != bsoncore.TypeEmbeddedDocument {
				return nil, false
			}
			els, _ := k.Document().Elements()
			for _, e := range els {
				d.add(e.Key())
			}
		case "$sort":
			s, ok := v.DocumentOK()
			if !ok {
				return nil, false
			}
			els, _ := s.Elements()
			for _, e := range els {
				if e.Value().Type != bsoncore.TypeEmbeddedDocument {
					d.add(e.Key())
				}
			}
		case "$unwind":
			if v.Type == bsoncore.TypeString {
				d.expr(v)
			} else if doc, ok := v.DocumentOK(); ok {
				p, _ := doc.LookupErr("path")
				d.expr(p)
			} else {
				return nil, false
			}
		case "$group", "$bucket", "$bucketAuto", "$sortByCount", "$replaceRoot", "$replaceWith":
			d.expr(v)
			exhaustive = true
		case "$count":
			exhaustive = true
		default:
			return nil, false
		}
		if d.whole {
			return nil, false
		}
		if exhaustive {
			return d.fields, true
		}
	}
	return nil, false
}

// filter adds the fields a query filter reads.
func (d *depSet) filter(f bsoncore.Document) {
	els, err := f.Elements()
	if err != nil {
		d.whole = true
		return
	}
	for _, e := range els {
		k := e.Key()
		if !strings.HasPrefix(k, "$") {
			d.add(k)
			continue
		}
		switch k {
		case "$and", "$or", "$nor":
			arr, ok := e.Value().ArrayOK()
			if !ok {
				d.whole = true
				return
			}
			vals, _ := arr.Values()
			for _, x := range vals {
				sub, ok := x.DocumentOK()
				if !ok {
					d.whole = true
					return
				}
				d.filter(sub)
			}
		case "$expr":
			d.expr(e.Value())
		case "$comment":
		default:
			d.whole = true
		}
	}
}

// project adds the fields a $project reads and reports whether it is
// exhaustive (an inclusion or computing projection: what it does not
// name is dropped); an exclusion passes the rest through.
func (d *depSet) project(p bsoncore.Document) bool {
	els, err := p.Elements()
	if err != nil {
		d.whole = true
		return false
	}
	inclusion, idOut := false, false
	for _, e := range els {
		v := e.Value()
		if e.Key() == "_id" && isFalseProj(v) {
			idOut = true
			continue
		}
		if !isFalseProj(v) {
			inclusion = true
		}
	}
	if !inclusion {
		return false
	}
	if !idOut {
		d.add("_id")
	}
	for _, e := range els {
		v := e.Value()
		if isFalseProj(v) {
			continue
		}
		if isTrueProj(v) {
			d.add(e.Key())
			continue
		}
		if sub, ok := v.DocumentOK(); ok && !isExprDoc(sub) {
			// {a: {b: 1}} keeps a's b: it reads a.
			d.add(e.Key())
			d.expr(v)
			continue
		}
		d.expr(v)
	}
	return true
}

// isFalseProj: 0 or false.
func isFalseProj(v bsoncore.Value) bool {
	return (v.Type == bsoncore.TypeBoolean || bsonutil.IsNumber(v.Type)) && !expr.Truthy(v)
}

// isTrueProj: true or a non-zero number.
func isTrueProj(v bsoncore.Value) bool {
	return (v.Type == bsoncore.TypeBoolean || bsonutil.IsNumber(v.Type)) && expr.Truthy(v)
}

// isExprDoc: a document whose first key is an operator.
func isExprDoc(d bsoncore.Document) bool {
	els, _ := d.Elements()
	return len(els) > 0 && strings.HasPrefix(els[0].Key(), "$")
}

// expr adds the fields an expression (or any value holding expressions)
// reads: every "$path" string in it.
func (d *depSet) expr(v bsoncore.Value) {
	switch v.Type {
	case bsoncore.TypeString:
		s := v.StringValue()
		switch {
		case strings.HasPrefix(s, "$$"):
			name, rest, _ := strings.Cut(s[2:], ".")
			if name == "ROOT" || name == "CURRENT" {
				if rest == "" {
					d.whole = true
				} else {
					d.add(rest)
				}
			}
		case strings.HasPrefix(s, "$"):
			d.add(s[1:])
		}
	case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
		vals, err := bsoncore.Document(v.Data).Values()
		if err != nil {
			d.whole = true
			return
		}
		for _, x := range vals {
			d.expr(x)
		}
	}
}
