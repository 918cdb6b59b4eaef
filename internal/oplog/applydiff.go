package oplog

import (
	"fmt"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// ApplyDiff applies the diff of a $v: 2 update entry (UpdateO's diff, or
// mongod's) to doc and returns the new document, as a secondary applies
// the entry: fields in d are removed, fields in u take their new value
// in place (or are appended when absent), s<field> applies a subdiff to
// an embedded document or array, and fields in i are appended at the
// end, in order.
func ApplyDiff(doc, diff bsoncore.Document) (bsoncore.Document, error) {
	out, err := applyDocDiff(nil, doc, diff)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// docDiff is a document diff split into its sections.
type docDiff struct {
	del  map[string]bool
	upd  map[string]bsoncore.Value
	ins  []bsoncore.Element
	sub  map[string]bsoncore.Document
	updK []string // u's keys in order, for the ones appended
	subK []string
}

func parseDocDiff(diff bsoncore.Document) (*docDiff, error) {
	d := &docDiff{del: map[string]bool{}, upd: map[string]bsoncore.Value{}, sub: map[string]bsoncore.Document{}}
	els, err := diff.Elements()
	if err != nil {
		return nil, fmt.Errorf("oplog: diff: %w", err)
	}
	for _, el := range els {
		k, v := el.Key(), el.Value()
		switch {
		case k == "d" || k == "u" || k == "i":
			sec, ok := v.DocumentOK()
			if !ok {
				return nil, fmt.Errorf("oplog: diff section %s is not a document", k)
			}
			sels, err := sec.Elements()
			if err != nil {
				return nil, fmt.Errorf("oplog: diff: %w", err)
			}
			for _, s := range sels {
				switch k {
				case "d":
					d.del[s.Key()] = true
				case "u":
					d.upd[s.Key()] = s.Value()
					d.updK = append(d.updK, s.Key())
				case "i":
					d.ins = append(d.ins, s)
				}
			}
		case strings.HasPrefix(k, "s"):
			sd, ok := v.DocumentOK()
			if !ok {
				return nil, fmt.Errorf("oplog: subdiff %s is not a document", k)
			}
			d.sub[k[1:]] = sd
			d.subK = append(d.subK, k[1:])
		default:
			return nil, fmt.Errorf("oplog: unknown diff field %q", k)
		}
	}
	return d, nil
}

// applyDocDiff appends to dst the document doc changed by diff.
func applyDocDiff(dst []byte, doc, diff bsoncore.Document) ([]byte, error) {
	d, err := parseDocDiff(diff)
	if err != nil {
		return nil, err
	}
	inserted := make(map[string]bool, len(d.ins))
	for _, el := range d.ins {
		inserted[el.Key()] = true
	}
	seen := map[string]bool{}
	idx, dst := bsoncore.AppendDocumentStart(dst)
	els, err := doc.Elements()
	if err != nil {
		return nil, fmt.Errorf("oplog: diff target: %w", err)
	}
	for _, el := range els {
		k := el.Key()
		seen[k] = true
		switch {
		case d.del[k] || inserted[k]:
			// removed, or moved to the end by i
		case d.upd[k].Type != 0:
			dst = bsoncore.AppendValueElement(dst, k, d.upd[k])
		case d.sub[k] != nil:
			if dst, err = applySub(dst, k, el.Value(), d.sub[k]); err != nil {
				return nil, err
			}
		default:
			dst = append(dst, el...)
		}
	}
	for _, k := range d.updK {
		if !seen[k] && !inserted[k] {
			dst = bsoncore.AppendValueElement(dst, k, d.upd[k])
		}
	}
	for _, k := range d.subK {
		if !seen[k] && !inserted[k] {
			if dst, err = applySub(dst, k, bsoncore.Value{}, d.sub[k]); err != nil {
				return nil, err
			}
		}
	}
	for _, el := range d.ins {
		dst = append(dst, el...)
	}
	dst, err = bsoncore.AppendDocumentEnd(dst, idx)
	return dst, err
}

// applySub appends field k: the value v changed by a subdiff, an array
// diff when it has a: true.
func applySub(dst []byte, k string, v bsoncore.Value, sub bsoncore.Document) ([]byte, error) {
	if a, ok := sub.Lookup("a").BooleanOK(); ok && a {
		arr, _ := v.ArrayOK()
		aidx, d := bsoncore.AppendArrayElementStart(dst, k)
		d, err := applyArrayDiff(d, arr, sub)
		if err != nil {
			return nil, err
		}
		return bsoncore.AppendArrayEnd(d, aidx)
	}
	inner, _ := v.DocumentOK()
	if inner == nil {
		inner = bsoncore.NewDocumentBuilder().Build()
	}
	didx, d := bsoncore.AppendDocumentElementStart(dst, k)
	start := len(d)
	d, err := applyDocDiff(d, inner, sub)
	if err != nil {
		return nil, err
	}
	// applyDocDiff wrote a whole document; keep its elements only.
	body := append([]byte(nil), d[start+4:len(d)-1]...)
	d = append(d[:start], body...)
	return bsoncore.AppendDocumentEnd(d, didx)
}

// applyArrayDiff appends the elements of arr changed by an array diff:
// l resizes (truncating, or padding with nulls), u<i> sets element i,
// s<i> applies a subdiff to it.
func applyArrayDiff(dst []byte, arr bsoncore.Array, diff bsoncore.Document) ([]byte, error) {
	vals, _ := arr.Values()
	els, err := diff.Elements()
	if err != nil {
		return nil, fmt.Errorf("oplog: array diff: %w", err)
	}
	subs := map[int]bsoncore.Document{}
	for _, el := range els {
		k, v := el.Key(), el.Value()
		switch {
		case k == "a":
		case k == "l":
			n, ok := v.AsInt64OK()
			if !ok || n < 0 {
				return nil, fmt.Errorf("oplog: bad array diff length %v", v)
			}
			for int64(len(vals)) < n {
				vals = append(vals, bsoncore.Value{Type: bsoncore.TypeNull})
			}
			vals = vals[:n]
		case len(k) > 1 && (k[0] == 'u' || k[0] == 's'):
			i, err := strconv.Atoi(k[1:])
			if err != nil || i < 0 {
				return nil, fmt.Errorf("oplog: bad array diff field %q", k)
			}
			for len(vals) <= i {
				vals = append(vals, bsoncore.Value{Type: bsoncore.TypeNull})
			}
			if k[0] == 'u' {
				vals[i] = v
				delete(subs, i)
			} else {
				sd, ok := v.DocumentOK()
				if !ok {
					return nil, fmt.Errorf("oplog: subdiff %s is not a document", k)
				}
				subs[i] = sd
			}
		default:
			return nil, fmt.Errorf("oplog: unknown array diff field %q", k)
		}
	}
	for i, v := range vals {
		key := strconv.Itoa(i)
		if sd, ok := subs[i]; ok {
			if dst, err = applySub(dst, key, v, sd); err != nil {
				return nil, err
			}
			continue
		}
		dst = bsoncore.AppendValueElement(dst, key, v)
	}
	return dst, nil
}
