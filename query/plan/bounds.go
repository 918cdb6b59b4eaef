package plan

import (
	"github.com/lodedb/lode/query"
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
// following MongoDB's multikey rules. allTop is the number of top-level
// conjuncts of the filter (used to decide exactness).
func indexBounds(ix *Index, preds []pred, conjuncts int, fullyPredicated bool) boundsResult {
	res := boundsResult{fields: make([]FieldBounds, len(ix.Fields))}
	ctxOf := make([]query.Node, len(ix.Fields)) // the $elemMatch each field's bounds came from
	bound := make([]bool, len(ix.Fields))
	usedExact := 0
	for i, f := range ix.Fields {
		res.fields[i] = FieldBounds{Path: f.Path, Desc: f.Desc, OIL: FullOIL()}
		mk := ix.multikeyPrefixes(f.Path)
		// The $elemMatch context this field must share with an earlier
		// field bounded through a common multikey prefix.
		var need query.Node
		constrained := false
		for j := 0; j < i; j++ {
			if !bound[j] {
				continue
			}
			for _, m := range mk {
				if isPrefixPath(m, ix.Fields[j].Path) {
					constrained = true
					need = ctxOf[j]
				}
			}
		}
		var cands []pred
		for _, p := range preds {
			if p.path != f.Path {
				continue
			}
			if constrained && (need == nil || p.ctx != need || !coversPrefix(p.ctxPath, mk)) {
				continue
			}
			cands = append(cands, p)
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
			// Multikey: never intersect; pick the most selective single
			// predicate (points first), prefer one inside $elemMatch.
			best := cands[0]
			for _, p := range cands[1:] {
				if better(p, best) {
					best = p
				}
			}
			res.fields[i].OIL = best.oil
			ctxOf[i] = best.ctx
		}
		bound[i] = true
	}
	res.exact = fullyPredicated && !ix.Multikey && usedExact == conjuncts
	return res
}

// coversPrefix reports whether an $elemMatch at ctxPath covers one of the
// multikey prefixes (the array it iterates is that prefix or below it).
func coversPrefix(ctxPath string, mk []string) bool {
	for _, m := range mk {
		if isPrefixPath(m, ctxPath) {
			return true
		}
	}
	return false
}

func better(a, b pred) bool {
	ap, bp := a.oil.AllPoints(), b.oil.AllPoints()
	if ap != bp {
		return ap
	}
	if ap && len(a.oil) != len(b.oil) {
		return len(a.oil) < len(b.oil)
	}
	return false
}
