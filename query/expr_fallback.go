package query

import (
	"strings"

	"github.com/lodedb/lode/bsonutil"
	"github.com/lodedb/lode/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// This file holds a small evaluator for $expr, used because the shared
// aggregation expression package was not available when query was
// written. It supports literals, "$field.path" references, $literal,
// $eq $ne $gt $gte $lt $lte $cmp, $and $or $not, and nested documents and
// arrays of those.

var (
	valTrue  = bsoncore.Value{Type: bsoncore.TypeBoolean, Data: []byte{1}}
	valFalse = bsoncore.Value{Type: bsoncore.TypeBoolean, Data: []byte{0}}
)

func boolVal(b bool) bsoncore.Value {
	if b {
		return valTrue
	}
	return valFalse
}

func compileExpr(v bsoncore.Value) (exprFunc, error) {
	switch v.Type {
	case bsoncore.TypeString:
		s := v.StringValue()
		if strings.HasPrefix(s, "$$") {
			switch s {
			case "$$ROOT", "$$CURRENT":
				return func(doc []byte) bsoncore.Value {
					return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: doc}
				}, nil
			}
			return nil, errs.New(errs.Code(17276), "Use of undefined variable: %s", strings.TrimPrefix(strings.SplitN(s, ".", 2)[0], "$$"))
		}
		if strings.HasPrefix(s, "$") {
			if len(s) == 1 {
				return nil, errs.New(errs.Code(16872), "'$' by itself is not a valid FieldPath")
			}
			parts := splitPath(s[1:])
			return func(doc []byte) bsoncore.Value { return aggFieldPath(doc, parts) }, nil
		}
		return constExpr(v), nil
	case bsoncore.TypeArray:
		vals, _ := v.Array().Values()
		fs := make([]exprFunc, len(vals))
		for i, x := range vals {
			f, err := compileExpr(x)
			if err != nil {
				return nil, err
			}
			fs[i] = f
		}
		return func(doc []byte) bsoncore.Value {
			idx, arr := bsoncore.AppendArrayStart(nil)
			for i, f := range fs {
				r := f(doc)
				if r.Type == 0 {
					continue
				}
				arr = bsoncore.AppendValueElement(arr, itoa(i), r)
			}
			arr, _ = bsoncore.AppendArrayEnd(arr, idx)
			return bsoncore.Value{Type: bsoncore.TypeArray, Data: arr}
		}, nil
	case bsoncore.TypeEmbeddedDocument:
		elems, _ := v.Document().Elements()
		if len(elems) > 0 && strings.HasPrefix(elems[0].Key(), "$") {
			if len(elems) != 1 {
				return nil, errs.New(errs.Code(15983), "An object representing an expression must have exactly one field: %s", v.String())
			}
			return compileOperator(elems[0].Key(), elems[0].Value())
		}
		keys := make([]string, len(elems))
		fs := make([]exprFunc, len(elems))
		for i, e := range elems {
			f, err := compileExpr(e.Value())
			if err != nil {
				return nil, err
			}
			keys[i], fs[i] = e.Key(), f
		}
		return func(doc []byte) bsoncore.Value {
			idx, d := bsoncore.AppendDocumentStart(nil)
			for i, f := range fs {
				if r := f(doc); r.Type != 0 {
					d = bsoncore.AppendValueElement(d, keys[i], r)
				}
			}
			d, _ = bsoncore.AppendDocumentEnd(d, idx)
			return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: d}
		}, nil
	}
	return constExpr(v), nil
}

func constExpr(v bsoncore.Value) exprFunc { return func([]byte) bsoncore.Value { return v } }

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// args compiles an operator's argument list (a single non-array argument
// counts as a list of one).
func compileArgs(v bsoncore.Value) ([]exprFunc, error) {
	var vals []bsoncore.Value
	if v.Type == bsoncore.TypeArray {
		vals, _ = v.Array().Values()
	} else {
		vals = []bsoncore.Value{v}
	}
	fs := make([]exprFunc, len(vals))
	for i, x := range vals {
		f, err := compileExpr(x)
		if err != nil {
			return nil, err
		}
		fs[i] = f
	}
	return fs, nil
}

func compileOperator(op string, arg bsoncore.Value) (exprFunc, error) {
	if op == "$literal" {
		return constExpr(arg), nil
	}
	fs, err := compileArgs(arg)
	if err != nil {
		return nil, err
	}
	switch op {
	case "$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$cmp":
		if len(fs) != 2 {
			return nil, errs.New(errs.Code(16020), "Expression %s takes exactly 2 arguments. %d were passed in.", op, len(fs))
		}
		a, b := fs[0], fs[1]
		return func(doc []byte) bsoncore.Value {
			c := bsonutil.Compare(a(doc), b(doc))
			switch op {
			case "$eq":
				return boolVal(c == 0)
			case "$ne":
				return boolVal(c != 0)
			case "$gt":
				return boolVal(c > 0)
			case "$gte":
				return boolVal(c >= 0)
			case "$lt":
				return boolVal(c < 0)
			case "$lte":
				return boolVal(c <= 0)
			}
			return bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, int32(c))}
		}, nil
	case "$and":
		return func(doc []byte) bsoncore.Value {
			for _, f := range fs {
				if !truthy(f(doc)) {
					return valFalse
				}
			}
			return valTrue
		}, nil
	case "$or":
		return func(doc []byte) bsoncore.Value {
			for _, f := range fs {
				if truthy(f(doc)) {
					return valTrue
				}
			}
			return valFalse
		}, nil
	case "$not":
		if len(fs) != 1 {
			return nil, errs.New(errs.Code(16020), "Expression $not takes exactly 1 arguments. %d were passed in.", len(fs))
		}
		return func(doc []byte) bsoncore.Value { return boolVal(!truthy(fs[0](doc))) }, nil
	}
	return nil, errs.New(errs.InvalidPipelineOperator, "Unrecognized expression '%s'", op)
}

// aggFieldPath evaluates "$a.b" with aggregation semantics: documents are
// descended, arrays map the rest of the path over their elements
// (dropping elements where it is missing), and a missing field is missing.
func aggFieldPath(doc []byte, parts []string) bsoncore.Value {
	v := lookupField(doc, parts[0])
	if len(parts) == 1 {
		return v
	}
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument:
		return aggFieldPath(v.Data, parts[1:])
	case bsoncore.TypeArray:
		return aggArrayPath(v, parts[1:])
	}
	return missing
}

func aggArrayPath(arr bsoncore.Value, parts []string) bsoncore.Value {
	idx, out := bsoncore.AppendArrayStart(nil)
	n := 0
	it := newElemIter(arr.Data)
	for {
		_, e, ok := it.next()
		if !ok {
			break
		}
		var r bsoncore.Value
		switch e.Type {
		case bsoncore.TypeEmbeddedDocument:
			r = aggFieldPath(e.Data, parts)
		case bsoncore.TypeArray:
			r = aggArrayPath(e, parts)
		default:
			continue
		}
		if r.Type == 0 {
			continue
		}
		out = bsoncore.AppendValueElement(out, itoa(n), r)
		n++
	}
	out, _ = bsoncore.AppendArrayEnd(out, idx)
	return bsoncore.Value{Type: bsoncore.TypeArray, Data: out}
}
