package expr

import (
	"sort"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() { register(map[string]opParser{"$sortArray": parseSortArray}) }

// SortSpec orders values as $sortArray / $top / $bottom sortBy does:
// either whole values (Whole, with Dir) or by document fields.
type SortSpec struct {
	// Coll, when not nil, is the collation strings compare under.
	Coll   *collation.Collator
	Whole  bool
	Dir    int
	Fields [][]string
	Dirs   []int
}

// ParseSortSpec parses a sortBy value: 1, -1 or a document {field: ±1}.
func ParseSortSpec(v bsoncore.Value) (*SortSpec, error) {
	if isNum(v) {
		d, ok := asIntegral(v)
		if !ok || (d != 1 && d != -1) {
			return nil, errs.New(errs.Location2942904, "$sortArray sortBy must be 1 or -1 or a document")
		}
		return &SortSpec{Whole: true, Dir: int(d)}, nil
	}
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.Location2942905, "sortBy must be either an object or a numeric value")
	}
	s := &SortSpec{}
	var err error
	forEach(v.Data, func(k []byte, x bsoncore.Value) bool {
		var path []string
		if path, err = ParseFieldPath(string(k)); err != nil {
			return false
		}
		d, ok := asIntegral(x)
		if !isNum(x) || !ok || (d != 1 && d != -1) {
			err = errs.New(errs.Location15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)")
			return false
		}
		s.Fields = append(s.Fields, path)
		s.Dirs = append(s.Dirs, int(d))
		return true
	})
	if err != nil {
		return nil, err
	}
	if len(s.Fields) == 0 {
		return nil, errs.New(errs.Location15976, "$sort stage must have at least one sort key")
	}
	return s, nil
}

// sortKeyOf extracts a document sort key as $sort does: arrays give their
// min (ascending) or max (descending) element.
func sortKeyOf(c *collation.Collator, v bsoncore.Value, path []string, dir int) bsoncore.Value {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return Null
	}
	x := lookupPath(v.Data, path)
	if x.Type == 0 {
		return Null
	}
	if x.Type == bsoncore.TypeArray {
		var best bsoncore.Value
		forEach(x.Data, func(_ []byte, e bsoncore.Value) bool {
			if best.Type == 0 || CompareWith(c, e, best)*dir < 0 {
				best = e
			}
			return true
		})
		if best.Type == 0 {
			return Missing // empty array sorts before null
		}
		return best
	}
	return x
}

// Compare orders a and b by the spec.
func (s *SortSpec) Compare(a, b bsoncore.Value) int {
	if s.Whole {
		return CompareWith(s.Coll, a, b) * s.Dir
	}
	for i, p := range s.Fields {
		ka, kb := sortKeyOf(s.Coll, a, p, s.Dirs[i]), sortKeyOf(s.Coll, b, p, s.Dirs[i])
		var c int
		if ka.Type == 0 || kb.Type == 0 {
			c = cmpMissing(ka, kb)
		} else {
			c = CompareWith(s.Coll, ka, kb)
		}
		if c != 0 {
			return c * s.Dirs[i]
		}
	}
	return 0
}

func cmpMissing(a, b bsoncore.Value) int {
	switch {
	case a.Type == 0 && b.Type == 0:
		return 0
	case a.Type == 0:
		return -1
	}
	return 1
}

// parseSortArray implements $sortArray: the input array sorted stably by
// sortBy (see SortSpec).
func parseSortArray(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	if args.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.Location2942500, "$sortArray requires an object as an argument, found: %s", bsonutil.TypeName(args.Type))
	}
	raw := rawSpec(args)
	if err := checkKeys(name, raw, errs.Location2942501, "input", "sortBy"); err != nil {
		return nil, err
	}
	if raw["input"].Type == 0 {
		return nil, errs.New(errs.Location2942502, "$sortArray requires 'input' to be specified")
	}
	if raw["sortBy"].Type == 0 {
		return nil, errs.New(errs.Location2942503, "$sortArray requires 'sortBy' to be specified")
	}
	input, err := parse(raw["input"], pc)
	if err != nil {
		return nil, err
	}
	spec, err := ParseSortSpec(raw["sortBy"])
	if err != nil {
		return nil, err
	}
	spec.Coll = pc.Collator
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		in, err := input.Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		if IsNullish(in) {
			return Null, nil
		}
		if in.Type != bsoncore.TypeArray {
			return Missing, errs.New(errs.Location2942504, "The input argument to $sortArray must be an array, but was of type: %s", bsonutil.TypeName(in.Type))
		}
		vs := values(in)
		sort.SliceStable(vs, func(i, j int) bool { return spec.Compare(vs[i], vs[j]) < 0 })
		return Array(vs...), nil
	}), nil
}

// Key returns the i-th sort key of v (a document) as $sort extracts it;
// the result is missing for an empty array (sorting before null).
func (s *SortSpec) Key(v bsoncore.Value, i int) bsoncore.Value {
	return sortKeyOf(s.Coll, v, s.Fields[i], s.Dirs[i])
}

// CompareKeys orders two key lists extracted with Key.
func (s *SortSpec) CompareKeys(a, b []bsoncore.Value) int {
	for i := range s.Dirs {
		var c int
		if a[i].Type == 0 || b[i].Type == 0 {
			c = cmpMissing(a[i], b[i])
		} else {
			c = CompareWith(s.Coll, a[i], b[i])
		}
		if c != 0 {
			return c * s.Dirs[i]
		}
	}
	return 0
}
