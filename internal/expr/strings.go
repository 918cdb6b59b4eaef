package expr

import (
	"strings"
	"unicode/utf8"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(map[string]opParser{
		"$concat": parseConcat, "$substr": parseSubstrBytes, "$substrBytes": parseSubstrBytes,
		"$substrCP": parseSubstrCP, "$toLower": parseCase(false), "$toUpper": parseCase(true),
		"$split": parseSplit, "$trim": parseTrim(true, true), "$ltrim": parseTrim(true, false),
		"$rtrim": parseTrim(false, true), "$strLenCP": parseStrLen(true),
		"$strLenBytes": parseStrLen(false), "$indexOfCP": parseIndexOf(true),
		"$indexOfBytes": parseIndexOf(false), "$replaceOne": parseReplace(false),
		"$replaceAll": parseReplace(true), "$strcasecmp": parseStrcasecmp,
	})
}

// coerceToString converts a value to a string as $substr, $toLower and
// $strcasecmp do: null and missing become "".
func coerceToString(name string, v bsoncore.Value) (string, error) {
	switch v.Type {
	case 0, bsoncore.TypeNull, bsoncore.TypeUndefined:
		return "", nil
	case bsoncore.TypeString, bsoncore.TypeSymbol:
		return str(v), nil
	case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble, bsoncore.TypeDecimal128:
		return numToString(v), nil
	case bsoncore.TypeDateTime:
		return formatDate(defaultDateFormat, v.DateTime(), utcZone())
	case bsoncore.TypeTimestamp:
		t, _ := v.Timestamp()
		return formatDate(defaultDateFormat, int64(t)*1000, utcZone())
	case bsoncore.TypeJavaScript:
		return v.JavaScript(), nil
	}
	return "", errs.New(errs.Location16007, "can't convert from BSON type %s to String", bsonutil.TypeName(v.Type))
}

func parseConcat(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	es, err := parseArgs(args, pc)
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		// Each operand is checked in order, as mongod does (a null before
		// a non-string answers null, a non-string before a null fails),
		// and the result is sized before anything is copied: one
		// allocation and one copy, and no copy at all of a result past
		// 16 MiB, which a loop of doublings reaches in a few steps.
		var small [4][]byte
		parts, n := small[:0], 0
		for _, e := range es {
			v, err := e.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if IsNullish(v) {
				return Null, nil
			}
			if !isString(v) {
				return Missing, errs.New(errs.Location16702, "$concat only supports strings, not %s", bsonutil.TypeName(v.Type))
			}
			b := stringBytes(v)
			if err := checkStringLen(n + len(b)); err != nil {
				return Missing, err
			}
			parts, n = append(parts, b), n+len(b)
		}
		return stringOfParts(parts, n), nil
	}), nil
}

func parseSubstrBytes(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	es, err := parseN(name, args, pc, 3, 3)
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		vs, err := evalAll(es, doc, vars)
		if err != nil {
			return Missing, err
		}
		s, err := coerceToString(name, vs[0])
		if err != nil {
			return Missing, err
		}
		if !isNum(vs[1]) {
			return Missing, errs.New(errs.Location16034, "%s:  starting index must be a numeric type (is BSON type %s)", name, bsonutil.TypeName(vs[1].Type))
		}
		if !isNum(vs[2]) {
			return Missing, errs.New(errs.Location16035, "%s:  length must be a numeric type (is BSON type %s)", name, bsonutil.TypeName(vs[2].Type))
		}
		start, _ := roundToInt64(vs[1])
		n, _ := roundToInt64(vs[2])
		if start < 0 {
			return Missing, errs.New(errs.Location50752, "%s:  starting index must be non-negative (got: %d)", name, start)
		}
		if start >= int64(len(s)) {
			return String(""), nil
		}
		if start > 0 && !utf8.RuneStart(s[start]) {
			return Missing, errs.New(errs.Location28656, "%s:  Invalid range, starting index is a UTF-8 continuation byte.", name)
		}
		end := int64(len(s))
		if n >= 0 && start+n < end {
			end = start + n
		}
		if end < int64(len(s)) && !utf8.RuneStart(s[end]) {
			return Missing, errs.New(errs.Location28657, "%s:  Invalid range, ending index is in the middle of a UTF-8 character.", name)
		}
		return String(s[start:end]), nil
	}), nil
}

func parseSubstrCP(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	es, err := parseN(name, args, pc, 3, 3)
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		vs, err := evalAll(es, doc, vars)
		if err != nil {
			return Missing, err
		}
		s, err := coerceToString(name, vs[0])
		if err != nil {
			return Missing, err
		}
		if !isNum(vs[1]) {
			return Missing, errs.New(errs.Location34450, "%s: starting index must be a numeric type (is BSON type %s)", name, bsonutil.TypeName(vs[1].Type))
		}
		start, ok := asIntegral(vs[1])
		if !ok {
			return Missing, errs.New(errs.Location34451, "%s: starting index cannot be represented as a 32-bit integral value", name)
		}
		if !isNum(vs[2]) {
			return Missing, errs.New(errs.Location34452, "%s: length must be a numeric type (is BSON type %s)", name, bsonutil.TypeName(vs[2].Type))
		}
		n, ok := asIntegral(vs[2])
		if !ok {
			return Missing, errs.New(errs.Location34453, "%s: length cannot be represented as a 32-bit integral value", name)
		}
		if start < 0 {
			return Missing, errs.New(errs.Location34455, "%s: the starting index must be nonnegative integer.", name)
		}
		if n < 0 {
			return Missing, errs.New(errs.Location34454, "%s: length must be a nonnegative integer.", name)
		}
		r := []rune(s)
		if start >= int64(len(r)) {
			return String(""), nil
		}
		end := min(int64(len(r)), start+n)
		return String(string(r[start:end])), nil
	}), nil
}

