package expr

import (
	"errors"
	"math/rand/v2"
	"strings"
	"unicode/utf8"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/regex"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(map[string]opParser{
		"$regexMatch": parseRegex("match"), "$regexFind": parseRegex("find"),
		"$regexFindAll": parseRegex("findAll"), "$rand": parseRand,
	})
}

// CompileRegex compiles a MongoDB (PCRE-style) pattern with options
// i, m, s, x, u for $regexMatch, $regexFind and $regexFindAll.
func CompileRegex(pattern, options string) (*regex.Regex, error) {
	re, err := regex.Compile(pattern, options)
	var se *regex.SyntaxError
	if errors.As(err, &se) {
		return nil, errs.New(errs.Location51111, "Invalid Regex: %s", se.Msg)
	}
	return re, err
}

// regexExecErr words a match that hit the match limit as mongod's
// uassert 51156 does for PCRE's error.
func regexExecErr(op string, err error) error {
	return errs.New(errs.Location51156, "Error occurred while executing the regular expression in %s. Result code: %v", op, err)
}

func parseRegex(mode string) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		if args.Type != bsoncore.TypeEmbeddedDocument {
			return nil, errs.New(errs.Location51103, "%s expects an object of named arguments but found: %s", name, bsonutil.TypeName(args.Type))
		}
		raw := rawSpec(args)
		if err := checkKeys(name, raw, errs.Location31024, "input", "regex", "options"); err != nil {
			return nil, err
		}
		if raw["input"].Type == 0 {
			return nil, errs.New(errs.Location31022, "%s requires 'input' parameter", name)
		}
		if raw["regex"].Type == 0 {
			return nil, errs.New(errs.Location31023, "%s requires 'regex' parameter", name)
		}
		spec := map[string]Expr{}
		for k, v := range raw {
			e, err := parse(v, pc)
			if err != nil {
				return nil, err
			}
			spec[k] = e
		}
		return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
			in, err := spec["input"].Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			rv, err := spec["regex"].Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			opts, err := evalOpt(spec["options"], doc, vars)
			if err != nil {
				return Missing, err
			}
			var pattern, flags string
			switch rv.Type {
			case bsoncore.TypeString:
				pattern = rv.StringValue()
			case bsoncore.TypeRegex:
				pattern, flags = rv.Regex()
			case 0, bsoncore.TypeNull, bsoncore.TypeUndefined:
			default:
				return Missing, errs.New(errs.Location51105, "%s needs 'regex' to be of type string or regex", name)
			}
			if !IsNullish(opts) {
				if opts.Type != bsoncore.TypeString {
					return Missing, errs.New(errs.Location51106, "%s needs 'options' to be of type string", name)
				}
				if flags != "" {
					return Missing, errs.New(errs.Location51107, "%s found regex option(s) specified in both 'regex' and 'option' fields", name)
				}
				flags = opts.StringValue()
			}
			if strings.IndexByte(pattern, 0) >= 0 {
				return Missing, errs.New(errs.Code(51109), "%s: regular expression cannot contain an embedded null byte", name)
			}
			if strings.IndexByte(flags, 0) >= 0 {
				return Missing, errs.New(errs.Code(51110), "%s: regular expression options cannot contain an embedded null byte", name)
			}
			empty := func() bsoncore.Value {
				switch mode {
				case "match":
					return valFalse
				case "find":
					return Null
				}
				return Array()
			}
			if IsNullish(rv) {
				return empty(), nil
			}
			if IsNullish(in) {
				return empty(), nil
			}
			if in.Type != bsoncore.TypeString {
				return Missing, errs.New(errs.Location51104, "%s needs 'input' to be of type string", name)
			}
			re, err := CompileRegex(pattern, flags)
			if err != nil {
				return Missing, err
			}
			s := in.StringValue()
			switch mode {
			case "match":
				ok, err := re.MatchString(s)
				if err != nil {
					return Missing, regexExecErr(name, err)
				}
				return Bool(ok), nil
			case "find":
				m, err := re.FindStringSubmatchIndex(s)
				if err != nil {
					return Missing, regexExecErr(name, err)
				}
				if m == nil {
					return Null, nil
				}
				return matchDoc(s, m), nil
			}
			all, err := re.FindAllStringSubmatchIndex(s)
			if err != nil {
				return Missing, regexExecErr(name, err)
			}
			b := NewArrayBuilder()
			for _, m := range all {
				if m[0] == len(s) && len(s) > 0 {
					// mongod stops once the search reaches the input's
					// end: no empty match there (one for an empty input).
					break
				}
				b.Append(matchDoc(s, m))
			}
			return b.Value(), nil
		}), nil
	}
}

// matchDoc renders {match, idx, captures}; idx counts code points.
func matchDoc(s string, m []int) bsoncore.Value {
	d := NewDocBuilder()
	d.Append("match", String(s[m[0]:m[1]]))
	d.Append("idx", Int32(int32(utf8.RuneCountInString(s[:m[0]]))))
	caps := NewArrayBuilder()
	for i := 2; i+1 < len(m); i += 2 {
		if m[i] < 0 {
			caps.Append(Null)
		} else {
			caps.Append(String(s[m[i]:m[i+1]]))
		}
	}
	d.Append("captures", caps.Value())
	return d.Value()
}

func parseRand(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	if args.Type != bsoncore.TypeEmbeddedDocument || len(args.Data) != 5 {
		return nil, errs.New(errs.Location3040500, "$rand does not currently accept arguments")
	}
	return exprFunc(func(bsoncore.Document, *Vars) (bsoncore.Value, error) {
		return Double(rand.Float64()), nil
	}), nil
}
