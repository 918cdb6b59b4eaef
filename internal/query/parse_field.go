package query

import (
	"math"
	"strconv"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// pathOperators are the operators accepted under a field.
var pathOperators = map[string]bool{
	"$eq": true, "$ne": true, "$gt": true, "$gte": true, "$lt": true, "$lte": true,
	"$in": true, "$nin": true, "$exists": true, "$type": true, "$size": true, "$all": true,
	"$elemMatch": true, "$regex": true, "$options": true, "$mod": true,
	"$bitsAllSet": true, "$bitsAnySet": true, "$bitsAllClear": true, "$bitsAnyClear": true,
	"$near": true, "$nearSphere": true, "$geoNear": true, "$geoWithin": true,
	"$geoIntersects": true, "$within": true,
}

// firstKey returns the first field name of a document value.
func firstKey(v bsoncore.Value) (string, bsoncore.Value, bool) {
	it := newElemIter(v.Data)
	k, e, ok := it.next()
	return string(k), e, ok
}

// parseSub parses {field: {$op: arg, ...}} appending one node per operator.
func (p *parser) parseSub(name string, sub bsoncore.Document, out *[]Node, level int) error {
	elems, err := sub.Elements()
	if err != nil {
		return errs.New(errs.InvalidBSON, "invalid filter document: %v", err)
	}
	if len(elems) > 0 {
		switch elems[0].Key() {
		case "$near", "$nearSphere", "$geoNear":
			if level == levelSubDocument || p.depth != 1 {
				return errs.New(errs.BadValue, "$geoNear, $near, and $nearSphere are not allowed in this context")
			}
			n, err := parseNear(name, sub)
			if err != nil {
				return err
			}
			*out = append(*out, n)
			return nil
		}
	}
	for _, e := range elems {
		n, err := p.parseSubField(sub, name, e.Key(), e.Value(), level)
		if err != nil {
			return err
		}
		if n != nil {
			*out = append(*out, n)
		}
	}
	return nil
}

// parseSubField parses one operator of a field's operator document.
func (p *parser) parseSubField(context bsoncore.Document, name, op string, e bsoncore.Value, level int) (Node, error) {
	if op == "$not" {
		return p.parseNot(name, e, level)
	}
	if !pathOperators[op] {
		if op == "$where" {
			return nil, errs.New(errs.BadValue, "$where cannot be applied to a field")
		}
		return nil, errs.New(errs.BadValue, "unknown operator: %s", op)
	}
	switch op {
	case "$lt", "$lte", "$gt", "$gte", "$eq":
		if op != "$eq" && e.Type == bsoncore.TypeRegex {
			return nil, errs.New(errs.BadValue, "Can't have RegEx as arg to predicate over field '%s'.", name)
		}
		return newCompare(name, map[string]Op{"$lt": OpLT, "$lte": OpLTE, "$gt": OpGT, "$gte": OpGTE, "$eq": OpEQ}[op], e)
	case "$ne":
		if e.Type == bsoncore.TypeRegex {
			return nil, errs.New(errs.BadValue, "Can't have regex as arg to $ne.")
		}
		c, err := newCompare(name, OpEQ, e)
		if err != nil {
			return nil, err
		}
		return &NotNode{Child: c}, nil
	case "$in", "$nin":
		if e.Type != bsoncore.TypeArray {
			return nil, errs.New(errs.BadValue, "%s needs an array", op)
		}
		in, err := parseIn(name, e)
		if err != nil {
			return nil, err
		}
		if op == "$nin" {
			return &NotNode{Child: in}, nil
		}
		return in, nil
	case "$size":
		n, err := parseNonNegativeInt(op, e, math.MaxInt32)
		if err != nil {
			return nil, errs.New(errs.BadValue, "Failed to parse $size. %s", err.Msg)
		}
		return &SizeNode{pathed: newPathed(name), Size: int(n)}, nil
	case "$exists":
		ex := &ExistsNode{pathed: newPathed(name)}
		if trueValue(e) {
			return ex, nil
		}
		return &NotNode{Child: ex}, nil
	case "$type":
		return parseType(name, e)
	case "$mod":
		return parseMod(name, e)
	case "$options":
		for _, x := range mustElements(context) {
			if x.Key() == "$regex" {
				return nil, nil
			}
		}
		return nil, errs.New(errs.BadValue, "$options needs a $regex")
	case "$regex":
		return parseRegexDocument(name, context)
	case "$elemMatch":
		return p.parseElemMatch(name, e)
	case "$all":
		return p.parseAll(name, e)
	case "$bitsAllSet", "$bitsAnySet", "$bitsAllClear", "$bitsAnyClear":
		return parseBits(name, op, e)
	case "$geoWithin", "$within", "$geoIntersects":
		return parseGeo(name, op, e, context)
	case "$near", "$nearSphere", "$geoNear", "$minDistance", "$maxDistance":
		return nil, errs.New(errs.BadValue, "near must be first in: %s", showDoc(context))
	}
	return nil, errs.New(errs.NotImplemented, "%s is not supported by Lode", op)
}

func mustElements(d bsoncore.Document) []bsoncore.Element {
	el, _ := d.Elements()
	return el
}

// trueValue is MongoDB's BSONElement::trueValue.
func trueValue(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeBoolean:
		return v.Boolean()
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return bsonutil64(v) != 0
	case bsoncore.TypeDouble:
		return v.Double() != 0
	case bsoncore.TypeDecimal128:
		f := bsonutilFloat(v)
		return f != 0
	case bsoncore.TypeNull, bsoncore.TypeUndefined, 0:
		return false
	}
	return true
}

