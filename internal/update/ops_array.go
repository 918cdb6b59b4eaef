package update

import (
	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/query"
	"math"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// arrayValues returns the elements of an array value.
func arrayValues(v bsoncore.Value) []bsoncore.Value {
	vals, _ := bsoncore.Document(v.Data).Values()
	return vals
}

// mustBeArrayForPush reports the error $push gives on a non-array field.
func pushNonArray(a *applier, l *loc) error {
	return errs.New(errs.BadValue, "The field '%s' must be an array but is of type %s in document {%s}",
		l.name, bsonutil.TypeName(l.node.t), a.idString())
}

// integral returns a number as int64 if it has an integral value.
func integral(v bsoncore.Value) (int64, bool) {
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return bsonutil.AsInt64(v), true
	case bsoncore.TypeDouble, bsoncore.TypeDecimal128:
		f := bsonutil.AsFloat64(v)
		if f != math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) > 1<<62 {
			return 0, false
		}
		return int64(f), true
	}
	return 0, false
}

// $push

type sortKey struct {
	path []string
	dir  int
}

type pushSort struct {
	dir     int       // whole-value sort when pattern is nil
	pattern []sortKey // sort embedded documents by these fields
	coll    *collation.Collator
}

type pushOp struct {
	each     []bsoncore.Value
	hasPos   bool
	pos      int64
	hasSlice bool
	slice    int64
	sort     *pushSort
}

func parsePush(_ string, v bsoncore.Value) (leafOp, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return &pushOp{each: []bsoncore.Value{v}}, nil
	}
	if _, err := d.LookupErr("$each"); err != nil {
		return &pushOp{each: []bsoncore.Value{v}}, nil
	}
	op := &pushOp{}
	elems, _ := d.Elements()
	for _, e := range elems {
		ev := e.Value()
		switch e.Key() {
		case "$each":
			if ev.Type != bsoncore.TypeArray {
				return nil, errs.New(errs.BadValue,
					"The argument to $each in $push must be an array but it was of type: %s", bsonutil.TypeName(ev.Type))
			}
			op.each = arrayValues(ev)
		case "$slice":
			n, ok := integral(ev)
			if !ok {
				return nil, errs.New(errs.BadValue,
					"The value for $slice must be an integer value but was given type: %s", bsonutil.TypeName(ev.Type))
			}
			op.hasSlice, op.slice = true, n
		case "$position":
			n, ok := integral(ev)
			if !ok {
				return nil, errs.New(errs.BadValue,
					"The value for $position must be an integer value, not of type: %s", bsonutil.TypeName(ev.Type))
			}
			op.hasPos, op.pos = true, n
		case "$sort":
			s, err := parsePushSort(ev)
			if err != nil {
				return nil, err
			}
			op.sort = s
		default:
			return nil, errs.New(errs.BadValue, "Unrecognized clause in $push: %s", e.Key())
		}
	}
	return op, nil
}

func sortDir(v bsoncore.Value) (int, bool) {
	n, ok := integral(v)
	if !ok || (n != 1 && n != -1) {
		return 0, false
	}
	return int(n), true
}

func parsePushSort(v bsoncore.Value) (*pushSort, error) {
	if bsonutil.IsNumber(v.Type) {
		d, ok := sortDir(v)
		if !ok {
			return nil, errs.New(errs.BadValue, "The $sort element value must be either 1 or -1")
		}
		return &pushSort{dir: d}, nil
	}
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.BadValue,
			"The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields")
	}
	elems, _ := d.Elements()
	if len(elems) == 0 {
		return nil, errs.New(errs.BadValue, "The $sort pattern is empty when it should be a set of fields.")
	}
	s := &pushSort{}
	for _, e := range elems {
		k := e.Key()
		parts := strings.Split(k, ".")
		for _, p := range parts {
			if p == "" {
				return nil, errs.New(errs.BadValue, "The $sort field is a dotted field but has an empty part: %s", k)
			}
		}
		if strings.HasPrefix(k, "$") {
			return nil, errs.New(errs.BadValue, "The $sort field cannot be a $-prefixed field: %s", k)
		}
		dir, ok := sortDir(e.Value())
		if !ok {
			return nil, errs.New(errs.BadValue, "The $sort element value must be either 1 or -1")
		}
		s.pattern = append(s.pattern, sortKey{path: parts, dir: dir})
	}
	return s, nil
}

// lookupPath finds a dotted path in an embedded document (no array
// traversal); missing values are null, as mongod's sort key extraction
// gives them.
func lookupPath(v bsoncore.Value, path []string) bsoncore.Value {
	null := bsoncore.Value{Type: bsoncore.TypeNull}
	for _, p := range path {
		d, ok := v.DocumentOK()
		if !ok {
			return null
		}
		nv, err := d.LookupErr(p)
		if err != nil {
			return null
		}
		v = nv
	}
	return v
}

