package expr

import (
	"strings"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(map[string]opParser{
		"$mergeObjects": parseMergeObjects, "$getField": parseGetField,
		"$setField": parseSetField(false), "$unsetField": parseSetField(true),
	})
}

// MergeInto merges the fields of document v over those of the ordered
// field list (keys, vals) as $mergeObjects does; later values win while
// keeping the first position of a key.
func MergeInto(keys []string, vals map[string]bsoncore.Value, v bsoncore.Value) []string {
	forEach(v.Data, func(k []byte, x bsoncore.Value) bool {
		ks := string(k)
		if _, ok := vals[ks]; !ok {
			keys = append(keys, ks)
		}
		vals[ks] = x
		return true
	})
	return keys
}

func parseMergeObjects(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	es, err := parseArgs(args, pc)
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		var keys []string
		vals := map[string]bsoncore.Value{}
		for _, e := range es {
			v, err := e.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if IsNullish(v) {
				continue
			}
			if v.Type != bsoncore.TypeEmbeddedDocument {
				return Missing, errs.New(errs.Location40400, "$mergeObjects requires object inputs, but input %s is of type %s", bsonutil.FormatValue(v, msgStyle), bsonutil.TypeName(v.Type))
			}
			keys = MergeInto(keys, vals, v)
		}
		b := NewDocBuilder()
		for _, k := range keys {
			b.Append(k, vals[k])
		}
		return b.Value(), nil
	}), nil
}

func parseGetField(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	var fieldE, inputE Expr
	if args.Type == bsoncore.TypeEmbeddedDocument && !isOperatorDoc(args) {
		raw := rawSpec(args)
		if err := checkKeys(name, raw, errs.Location3041701, "field", "input"); err != nil {
			return nil, err
		}
		if raw["field"].Type == 0 {
			return nil, errs.New(errs.Location3041702, "$getField requires 'field' to be specified")
		}
		f, err := parseFieldName(name, raw["field"], pc)
		if err != nil {
			return nil, err
		}
		fieldE = f
		if raw["input"].Type == 0 {
			return nil, errs.New(errs.Location3041703, "$getField requires 'input' to be specified")
		}
		if inputE, err = parse(raw["input"], pc); err != nil {
			return nil, err
		}
	} else {
		f, err := parseFieldName(name, args, pc)
		if err != nil {
			return nil, err
		}
		fieldE = f
	}
	if inputE == nil {
		inputE, _ = parseFieldPath("$$CURRENT", pc)
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		fv, err := fieldE.Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		if fv.Type != bsoncore.TypeString {
			return Missing, errs.New(errs.Location3041704, "$getField requires 'field' to evaluate to type String, but got %s", bsonutil.TypeName(fv.Type))
		}
		in, err := inputE.Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		// A null input gives null; a missing one, or one that is not a
		// document, gives missing (mongod's).
		if in.Type == bsoncore.TypeNull || in.Type == bsoncore.TypeUndefined {
			return Null, nil
		}
		if in.Type != bsoncore.TypeEmbeddedDocument {
			return Missing, nil
		}
		return lookupField(in.Data, fv.StringValue()), nil
	}), nil
}

// parseFieldName parses the 'field' argument of $getField/$setField: a
// constant string (or $literal); field paths are rejected. $unsetField
// reports its errors as $setField, as mongod (which rewrites it into a
// $setField) does; each operator family has its own codes.
func parseFieldName(name string, v bsoncore.Value, pc *ParseContext) (Expr, error) {
	codePath, codeConst, codeString := errs.Location5654600, errs.Location5654601, errs.Location5654602
	if name != "$getField" {
		name = "$setField"
		codePath, codeConst, codeString = errs.Location4161108, errs.Location4161106, errs.Location4161107
	}
	if v.Type == bsoncore.TypeString && strings.HasPrefix(v.StringValue(), "$") {
		return nil, errs.New(codePath, "A field path reference which is not allowed in this context. Did you mean {$literal: '%s'}?", v.StringValue())
	}
	e, err := parse(v, pc)
	if err != nil {
		return nil, err
	}
	c, ok := e.(constExpr)
	if !ok {
		return nil, errs.New(codeConst, "%s requires 'field' to evaluate to a constant, but got a non-constant argument", name)
	}
	if c.v.Type != bsoncore.TypeString {
		return nil, errs.New(codeString, "%s requires 'field' to evaluate to type String, but got %s", name, bsonutil.TypeName(c.v.Type))
	}
	if name == "$setField" && strings.IndexByte(c.v.StringValue(), 0) >= 0 {
		// No document field can hold the name (BSON names end at NUL).
		return nil, errs.New(errs.BadValue, "%s requires 'field' without an embedded null byte", name)
	}
	return e, nil
}

func parseSetField(unset bool) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		if args.Type != bsoncore.TypeEmbeddedDocument {
			return nil, errs.New(errs.Location4161100, "%s only supports an object as its argument", name)
		}
		raw := rawSpec(args)
		allowed := []string{"field", "input", "value"}
		if unset {
			allowed = allowed[:2]
		}
		if err := checkKeys(name, raw, errs.Location4161101, allowed...); err != nil {
			return nil, err
		}
		// mongod's order and codes: field, then value, then input.
		if raw["field"].Type == 0 {
			return nil, errs.New(errs.Location4161102, "%s requires 'field' to be specified", name)
		}
		if !unset && raw["value"].Type == 0 {
			return nil, errs.New(errs.Location4161103, "$setField requires 'value' to be specified")
		}
		if raw["input"].Type == 0 {
			return nil, errs.New(errs.Location4161109, "%s requires 'input' to be specified", name)
		}
		fieldE, err := parseFieldName(name, raw["field"], pc)
		if err != nil {
			return nil, err
		}
		field, _ := IsConst(fieldE)
		fname := field.StringValue()
		inputE, err := parse(raw["input"], pc)
		if err != nil {
			return nil, err
		}
		var valueE Expr
		if !unset {
			if valueE, err = parse(raw["value"], pc); err != nil {
				return nil, err
			}
		}
		return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
			in, err := inputE.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if IsNullish(in) {
				return Null, nil
			}
			if in.Type != bsoncore.TypeEmbeddedDocument {
				return Missing, errs.New(errs.Location4161105, "%s requires 'input' to evaluate to type Object", name)
			}
			var val bsoncore.Value
			if valueE != nil {
				if val, err = valueE.Eval(doc, vars); err != nil {
					return Missing, err
				}
			}
			b := NewDocBuilder()
			done := false
			forEach(in.Data, func(k []byte, x bsoncore.Value) bool {
				if string(k) == fname {
					done = true
					b.Append(fname, val) // missing ($$REMOVE / unset) drops it
					return true
				}
				b.Append(string(k), x)
				return true
			})
			if !done {
				b.Append(fname, val)
			}
			return b.Value(), nil
		}), nil
	}
}