func (p *parser) parseNot(name string, e bsoncore.Value, level int) (Node, error) {
	if e.Type == bsoncore.TypeRegex {
		pat, opts := e.Regex()
		r, err := newRegexNode(name, pat, opts)
		if err != nil {
			return nil, err
		}
		return &NotNode{Child: r}, nil
	}
	if e.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.BadValue, "$not needs a regex or a document")
	}
	doc := e.Document()
	if len(mustElements(doc)) == 0 {
		return nil, errs.New(errs.BadValue, "$not cannot be empty")
	}
	and := &AndNode{}
	if err := p.parseSub(name, doc, &and.Children, level); err != nil {
		return nil, err
	}
	return &NotNode{Child: simplify(and)}, nil
}

// parseIn parses the array of $in/$nin.
func parseIn(name string, e bsoncore.Value) (*InNode, error) {
	in := &InNode{pathed: newPathed(name)}
	arr := e.Array()
	// Two passes over the array in place, counting then adding: a
	// 1M-element $in must parse in linear time and memory plus one sort
	// (issue 15), without growing a slice of a million values.
	n, err := bsonutil.CountElements(arr)
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid $in array: %v", err)
	}
	in.Values = make([]bsoncore.Value, 0, n)
	if err := bsonutil.EachElement(arr, func(el bsoncore.Element) error { return in.add(el.Value()) }); err != nil {
		return nil, err
	}
	in.Values = sortDistinct(in.Values)
	return in, nil
}

// add adds one $in operand.
func (in *InNode) add(v bsoncore.Value) error {
	{
		if isExpressionDocument(v, false) {
			return errs.New(errs.BadValue, "cannot nest $ under $in")
		}
		switch v.Type {
		case bsoncore.TypeRegex:
			pat, opts := v.Regex()
			r, err := newRegexNode("", pat, opts)
			if err != nil {
				return err
			}
			in.Regexes = append(in.Regexes, r)
			return nil
		case bsoncore.TypeUndefined:
			return errs.New(errs.BadValue, "InMatchExpression equality cannot be undefined")
		case bsoncore.TypeNull:
			in.HasNull = true
		}
		in.Values = append(in.Values, v)
	}
	return nil
}