func parseCase(upper bool) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		es, err := parseN(name, args, pc, 1, 1)
		if err != nil {
			return nil, err
		}
		return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
			v, err := es[0].Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			s, err := coerceToString(name, v)
			if err != nil {
				return Missing, err
			}
			b := []byte(s)
			for i, c := range b {
				if upper && c >= 'a' && c <= 'z' {
					b[i] = c - 32
				} else if !upper && c >= 'A' && c <= 'Z' {
					b[i] = c + 32
				}
			}
			return String(string(b)), nil
		}), nil
	}
}

func parseStrcasecmp(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	es, err := parseN(name, args, pc, 2, 2)
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		vs, err := evalAll(es, doc, vars)
		if err != nil {
			return Missing, err
		}
		a, err := coerceToString(name, vs[0])
		if err != nil {
			return Missing, err
		}
		b, err := coerceToString(name, vs[1])
		if err != nil {
			return Missing, err
		}
		return Int32(int32(strings.Compare(asciiUpper(a), asciiUpper(b)))), nil
	}), nil
}

func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

func parseSplit(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	es, err := parseN(name, args, pc, 2, 2)
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		vs, err := evalAll(es, doc, vars)
		if err != nil {
			return Missing, err
		}
		if IsNullish(vs[0]) || IsNullish(vs[1]) {
			return Null, nil
		}
		if !isString(vs[0]) {
			return Missing, errs.New(errs.Location40085, "$split requires an expression that evaluates to a string as a first argument, found: %s", bsonutil.TypeName(vs[0].Type))
		}
		if !isString(vs[1]) {
			return Missing, errs.New(errs.Location40086, "$split requires an expression that evaluates to a string as a second argument, found: %s", bsonutil.TypeName(vs[1].Type))
		}
		sep := str(vs[1])
		if sep == "" {
			return Missing, errs.New(errs.Location40087, "$split requires a non-empty separator")
		}
		b := NewArrayBuilder()
		for _, p := range strings.Split(str(vs[0]), sep) {
			b.Append(String(p))
		}
		return b.Value(), nil
	}), nil
}

// defaultTrimChars are the characters $trim removes by default.
var defaultTrimChars = []rune{0, ' ', '\t', '\n', '\v', '\f', '\r', 0x00A0, 0x1680,
	0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A,
	0x2028, 0x2029, 0x202F, 0x205F, 0x3000}

func parseTrim(left, right bool) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		if args.Type != bsoncore.TypeEmbeddedDocument {
			return nil, errs.New(errs.Location50696, "%s only supports an object as an argument, found: %s", name, bsonutil.TypeName(args.Type))
		}
		spec, err := parseSpec(name, args, pc, nil, "input", "chars")
		if err != nil {
			return nil, errs.New(errs.Location50694, "%s", strings.Replace(err.(*errs.Error).Msg, "found an unknown argument", "found an unknown argument:", 1))
		}
		if spec["input"] == nil {
			return nil, errs.New(errs.Location50695, "%s requires an 'input' field", name)
		}
		return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
			in, err := spec["input"].Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			chars := defaultTrimChars
			if c := spec["chars"]; c != nil {
				cv, err := c.Eval(doc, vars)
				if err != nil {
					return Missing, err
				}
				if IsNullish(cv) {
					return Null, nil
				}
				if !isString(cv) {
					return Missing, errs.New(errs.Location50700, "%s requires 'chars' to be a string, got %s (of type %s) instead.", name, bsonutil.FormatValue(cv, msgStyle), bsonutil.TypeName(cv.Type))
				}
				chars = []rune(str(cv))
			}
			if IsNullish(in) {
				return Null, nil
			}
			if !isString(in) {
				return Missing, errs.New(errs.Location50699, "%s requires its input to be a string, got %s (of type %s) instead.", name, bsonutil.FormatValue(in, msgStyle), bsonutil.TypeName(in.Type))
			}
			isTrim := func(r rune) bool {
				for _, c := range chars {
					if c == r {
						return true
					}
				}
				return false
			}
			s := str(in)
			if left {
				s = strings.TrimLeftFunc(s, isTrim)
			}
			if right {
				s = strings.TrimRightFunc(s, isTrim)
			}
			return String(s), nil
		}), nil
	}
}

