package plan

import (
	"cmp"
	"slices"

	"github.com/lodedb/lode/internal/expr"
)

// A hashed field's keys are the 64-bit hashes of its values (indexkey's
// generateHashed), in hash order. Only an equality, or an $in of
// equalities, bounds it: each point becomes the point of its hash, so a
// scan finds every document whose value hashes the same (the value
// itself, another number with the same integer part, a collision) and
// FETCH applies the predicate again (such bounds are never exact,
// residual.go). A range, a regex or a negation leaves the field
// unbounded, as in mongod. The field supplies no sort order and no
// value (planner.go, covered.go).

// rehash returns preds with each predicate on a hashed field of ix
// turned into hash points, or dropped when it cannot bound the field.
// A sparse index holds no entry for a document missing the field, so a
// predicate that matches null (and with it the missing field) cannot
// bound it either.
func rehash(ix *Index, preds []pred) []pred {
	h := ix.hashedField()
	if h < 0 {
		return preds
	}
	path := ix.Fields[h].Path
	out := make([]pred, 0, len(preds))
	for _, p := range preds {
		if p.path != path || p.geo != "" {
			out = append(out, p)
			continue
		}
		if !p.oil.AllPoints() || (ix.Sparse && !excludesNull(p.oil)) {
			continue
		}
		p.oil, p.exact = hashPoints(p.oil), false
		out = append(out, p)
	}
	return out
}

// hashPoints returns the points of the hashes of o's points, in index
// order, without repeats.
func hashPoints(o OIL) OIL {
	hs := make([]int64, 0, len(o))
	for _, iv := range o {
		hs = append(hs, expr.HashedIndexKey(iv.Lo))
	}
	slices.SortFunc(hs, cmp.Compare[int64])
	hs = slices.Compact(hs)
	out := make(OIL, len(hs))
	for i, x := range hs {
		out[i] = point(longV(x))
	}
	return out
}

// hashedField returns the position of ix's hashed field, or -1.
func (ix *Index) hashedField() int {
	for i, f := range ix.Fields {
		if f.Hashed {
			return i
		}
	}
	return -1
}

// suppliesValue reports whether ix's keys hold the value of path: an
// index field that is not hashed.
func (ix *Index) suppliesValue(path string) bool {
	i := ix.FieldIndex(path)
	return i >= 0 && !ix.Fields[i].Hashed
}