// parseNonNegativeInt is MongoDB's parseIntegerElementToNonNegative{Int,Long}.
func parseNonNegativeInt(key string, v bsoncore.Value, max int64) (int64, *errs.Error) {
	if !isNumber(v) {
		return 0, errs.New(errs.FailedToParse, "Expected a number in: %s", bsonutil.FormatElem(key, v, msgStyle))
	}
	if v.Type == bsoncore.TypeDouble || v.Type == bsoncore.TypeDecimal128 {
		f := bsonutilFloat(v)
		if math.IsNaN(f) {
			return 0, errs.New(errs.FailedToParse, "Expected an integer, but found NaN in: %s", bsonutil.FormatElem(key, v, msgStyle))
		}
		if f >= 9223372036854775808.0 || f < -9223372036854775808.0 {
			return 0, errs.New(errs.FailedToParse, "Cannot represent as a 64-bit integer: %s", bsonutil.FormatElem(key, v, msgStyle))
		}
		if f != math.Trunc(f) {
			return 0, errs.New(errs.FailedToParse, "Expected an integer: %s", bsonutil.FormatElem(key, v, msgStyle))
		}
	}
	n, _ := integral64(v)
	if n < 0 {
		return 0, errs.New(errs.FailedToParse, "Expected a positive number in: %s", bsonutil.FormatElem(key, v, msgStyle))
	}
	if n > max {
		return 0, errs.New(errs.FailedToParse, "Cannot represent as a 32-bit integer: %s", bsonutil.FormatElem(key, v, msgStyle))
	}
	return n, nil
}

// msgStyle is how the parser's messages quote values ("Expected a number
// in: $size: \"x\""): numbers and strings as mongod's BSONElement::toString
// prints them, except NaN and the infinities, the rest as extended JSON,
// as these messages always have (see bsonutil.Style).
var msgStyle = bsonutil.Style{GoNonFinite: true, FixedIntegral: true, JSONOther: true}

// typeAliases maps $type aliases to BSON types.
var typeAliases = map[string]bsoncore.Type{
	"double": bsoncore.TypeDouble, "string": bsoncore.TypeString, "object": bsoncore.TypeEmbeddedDocument,
	"array": bsoncore.TypeArray, "binData": bsoncore.TypeBinary, "undefined": bsoncore.TypeUndefined,
	"objectId": bsoncore.TypeObjectID, "bool": bsoncore.TypeBoolean, "date": bsoncore.TypeDateTime,
	"null": bsoncore.TypeNull, "regex": bsoncore.TypeRegex, "dbPointer": bsoncore.TypeDBPointer,
	"javascript": bsoncore.TypeJavaScript, "symbol": bsoncore.TypeSymbol,
	"javascriptWithScope": bsoncore.TypeCodeWithScope, "int": bsoncore.TypeInt32,
	"timestamp": bsoncore.TypeTimestamp, "long": bsoncore.TypeInt64, "decimal": bsoncore.TypeDecimal128,
	"minKey": bsoncore.TypeMinKey, "maxKey": bsoncore.TypeMaxKey,
}

func parseType(name string, e bsoncore.Value) (Node, error) {
	n := &TypeNode{pathed: newPathed(name)}
	add := func(v bsoncore.Value) error {
		switch {
		case isNumber(v):
			code, ok := integral64(v)
			if !ok || !validTypeCode(code) {
				return errs.New(errs.BadValue, "Invalid numerical type code: %s", strconv.FormatFloat(bsonutilFloat(v), 'g', -1, 64))
			}
			n.Types = append(n.Types, bsoncore.Type(byte(code)))
		case v.Type == bsoncore.TypeString:
			s := v.StringValue()
			if s == "number" {
				n.Number = true
				return nil
			}
			t, ok := typeAliases[s]
			if !ok {
				return errs.New(errs.BadValue, "Unknown type name alias: %s", s)
			}
			n.Types = append(n.Types, t)
		default:
			return errs.New(errs.TypeMismatch, "type must be represented as a number or a string")
		}
		return nil
	}
	if e.Type == bsoncore.TypeArray {
		vals, _ := e.Array().Values()
		for _, v := range vals {
			if err := add(v); err != nil {
				return nil, err
			}
		}
	} else if err := add(e); err != nil {
		return nil, err
	}
	if len(n.Types) == 0 && !n.Number {
		return nil, errs.New(errs.FailedToParse, "%s must match at least one type", name)
	}
	return n, nil
}