func (s *pushSort) less(x, y bsoncore.Value) bool {
	if s.pattern == nil {
		return s.dir*s.coll.Compare(x, y) < 0
	}
	for _, k := range s.pattern {
		if c := s.coll.Compare(lookupPath(x, k.path), lookupPath(y, k.path)); c != 0 {
			return k.dir*c < 0
		}
	}
	return false
}

func (o *pushOp) apply(a *applier, l *loc) (bool, error) {
	var cur []bsoncore.Value
	var old bsoncore.Value
	if l.node != nil {
		if !l.node.isArray() {
			return false, pushNonArray(a, l)
		}
		old = l.node.value()
		cur = arrayValues(old)
	}
	pos := int64(len(cur))
	if o.hasPos {
		pos = o.pos
		if pos < 0 {
			pos = max(int64(len(cur))+pos, 0)
		}
		pos = min(pos, int64(len(cur)))
	}
	out := make([]bsoncore.Value, 0, len(cur)+len(o.each))
	out = append(out, cur[:pos]...)
	out = append(out, o.each...)
	out = append(out, cur[pos:]...)
	if o.sort != nil {
		sort.SliceStable(out, func(i, j int) bool { return o.sort.less(out[i], out[j]) })
	}
	if o.hasSlice {
		n := o.slice
		switch {
		case n >= 0 && n < int64(len(out)):
			out = out[:n]
		case n < 0 && -n < int64(len(out)):
			out = out[int64(len(out))+n:]
		}
	}
	nv := bsoncore.Value{Type: bsoncore.TypeArray, Data: bsoncore.BuildArray(nil, out...)}
	if l.node != nil && sameValue(old, nv) {
		return false, nil
	}
	if err := a.set(l, newValue(nv)); err != nil {
		return false, err
	}
	return true, nil
}

// $addToSet

type addToSetOp struct {
	vals []bsoncore.Value
	coll *collation.Collator
}

func parseAddToSet(_ string, v bsoncore.Value) (leafOp, error) {
	vals := []bsoncore.Value{v}
	if d, ok := v.DocumentOK(); ok {
		elems, _ := d.Elements()
		if len(elems) > 0 && elems[0].Key() == "$each" {
			ev := elems[0].Value()
			if ev.Type != bsoncore.TypeArray {
				return nil, errs.New(errs.TypeMismatch,
					"The argument to $each in $addToSet must be an array but it was of type %s", bsonutil.TypeName(ev.Type))
			}
			if len(elems) > 1 {
				return nil, errs.New(errs.BadValue,
					"Found unexpected fields after $each in $addToSet: %s", bsonutil.FormatDoc(d, msgStyle))
			}
			vals = dedupe(arrayValues(ev))
		}
	}
	return &addToSetOp{vals: vals}, nil
}

