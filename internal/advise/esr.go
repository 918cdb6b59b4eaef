package advise

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// KeyField is one field of an index key pattern.
type KeyField struct {
	Field string
	Dir   int // 1 or -1
}

// Key is an ordered key pattern.
type Key []KeyField

// D returns the key as a driver document.
func (k Key) D() bson.D {
	d := make(bson.D, len(k))
	for i, f := range k {
		d[i] = bson.E{Key: f.Field, Value: f.Dir}
	}
	return d
}

// String renders the key as mongod's planSummary does: { a: 1, b: -1 }.
func (k Key) String() string {
	parts := make([]string, len(k))
	for i, f := range k {
		parts[i] = fmt.Sprintf("%s: %d", f.Field, f.Dir)
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// JS renders the key as a JavaScript object literal that mongosh
// accepts: { a: 1, "metadata.key": -1 } (a field that is not a plain
// identifier is quoted).
func (k Key) JS() string {
	parts := make([]string, len(k))
	for i, f := range k {
		parts[i] = fmt.Sprintf("%s: %d", jsKey(f.Field), f.Dir)
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// jsKey returns name as a JavaScript property name: bare when it is an
// identifier, else a quoted string.
func jsKey(name string) string {
	ident := name != ""
	for i, r := range name {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			ident = false
			break
		}
	}
	if ident {
		return name
	}
	return JSString(name)
}

// JSString returns s as a JavaScript string literal (JSON's quoting,
// which JavaScript reads the same).
func JSString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Name is the default index name (a_1_b_-1).
func (k Key) Name() string {
	parts := make([]string, 0, 2*len(k))
	for _, f := range k {
		parts = append(parts, f.Field, fmt.Sprint(f.Dir))
	}
	return strings.Join(parts, "_")
}

// MarshalJSON writes the key as an ordered JSON object.
func (k Key) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range k {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := json.Marshal(f.Field)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%s:%d", name, f.Dir)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Equal reports whether k and o are the same key pattern.
func (k Key) Equal(o Key) bool {
	if len(k) != len(o) {
		return false
	}
	for i := range k {
		if k[i] != o[i] {
			return false
		}
	}
	return true
}

// IsPrefixOf reports whether k is a prefix of o (o itself included).
func (k Key) IsPrefixOf(o Key) bool {
	if len(k) > len(o) {
		return false
	}
	for i := range k {
		if k[i] != o[i] {
			return false
		}
	}
	return true
}

// KeyFromD reads a key pattern document; non-numeric fields (text, geo)
// make ok false.
func KeyFromD(d bson.D) (k Key, ok bool) {
	for _, e := range d {
		var n float64
		switch v := e.Value.(type) {
		case int32:
			n = float64(v)
		case int64:
			n = float64(v)
		case float64:
			n = v
		case int:
			n = float64(v)
		default:
			return nil, false
		}
		dir := 1
		if n < 0 {
			dir = -1
		}
		k = append(k, KeyField{Field: e.Key, Dir: dir})
	}
	return k, len(k) > 0
}

// maxMergeScans is Lode's internalQueryMaxScansToExplode: up to that many
// $in point combinations, an index provides a sort by merging the scans.
const maxMergeScans = 200

// candidate is the index the ESR rule derives for one shape, with the
// parts it was built from (merge.go).
type candidate struct {
	key  Key
	eq   []string   // equality fields, $in points included
	sort []KeyField // sort fields after the equality fields
	rng  []string   // range fields
}

// preds are a filter's indexable predicates by kind, in filter order.
type preds struct {
	eq, rng []string
	in      map[string]int // $in with several values: field -> count
	inOrder []string
	// skip is why the shape cannot get an index ("" when it can).
	skip string
}

func (p *preds) add(list *[]string, path string) {
	for _, f := range *list {
		if f == path {
			return
		}
	}
	*list = append(*list, path)
}

// derive builds the ESR candidate for a filter and sort, or says why
// there is none.
func derive(filter bson.Raw, sort bson.D) (candidate, string) {
	p := &preds{in: map[string]int{}}
	if err := p.doc("", filter); err != nil {
		return candidate{}, err.Error()
	}
	if p.skip != "" {
		return candidate{}, p.skip
	}
	var c candidate
	has := map[string]bool{}
	push := func(f string, dir int) {
		if !has[f] {
			has[f] = true
			c.key = append(c.key, KeyField{Field: f, Dir: dir})
		}
	}
	for _, f := range p.eq {
		if f == "_id" {
			return candidate{}, "equality on _id: served by the _id index"
		}
		push(f, 1)
		c.eq = append(c.eq, f)
	}
	// Several-value $in fields are points: equality while the merged
	// scans stay within the planner's bound, else ranges.
	scans := 1
	for _, f := range p.inOrder {
		scans *= p.in[f]
	}
	for _, f := range p.inOrder {
		if has[f] {
			continue
		}
		if len(sort) > 0 && scans > maxMergeScans {
			p.add(&p.rng, f)
			continue
		}
		push(f, 1)
		c.eq = append(c.eq, f)
	}
	for _, e := range sort {
		if has[e.Key] {
			continue // a point field does not change the order
		}
		dir := 1
		if n, ok := number(e.Value); ok && n < 0 {
			dir = -1
		} else if !ok {
			return candidate{}, fmt.Sprintf("sort on %s is not by value ($meta)", e.Key)
		}
		push(e.Key, dir)
		c.sort = append(c.sort, KeyField{Field: e.Key, Dir: dir})
	}
	for _, f := range p.rng {
		c.rng = append(c.rng, f)
		push(f, 1)
	}
	if len(c.key) == 0 {
		return candidate{}, "no indexable predicate or sort"
	}
	if len(c.key) == 1 && c.key[0].Field == "_id" {
		return candidate{}, "_id alone: served by the _id index"
	}
	return c, ""
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

// doc reads the predicates of a filter document under prefix.
func (p *preds) doc(prefix string, d bson.Raw) error {
	elems, err := d.Elements()
	if err != nil {
		return fmt.Errorf("advise: bad filter: %w", err)
	}
	for _, e := range elems {
		k, v := e.Key(), e.Value()
		switch k {
		case "$and":
			arr, _ := v.ArrayOK()
			vals, _ := arr.Values()
			for _, x := range vals {
				if sub, ok := x.DocumentOK(); ok {
					if err := p.doc(prefix, sub); err != nil {
						return err
					}
				}
			}
			continue
		case "$or", "$nor":
			p.skip = k + " at the top level: not analysed"
			return nil
		case "$text":
			p.skip = "$text search: served by a text index"
			return nil
		}
		if strings.HasPrefix(k, "$") {
			continue // $expr, $where, $comment, $jsonSchema: not indexable
		}
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		if sub, ok := v.DocumentOK(); ok && isOperatorDoc(sub) {
			p.ops(path, sub)
			continue
		}
		p.add(&p.eq, path)
	}
	return nil
}

// isOperatorDoc reports whether d's first field is an operator.
func isOperatorDoc(d bson.Raw) bool {
	elems, err := d.Elements()
	return err == nil && len(elems) > 0 && strings.HasPrefix(elems[0].Key(), "$")
}

// ops reads the operators applied to path.
func (p *preds) ops(path string, d bson.Raw) {
	elems, _ := d.Elements()
	for _, e := range elems {
		v := e.Value()
		switch e.Key() {
		case "$eq":
			p.add(&p.eq, path)
		case "$in":
			arr, _ := v.ArrayOK()
			vals, _ := arr.Values()
			switch {
			case len(vals) == 1:
				p.add(&p.eq, path)
			case len(vals) > 1:
				if _, ok := p.in[path]; !ok {
					p.inOrder = append(p.inOrder, path)
				}
				p.in[path] = len(vals)
			}
		case "$gt", "$gte", "$lt", "$lte", "$ne", "$nin", "$exists", "$regex", "$type":
			p.add(&p.rng, path)
		case "$elemMatch":
			if sub, ok := v.DocumentOK(); ok {
				p.elemMatch(path, sub)
			}
		case "$all":
			arr, _ := v.ArrayOK()
			vals, _ := arr.Values()
			if len(vals) == 0 {
				continue
			}
			if sub, ok := vals[0].DocumentOK(); ok {
				if em, ok := sub.Lookup("$elemMatch").DocumentOK(); ok {
					p.elemMatch(path, em)
					continue
				}
			}
			p.add(&p.eq, path)
		case "$near", "$nearSphere", "$geoWithin", "$geoIntersects", "$within":
			p.skip = "geo query on " + path + ": served by a geo index"
		}
	}
}

// elemMatch reads an $elemMatch: on values ({$gte: .., $lt: ..}) it
// bounds path itself; on subdocuments it bounds the dotted paths.
func (p *preds) elemMatch(path string, d bson.Raw) {
	if isOperatorDoc(d) {
		p.ops(path, d)
		return
	}
	_ = p.doc(path, d)
}