func validTypeCode(c int64) bool {
	return (c >= 1 && c <= 19) || c == -1 || c == 127
}

func parseMod(name string, e bsoncore.Value) (Node, error) {
	if e.Type != bsoncore.TypeArray {
		return nil, errs.New(errs.BadValue, "malformed mod, needs to be an array")
	}
	vals, _ := e.Array().Values()
	if len(vals) < 1 {
		return nil, errs.New(errs.BadValue, "malformed mod, not enough elements")
	}
	if !isNumber(vals[0]) {
		return nil, errs.New(errs.BadValue, "malformed mod, divisor not a number")
	}
	if len(vals) < 2 {
		return nil, errs.New(errs.BadValue, "malformed mod, not enough elements")
	}
	if !isNumber(vals[1]) {
		return nil, errs.New(errs.BadValue, "malformed mod, remainder not a number")
	}
	if len(vals) > 2 {
		return nil, errs.New(errs.BadValue, "malformed mod, too many elements")
	}
	d, ok := coerceInt64(vals[0])
	if !ok {
		return nil, errs.New(errs.BadValue, "malformed mod, divisor value is invalid :: caused by :: Unable to coerce value to integral type")
	}
	r, ok := coerceInt64(vals[1])
	if !ok {
		return nil, errs.New(errs.BadValue, "malformed mod, remainder value is invalid :: caused by :: Unable to coerce value to integral type")
	}
	if d == 0 {
		return nil, errs.New(errs.BadValue, "divisor cannot be 0")
	}
	return &ModNode{pathed: newPathed(name), Divisor: d, Remainder: r}, nil
}

// coerceInt64 truncates a number toward zero, refusing NaN, infinities and
// values out of int64's range.
func coerceInt64(v bsoncore.Value) (int64, bool) {
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return bsonutil64(v), true
	}
	f := bsonutilFloat(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	f = math.Trunc(f)
	if f >= 9223372036854775808.0 || f < -9223372036854775808.0 {
		return 0, false
	}
	return int64(f), true
}

func parseRegexDocument(name string, context bsoncore.Document) (Node, error) {
	var pattern, options string
	for _, x := range mustElements(context) {
		v := x.Value()
		switch x.Key() {
		case "$regex":
			switch v.Type {
			case bsoncore.TypeString:
				pattern = v.StringValue()
			case bsoncore.TypeRegex:
				p, o := v.Regex()
				pattern = p
				if o != "" {
					if options != "" {
						return nil, errs.New(errs.Location51074, "options set in both $regex and $options")
					}
					options = o
				}
			default:
				return nil, errs.New(errs.BadValue, "$regex has to be a string")
			}
		case "$options":
			if v.Type != bsoncore.TypeString {
				return nil, errs.New(errs.BadValue, "$options has to be a string")
			}
			if options != "" {
				return nil, errs.New(errs.Location51075, "options set in both $regex and $options")
			}
			options = v.StringValue()
		}
	}
	return newRegexNode(name, pattern, options)
}