func dedupe(vals []bsoncore.Value) []bsoncore.Value {
	out := vals[:0:0]
	for _, v := range vals {
		if !containsValue(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func containsValue(vals []bsoncore.Value, v bsoncore.Value) bool {
	for _, x := range vals {
		if bsonutil.Compare(x, v) == 0 {
			return true
		}
	}
	return false
}

func (o *addToSetOp) apply(a *applier, l *loc) (bool, error) {
	if l.node == nil {
		nv := bsoncore.Value{Type: bsoncore.TypeArray, Data: bsoncore.BuildArray(nil, o.vals...)}
		return true, a.set(l, newValue(nv))
	}
	if !l.node.isArray() {
		return false, errs.New(errs.BadValue,
			"Cannot apply $addToSet to non-array field. Field named '%s' has non-array type %s",
			l.name, bsonutil.TypeName(l.node.t))
	}
	l.node.expand()
	changed := false
	for _, v := range o.vals {
		present := false
		for _, k := range l.node.kids {
			if o.coll.Compare(k.value(), v) == 0 {
				present = true
				break
			}
		}
		if !present {
			l.node.kids = append(l.node.kids, newValue(v))
			changed = true
		}
	}
	return changed, nil
}

// $pop

type popOp struct{ first bool }

func parsePop(path string, v bsoncore.Value) (leafOp, error) {
	if !bsonutil.IsNumber(v.Type) {
		return nil, errs.New(errs.FailedToParse, "Expected a number in: %s", bsonutil.FormatElem(path, v, msgStyle))
	}
	n, ok := integral(v)
	if !ok {
		return nil, errs.New(errs.FailedToParse, "Expected an integer: %s", bsonutil.FormatElem(path, v, msgStyle))
	}
	if n != 1 && n != -1 {
		return nil, errs.New(errs.FailedToParse, "$pop expects 1 or -1, found: %d", n)
	}
	return &popOp{first: n == -1}, nil
}

func (o *popOp) apply(a *applier, l *loc) (bool, error) {
	if l.node == nil {
		return false, popBlocked(l)
	}
	if !l.node.isArray() {
		return false, errs.New(errs.TypeMismatch, "Path '%s' contains an element of non-array type '%s'",
			l.dotted(), bsonutil.TypeName(l.node.t))
	}
	l.node.expand()
	if len(l.node.kids) == 0 {
		return false, nil
	}
	if o.first {
		l.node.kids = l.node.kids[1:]
	} else {
		l.node.kids = l.node.kids[:len(l.node.kids)-1]
	}
	return true, nil
}

// popBlocked is mongod's PathNotViable for a $pop whose missing path
// runs into a value that cannot hold it (a scalar, or an array reached
// with a name that is not an index); a path that is only missing is
// fine.
func popBlocked(l *loc) error {
	for p := l; p.parent != nil; p = p.parent {
		pn := p.parent.node
		if pn == nil {
			continue
		}
		if pn.isDoc() {
			return nil
		}
		if _, ok := arrayIndex(p.name); ok && pn.isArray() {
			return nil
		}
		return errs.New(errs.PathNotViable, "Cannot use the part (%s) of (%s) to traverse the element ({%s})",
			p.name, l.dotted(), bsonutil.FormatElem(p.parent.name, pn.value(), msgStyle))
	}
	return nil
}

// $pull and $pullAll

type pullOp struct {
	name  string
	match func(v bsoncore.Value) bool
	// raw is the operand, kept to rebuild match under a collation.
	raw bsoncore.Value
}

// pullWrapName is the field name a $pull condition and the element are
// wrapped under when the condition is an operator expression.
const pullWrapName = "pullElement"

func parsePull(_ string, v bsoncore.Value) (leafOp, error) {
	return newPull(v, nil)
}

// newPull builds $pull's matcher under a collation (nil: simple).
func newPull(v bsoncore.Value, coll *collation.Collator) (*pullOp, error) {
	op := &pullOp{name: "$pull", raw: v}
	d, isDoc := v.DocumentOK()
	if isDoc {
		// A condition, not a query of the collection: no $expr,
		// $where or $text, as mongod parses it.
		if err := query.RefuseSpecial(d); err != nil {
			return nil, err
		}
	}
	switch {
	case isDoc && !startsWithQueryOperator(d):
		m, err := compileFilterColl(d, coll)
		if err != nil {
			return nil, err
		}
		op.match = func(e bsoncore.Value) bool {
			ed, ok := e.DocumentOK()
			return ok && m.Match(ed)
		}
	case isDoc || v.Type == bsoncore.TypeRegex:
		f := bsoncore.BuildDocument(nil, bsoncore.AppendValueElement(nil, pullWrapName, v))
		m, err := compileFilterColl(f, coll)
		if err != nil {
			return nil, err
		}
		op.match = func(e bsoncore.Value) bool { return matchWrapped(m, pullWrapName, e) }
	default:
		op.match = func(e bsoncore.Value) bool { return coll.Compare(e, v) == 0 }
	}
	return op, nil
}

// startsWithQueryOperator reports whether a $pull condition is an
// operator expression on the element ({$gte: 6}) rather than a query on
// embedded documents ({score: 8}). $and, $or and $nor are queries.
func startsWithQueryOperator(d bsoncore.Document) bool {
	e, err := d.IndexErr(0)
	if err != nil {
		return false
	}
	k := e.Key()
	if !strings.HasPrefix(k, "$") {
		return false
	}
	switch k {
	case "$and", "$or", "$nor", "$expr", "$where", "$text", "$comment", "$jsonSchema", "$alwaysTrue", "$alwaysFalse":
		return false
	}
	return true
}

func parsePullAll(_ string, v bsoncore.Value) (leafOp, error) {
	if v.Type != bsoncore.TypeArray {
		return nil, errs.New(errs.BadValue, "$pullAll requires an array argument but was given a %s", bsonutil.TypeName(v.Type))
	}
	vals := arrayValues(v)
	return &pullOp{name: "$pullAll", raw: v, match: func(e bsoncore.Value) bool { return containsValue(vals, e) }}, nil
}

func (o *pullOp) apply(a *applier, l *loc) (bool, error) {
	if l.node == nil {
		return false, nil
	}
	if !l.node.isArray() {
		return false, errs.New(errs.BadValue, "Cannot apply %s to a non-array value", o.name)
	}
	l.node.expand()
	kept := l.node.kids[:0:0]
	for _, k := range l.node.kids {
		if !o.match(k.value()) {
			kept = append(kept, k)
		}
	}
	if len(kept) == len(l.node.kids) {
		return false, nil
	}
	l.node.kids = kept
	return true, nil
}