func parseStrLen(cp bool) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		es, err := parseN(name, args, pc, 1, 1)
		if err != nil {
			return nil, err
		}
		return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
			v, err := es[0].Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if !isString(v) {
				code := errs.Location34473
				if cp {
					code = 34471
				}
				return Missing, errs.New(code, "%s requires a string argument, found: %s", name, bsonutil.TypeName(v.Type))
			}
			if cp {
				return Int32(int32(utf8.RuneCountInString(str(v)))), nil
			}
			return Int32(int32(len(str(v)))), nil
		}), nil
	}
}

func parseIndexOf(cp bool) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		es, err := parseN(name, args, pc, 2, 4)
		if err != nil {
			return nil, err
		}
		return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
			vs, err := evalAll(es, doc, vars)
			if err != nil {
				return Missing, err
			}
			if IsNullish(vs[0]) {
				return Null, nil
			}
			// $indexOfBytes reports a wrong type with 40091 and 40092,
			// $indexOfCP with 40093 and 40094.
			firstCode, secondCode := errs.Location40091, errs.Location40092
			if cp {
				firstCode, secondCode = errs.Location40093, errs.Location40094
			}
			if !isString(vs[0]) {
				return Missing, errs.New(firstCode, "%s requires a string as the first argument, found: %s", name, bsonutil.TypeName(vs[0].Type))
			}
			if !isString(vs[1]) {
				return Missing, errs.New(secondCode, "%s requires a string as the second argument, found: %s", name, bsonutil.TypeName(vs[1].Type))
			}
			s, sub := str(vs[0]), str(vs[1])
			var units []string // code points, or nil for bytes
			n := len(s)
			if cp {
				for _, r := range s {
					units = append(units, string(r))
				}
				n = len(units)
			}
			start, end := int64(0), int64(n)
			for i, bound := range vs[2:] {
				if !isNum(bound) {
					return Missing, errs.New(errs.Location40096, "%s requires an integral %s index, found a value of type: %s, with value: %s", name, []string{"starting", "ending"}[i], bsonutil.TypeName(bound.Type), bsonutil.FormatValue(bound, msgStyle))
				}
				x, ok := asIntegral(bound)
				if !ok {
					return Missing, errs.New(errs.Location40096, "%s requires an integral %s index, found a value of type: %s, with value: %s", name, []string{"starting", "ending"}[i], bsonutil.TypeName(bound.Type), bsonutil.FormatValue(bound, msgStyle))
				}
				if x < 0 {
					return Missing, errs.New(errs.Location40097, "%s requires a nonnegative %s index, found: %d", name, []string{"starting", "ending"}[i], x)
				}
				if i == 0 {
					start = x
				} else {
					end = min(x, int64(n))
				}
			}
			if start > end || start > int64(n) {
				return Int32(-1), nil
			}
			if !cp {
				idx := strings.Index(s[start:end], sub)
				if idx < 0 {
					return Int32(-1), nil
				}
				return Int32(int32(start) + int32(idx)), nil
			}
			subCP := utf8.RuneCountInString(sub)
			for i := start; i+int64(subCP) <= end; i++ {
				if strings.Join(units[i:i+int64(subCP)], "") == sub {
					return Int32(int32(i)), nil
				}
			}
			return Int32(-1), nil
		}), nil
	}
}

func parseReplace(all bool) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		if args.Type != bsoncore.TypeEmbeddedDocument {
			return nil, errs.New(errs.Location51751, "%s requires an object as an argument, found: %s", name, bsonutil.TypeName(args.Type))
		}
		spec, err := parseSpec(name, args, pc, nil, "input", "find", "replacement")
		if err != nil {
			return nil, errs.New(errs.Location51750, "%s", err.(*errs.Error).Msg)
		}
		for _, k := range []string{"input", "find", "replacement"} {
			if spec[k] == nil {
				return nil, errs.New(errs.Location51749, "%s requires '%s' to be specified", name, k)
			}
		}
		return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
			var vals [3]bsoncore.Value
			null := false
			for i, k := range []string{"input", "find", "replacement"} {
				v, err := spec[k].Eval(doc, vars)
				if err != nil {
					return Missing, err
				}
				if IsNullish(v) {
					null = true
				} else if !isString(v) {
					// mongod: 51746 input, 51745 find, 51744 replacement.
					return Missing, errs.New(errs.Location51746-errs.Code(i), "%s requires that '%s' be a string, found: %s", name, k, bsonutil.FormatValue(v, msgStyle))
				}
				vals[i] = v
			}
			if null {
				return Null, nil
			}
			n := 1
			if all {
				n = -1
			}
			in, find, repl := str(vals[0]), str(vals[1]), str(vals[2])
			if len(repl) > len(find) {
				// The result's size before building it: the input's plus
				// the growth of each replaced occurrence.
				k := 1
				if all {
					k = strings.Count(in, find)
					if find == "" {
						k = len([]rune(in)) + 1
					}
				} else if !strings.Contains(in, find) {
					k = 0
				}
				if err := checkStringLen(len(in) + k*(len(repl)-len(find))); err != nil {
					return Missing, err
				}
			}
			return String(strings.Replace(in, find, repl, n)), nil
		}), nil
	}
}