func parseBits(name, op string, e bsoncore.Value) (Node, error) {
	n := &BitsNode{pathed: newPathed(name)}
	n.Op = map[string]BitsOp{"$bitsAllSet": BitsAllSet, "$bitsAnySet": BitsAnySet,
		"$bitsAllClear": BitsAllClear, "$bitsAnyClear": BitsAnyClear}[op]
	switch {
	case e.Type == bsoncore.TypeArray:
		it := newElemIter(e.Data)
		for {
			k, v, ok := it.next()
			if !ok {
				break
			}
			p, err := parseNonNegativeInt(string(k), v, math.MaxInt32)
			if err != nil {
				return nil, errs.New(errs.BadValue, "Failed to parse bit position. %s", err.Msg)
			}
			n.Positions = append(n.Positions, uint32(p))
		}
	case isNumber(e):
		m, err := parseNonNegativeInt(op, e, math.MaxInt64)
		if err != nil {
			return nil, err
		}
		for i := uint32(0); i < 64; i++ {
			if uint64(m)&(1<<i) != 0 {
				n.Positions = append(n.Positions, i)
			}
		}
	case e.Type == bsoncore.TypeBinary:
		_, data := e.Binary()
		for i, b := range data {
			for j := uint32(0); j < 8; j++ {
				if b&(1<<j) != 0 {
					n.Positions = append(n.Positions, uint32(i)*8+j)
				}
			}
		}
	default:
		return nil, errs.New(errs.BadValue, "%s takes an Array, a number, or a BinData but received: %s", name, bsonutil.FormatElem(op, e, msgStyle))
	}
	return n, nil
}

func (p *parser) parseElemMatch(name string, e bsoncore.Value) (Node, error) {
	if e.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.BadValue, "$elemMatch needs an Object")
	}
	valueForm := false
	if isExpressionDocument(e, true) {
		k, _, _ := firstKey(e)
		valueForm = !pathlessOperators[k]
	}
	if valueForm {
		n := &ElemMatchValueNode{pathed: newPathed(name)}
		if err := p.parseSub("", e.Document(), &n.Preds, levelSubDocument); err != nil {
			return nil, err
		}
		return n, nil
	}
	sub, err := p.parseDoc(e.Document(), levelSubDocument)
	if err != nil {
		return nil, err
	}
	return &ElemMatchObjectNode{pathed: newPathed(name), Sub: sub}, nil
}

func (p *parser) parseAll(name string, e bsoncore.Value) (Node, error) {
	if e.Type != bsoncore.TypeArray {
		return nil, errs.New(errs.BadValue, "$all needs an array")
	}
	vals, _ := e.Array().Values()
	all := &AllNode{pathed: newPathed(name)}
	if len(vals) > 0 && vals[0].Type == bsoncore.TypeEmbeddedDocument {
		if k, _, _ := firstKey(vals[0]); k == "$elemMatch" {
			for _, v := range vals {
				if v.Type != bsoncore.TypeEmbeddedDocument {
					return nil, errs.New(errs.BadValue, "$all/$elemMatch has to be consistent")
				}
				k, arg, _ := firstKey(v)
				if k != "$elemMatch" {
					return nil, errs.New(errs.BadValue, "$all/$elemMatch has to be consistent")
				}
				n, err := p.parseElemMatch(name, arg)
				if err != nil {
					return nil, err
				}
				all.Nodes = append(all.Nodes, n)
			}
			return all, nil
		}
	}
	for _, v := range vals {
		switch {
		case v.Type == bsoncore.TypeRegex:
			pat, opts := v.Regex()
			r, err := newRegexNode(name, pat, opts)
			if err != nil {
				return nil, err
			}
			all.Nodes = append(all.Nodes, r)
		case v.Type == bsoncore.TypeEmbeddedDocument && isKeywordFirst(v):
			return nil, errs.New(errs.BadValue, "no $ expressions in $all")
		default:
			c, err := newCompare(name, OpEQ, v)
			if err != nil {
				return nil, err
			}
			all.Nodes = append(all.Nodes, c)
		}
	}
	return all, nil
}

func isKeywordFirst(v bsoncore.Value) bool {
	k, _, ok := firstKey(v)
	return ok && pathOperators[k]
}
