package update

import (
	"bytes"
	"github.com/lodedb/lode/internal/collation"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// leafOp is one operator applied at one path. apply reports whether the
// document changed.
type leafOp interface {
	apply(a *applier, l *loc) (bool, error)
}

// sameValue reports binary identity (same type, same bytes): mongod's
// test for a no-op $set.
func sameValue(x, y bsoncore.Value) bool {
	return x.Type == y.Type && bytes.Equal(x.Data, y.Data)
}

// setTo stores v at l unless l already holds the identical value.
func setTo(a *applier, l *loc, v bsoncore.Value) (bool, error) {
	if l.node != nil && sameValue(l.node.value(), v) {
		return false, nil
	}
	if err := a.set(l, newValue(v)); err != nil {
		return false, err
	}
	return true, nil
}

// $set

type setOp struct {
	v        bsoncore.Value
	onInsert bool
}

func parseSet(_ string, v bsoncore.Value) (leafOp, error) { return &setOp{v: v}, nil }

func parseSetOnInsert(_ string, v bsoncore.Value) (leafOp, error) {
	return &setOp{v: v, onInsert: true}, nil
}

func (o *setOp) apply(a *applier, l *loc) (bool, error) {
	if o.onInsert && !a.opts.Insert {
		return false, nil
	}
	return setTo(a, l, o.v)
}

// $unset

type unsetOp struct{}

func parseUnset(string, bsoncore.Value) (leafOp, error) { return unsetOp{}, nil }

func (unsetOp) apply(a *applier, l *loc) (bool, error) {
	if l.node == nil {
		return false, nil
	}
	a.remove(l)
	return true, nil
}

// placeholderOp reserves the source path of a $rename in the tree.
type placeholderOp struct{}

func (placeholderOp) apply(*applier, *loc) (bool, error) { return false, nil }

// $inc and $mul

type arithOp struct {
	v   bsoncore.Value
	mul bool
}

func (o *arithOp) name() string {
	if o.mul {
		return "$mul"
	}
	return "$inc"
}

func parseInc(path string, v bsoncore.Value) (leafOp, error) { return parseArith(path, v, false) }

func parseMul(path string, v bsoncore.Value) (leafOp, error) { return parseArith(path, v, true) }

func parseArith(path string, v bsoncore.Value, mul bool) (leafOp, error) {
	if !bsonutil.IsNumber(v.Type) {
		verb := "increment"
		if mul {
			verb = "multiply"
		}
		return nil, errs.New(errs.TypeMismatch, "Cannot %s with non-numeric argument: {%s}", verb, bsonutil.FormatElem(path, v, msgStyle))
	}
	return &arithOp{v: v, mul: mul}, nil
}

func (o *arithOp) apply(a *applier, l *loc) (bool, error) {
	if l.node == nil {
		v := o.v
		if o.mul {
			v = zeroLike(o.v)
		}
		return setTo(a, l, v)
	}
	cur := l.node.value()
	if !bsonutil.IsNumber(cur.Type) {
		return false, errs.New(errs.TypeMismatch,
			"Cannot apply %s to a value of non-numeric type. {%s} has the field '%s' of non-numeric type %s",
			o.name(), a.idString(), l.name, bsonutil.TypeName(cur.Type))
	}
	r, ok := arith(cur, o.v, o.mul)
	if !ok {
		return false, errs.New(errs.BadValue,
			"Failed to apply %s operations to current value (%s) for document {%s}",
			o.name(), debugNum(cur), a.idString())
	}
	return setTo(a, l, r)
}

// $min and $max

type compareOp struct {
	v    bsoncore.Value
	max  bool
	coll *collation.Collator
}

func parseMin(_ string, v bsoncore.Value) (leafOp, error) { return &compareOp{v: v}, nil }

func parseMax(_ string, v bsoncore.Value) (leafOp, error) { return &compareOp{v: v, max: true}, nil }

func (o *compareOp) apply(a *applier, l *loc) (bool, error) {
	if l.node != nil {
		c := o.coll.Compare(o.v, l.node.value())
		if c == 0 || (o.max && c < 0) || (!o.max && c > 0) {
			return false, nil
		}
	}
	return setTo(a, l, o.v)
}

// $currentDate

type currentDateOp struct{ timestamp bool }

func parseCurrentDate(_ string, v bsoncore.Value) (leafOp, error) {
	const need = "The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: {field : {$type: 'date'}}}"
	switch v.Type {
	case bsoncore.TypeBoolean:
		return &currentDateOp{}, nil
	case bsoncore.TypeEmbeddedDocument:
		elems, _ := v.Document().Elements()
		op, found := &currentDateOp{}, false
		for _, e := range elems {
			if e.Key() != "$type" {
				return nil, errs.New(errs.BadValue, "Unrecognized $currentDate option: %s", e.Key())
			}
			s, ok := e.Value().StringValueOK()
			if !ok || (s != "date" && s != "timestamp") {
				return nil, errs.New(errs.BadValue, need)
			}
			op.timestamp, found = s == "timestamp", true
		}
		if !found {
			return nil, errs.New(errs.BadValue, need)
		}
		return op, nil
	}
	return nil, errs.New(errs.BadValue,
		"%s is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'}).",
		bsonutil.TypeName(v.Type))
}

func (o *currentDateOp) apply(a *applier, l *loc) (bool, error) {
	var v bsoncore.Value
	if o.timestamp {
		if a.opts.Clock == nil {
			a.opts.Clock = new(TimestampClock)
		}
		v = bsoncore.Value{Type: bsoncore.TypeTimestamp,
			Data: bsoncore.AppendTimestamp(nil, uint32(a.opts.Now.Unix()), a.opts.Clock.Next())}
	} else {
		v = bsoncore.Value{Type: bsoncore.TypeDateTime, Data: bsoncore.AppendDateTime(nil, a.opts.Now.UnixMilli())}
	}
	return setTo(a, l, v)
}

// $rename

type renameOp struct {
	from []string
	to   string
}

func (o *renameOp) apply(a *applier, l *loc) (bool, error) {
	// Find the source, which may not go through an array.
	src := &loc{node: a.root}
	for _, p := range o.from {
		if src.node == nil || !src.node.isDoc() {
			if src.node != nil && src.node.isArray() {
				return false, errs.New(errs.BadValue,
					"The source field cannot be an array element, '%s' in doc with %s has an array field called '%s'",
					strings.Join(o.from, "."), bsonutil.FormatElem(src.name, src.node.value(), msgStyle), src.name)
			}
			return false, nil
		}
		src = a.child(src, p)
	}
	if src.node == nil {
		return false, nil
	}
	// The destination may not go through an array either.
	for p := l.parent; p != nil && p.parent != nil; p = p.parent {
		if p.node != nil && p.node.isArray() {
			return false, errs.New(errs.BadValue,
				"The destination field cannot be an array element, '%s' in doc with %s has an array field called '%s'",
				o.to, bsonutil.FormatElem(p.name, p.node.value(), msgStyle), p.name)
		}
	}
	if err := a.checkImmutable(src.path); err != nil {
		return false, err
	}
	moved := src.node
	if err := a.set(l, moved); err != nil {
		return false, err
	}
	a.remove(src)
	return true, nil
}

// $bit

type bitOpSpec struct {
	op string
	v  bsoncore.Value
}

type bitOpNode struct{ ops []bitOpSpec }

func parseBit(path string, v bsoncore.Value) (leafOp, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.BadValue,
			"The $bit modifier is not compatible with a %s. You must pass in an embedded document: {$bit: {field: {and/or/xor: #}}",
			bsonutil.TypeName(v.Type))
	}
	elems, _ := v.Document().Elements()
	n := &bitOpNode{}
	for _, e := range elems {
		k := e.Key()
		if k != "and" && k != "or" && k != "xor" {
			return nil, errs.New(errs.BadValue,
				"The $bit modifier only supports 'and', 'or', and 'xor', not '%s' which is an unknown operator: {%s}",
				k, bsonutil.FormatElem(k, e.Value(), msgStyle))
		}
		t := e.Value().Type
		if t != bsoncore.TypeInt32 && t != bsoncore.TypeInt64 {
			return nil, errs.New(errs.BadValue,
				"The $bit modifier field must be an Integer(32/64 bit); a '%s' is not supported here: {%s}",
				bsonutil.TypeName(t), bsonutil.FormatElem(k, e.Value(), msgStyle))
		}
		n.ops = append(n.ops, bitOpSpec{op: k, v: e.Value()})
	}
	if len(n.ops) == 0 {
		return nil, errs.New(errs.BadValue,
			"You must pass in at least one bitwise operation. The format is: {$bit: {field: {and/or/xor: #}}")
	}
	return n, nil
}

func (n *bitOpNode) apply(a *applier, l *loc) (bool, error) {
	cur := int32Value(0)
	if l.node != nil {
		cur = l.node.value()
		if cur.Type != bsoncore.TypeInt32 && cur.Type != bsoncore.TypeInt64 {
			return false, errs.New(errs.BadValue,
				"Cannot apply $bit to a value of non-integral type.{%s} has the field %s of non-integer type %s",
				a.idString(), l.name, bsonutil.TypeName(cur.Type))
		}
	}
	for _, o := range n.ops {
		cur = bitOp(cur, o.v, o.op)
	}
	return setTo(a, l, cur)
}
