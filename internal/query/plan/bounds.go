package plan

import (
	"github.com/lodedb/lode/internal/query"
)

// FieldBounds are the bounds of one index field.
type FieldBounds struct {
	Path string
	Desc bool
	OIL  OIL
}

// boundsResult is the outcome of bounding one index with a filter.
type boundsResult struct {
	fields []FieldBounds
	// exact is set when every predicate of the filter is answered exactly
	// by these bounds (the filter need not be applied to documents).
	exact bool
}

// indexBounds computes the bounds of every field of ix from preds,
// following MongoDB's multikey rules (SERVER-22401, "Multikey Index
// Bounds"). Keys are generated element by element, so:
//
//   - bounds of two fields that share a multikey path prefix may be
//     compounded only when both predicates sit in the same $elemMatch and
//     every shared multikey prefix is at or above that $elemMatch's path
//     ({"m.k": 1, "m.v": 1} with {m: {$elemMatch: {k: .., v: ..}}});
//     otherwise the later field keeps [MinKey, MaxKey] and FETCH applies
//     the whole filter;
//   - two predicates on one multikey field are intersected only under the
//     same condition (the field's multikey prefixes all at or above their
//     shared $elemMatch); otherwise the single most selective one bounds
//     the field.
//
// conjuncts is the number of top-level conjuncts of the filter (used to
// decide exactness).
func indexBounds(ix *Index, preds []pred, conjuncts int, fullyPredicated bool) boundsResult {
	if ix.CollationMismatch {
		preds = stringFree(preds)
	}
	preds = regrid2D(ix, preds)
	preds = rehash(ix, preds) // hashed.go
	res := boundsResult{fields: make([]FieldBounds, len(ix.Fields))}
	ctxOf := make([]query.Node, len(ix.Fields)) // the $elemMatch each field's bounds came from
	bound := make([]bool, len(ix.Fields))
	usedExact := 0
	for i, f := range ix.Fields {
		res.fields[i] = FieldBounds{Path: f.Path, Desc: f.Desc, OIL: FullOIL()}
		mk := ix.multikeyPrefixes(f.Path)
		var cands []pred
		for _, p := range preds {
			if p.path == f.Path && p.geo == f.Geo && compoundable(ix, i, mk, p, bound, ctxOf) {
				cands = append(cands, p)
			}
		}
		if len(cands) == 0 {
			continue
		}
		if len(mk) == 0 {
			oil := FullOIL()
			for _, p := range cands {
				oil = intersect(oil, p.oil)
				if p.exact {
					usedExact++
				}
			}
			res.fields[i].OIL = oil
			ctxOf[i] = cands[0].ctx
		} else {
			// Multikey: pick the most selective single predicate (points
			// first, then one inside $elemMatch), and intersect it only
			// with predicates of the same $elemMatch that covers every
			// multikey prefix of the field.
			best := cands[0]
			for _, p := range cands[1:] {
				if better(p, best) {
					best = p
				}
			}
			oil := best.oil
			if best.ctx != nil && allPrefixes(mk, best.ctxPath) {
				for _, p := range cands {
					if p.ctx == best.ctx {
						oil = intersect(oil, p.oil)
					}
				}
			}
			res.fields[i].OIL = oil
			ctxOf[i] = best.ctx
		}
		bound[i] = true
	}
	res.exact = fullyPredicated && !ix.Multikey && usedExact == conjuncts
	return res
}

// compoundable reports whether predicate p may bound field i given the
// fields bounded before it: for each earlier bounded field j whose path
// shares multikey prefixes with field i, p must sit in the $elemMatch that
// bounded j, and that $elemMatch's path must reach every shared prefix.
func compoundable(ix *Index, i int, mk []string, p pred, bound []bool, ctxOf []query.Node) bool {
	for j := 0; j < i; j++ {
		if !bound[j] {
			continue
		}
		for _, m := range mk {
			if !isPrefixPath(m, ix.Fields[j].Path) {
				continue
			}
			if p.ctx == nil || p.ctx != ctxOf[j] || !isPrefixPath(m, p.ctxPath) {
				return false
			}
		}
	}
	return true
}

// allPrefixes reports whether every multikey prefix in mk is ctxPath or
// above it (so one $elemMatch element holds a single value of the field).
func allPrefixes(mk []string, ctxPath string) bool {
	for _, m := range mk {
		if !isPrefixPath(m, ctxPath) {
			return false
		}
	}
	return true
}

// better reports whether a bounds a multikey field more selectively than
// b: points first, fewer points, then a predicate inside $elemMatch (whose
// context lets later fields compound).
func better(a, b pred) bool {
	ap, bp := a.oil.AllPoints(), b.oil.AllPoints()
	if ap != bp {
		return ap
	}
	if ap && len(a.oil) != len(b.oil) {
		return len(a.oil) < len(b.oil)
	}
	return a.ctx != nil && b.ctx == nil
}
