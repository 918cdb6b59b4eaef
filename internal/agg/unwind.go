package agg

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// The registry entry of the stage in this file (stagedef.go).
func init() {
	registerStage("$unwind", stageDef{parse: parseUnwind, access: noAccess, sources: noSources, where: anywhere, explain: explainNone, shape: shapeArgs})
}

// unwindStage is $unwind.
type unwindStage struct {
	raw      bsoncore.Value
	path     []string
	index    []string // includeArrayIndex, nil when absent
	preserve bool
}

func parseUnwind(v bsoncore.Value, _ *ParseContext) ([]stage, error) {
	u := &unwindStage{raw: v}
	var path string
	switch v.Type {
	case bsoncore.TypeString:
		path = v.StringValue()
	case bsoncore.TypeEmbeddedDocument:
		elems, _ := v.Document().Elements()
		for _, el := range elems {
			ev := el.Value()
			switch el.Key() {
			case "path":
				s, ok := ev.StringValueOK()
				if !ok {
					return nil, errs.New(errs.Location28808, "expected a string as the path for $unwind stage, got %s", bsonutil.TypeName(ev.Type))
				}
				path = s
			case "includeArrayIndex":
				s, ok := ev.StringValueOK()
				if !ok {
					return nil, errs.New(errs.Location28810, "expected a non-empty string for the includeArrayIndex option to $unwind stage, got %s", bsonutil.TypeName(ev.Type))
				}
				if s == "" {
					return nil, errs.New(errs.Location28810, "expected a non-empty string for the includeArrayIndex option to $unwind stage, got string")
				}
				if strings.HasPrefix(s, "$") {
					return nil, errs.New(errs.Location28822, "includeArrayIndex option to $unwind stage should not be prefixed with a '$': %s", s)
				}
				u.index = strings.Split(s, ".")
			case "preserveNullAndEmptyArrays":
				if ev.Type != bsoncore.TypeBoolean {
					return nil, errs.New(errs.Location28809, "expected a boolean for the preserveNullAndEmptyArrays option to $unwind stage, got %s", bsonutil.TypeName(ev.Type))
				}
				u.preserve = ev.Boolean()
			default:
				return nil, errs.New(errs.Location28811, "unrecognized option to $unwind stage: %s", el.Key())
			}
		}
		if path == "" {
			return nil, errs.New(errs.Location28812, "no path specified to $unwind stage")
		}
	default:
		return nil, errs.New(errs.Location15981, "expected either a string or an object as specification for $unwind stage, got %s", bsonutil.TypeName(v.Type))
	}
	if !strings.HasPrefix(path, "$") {
		return nil, errs.New(errs.Location28818, "path option to $unwind stage should be prefixed with a '$': %s", path)
	}
	parts, err := expr.ParseFieldPath(path[1:])
	if err != nil {
		return nil, err
	}
	u.path = parts
	return []stage{u}, nil
}

func (u *unwindStage) name() string            { return "$unwind" }
func (u *unwindStage) spec() bsoncore.Document { return specDoc("$unwind", u.raw) }

func (u *unwindStage) withIndex(d bsoncore.Document, i int64, isArr bool) bsoncore.Document {
	if u.index == nil {
		return d
	}
	v := expr.Null
	if isArr {
		v = expr.Int64(i)
	}
	return setPath(d, u.index, v)
}

func (u *unwindStage) open(_ *runCtx, in Iterator) (Iterator, error) {
	var cur bsoncore.Document
	var vals []bsoncore.Value
	var i int
	return &funcIter{
		next: func() (bsoncore.Document, error) {
			for {
				if i < len(vals) {
					v := vals[i]
					i++
					return u.withIndex(setPath(cur, u.path, v), int64(i-1), true), nil
				}
				d, err := in.Next()
				if err != nil || d == nil {
					return nil, err
				}
				v := lookupPath(d, u.path)
				switch {
				case v.Type == bsoncore.TypeArray:
					vals, _ = v.Array().Values()
					cur, i = d, 0
					if len(vals) == 0 && u.preserve {
						return u.withIndex(setPath(d, u.path, bsoncore.Value{}), 0, false), nil
					}
				case v.Type == 0 || v.Type == bsoncore.TypeNull || v.Type == bsoncore.TypeUndefined:
					if u.preserve {
						return u.withIndex(d, 0, false), nil
					}
				default:
					return u.withIndex(d, 0, false), nil
				}
			}
		},
		close: in.Close,
	}, nil
}
