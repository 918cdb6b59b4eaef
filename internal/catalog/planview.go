package catalog

import (
	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/query/plan"
)

// The planner's view of an index (plan.Index) is derived from the
// descriptor once, when the collection holding it is sealed for
// publication, in two variants: for queries with the index's collation
// and for queries with another (CollationMismatch: string bounds, sorts
// and distinct scans are then not taken from the index). The views are
// shared by every query and must not be modified.

// PlanIndex returns the planner's view of ix for a query whose collation
// is qc (nil: simple). It is cached when ix is sealed, built afresh
// otherwise (a hypothetical or not yet published index).
func (ix *Index) PlanIndex(qc *collation.Collator) *plan.Index {
	mismatch := 0
	if ix.Collator != qc {
		mismatch = 1
	}
	if ix.viewsOf == ix {
		return ix.views[mismatch]
	}
	return ix.planView(mismatch == 1)
}

// seal caches ix's planner views unless they are already ix's own (a
// copy made by cp := *ix carries its original's, which it replaces).
func (ix *Index) seal() {
	if ix.viewsOf == ix {
		return
	}
	ix.views = [2]*plan.Index{ix.planView(false), ix.planView(true)}
	ix.viewsOf = ix
}

// planView builds the planner's view of ix.
func (ix *Index) planView(mismatch bool) *plan.Index {
	if ix.Text != nil {
		// Used only by $text; every document has one key per term.
		pi := &plan.Index{
			ID: ix.ID, Name: ix.Name, KeyPattern: ix.Key, Sparse: ix.Sparse, Partial: ix.PartialFilter,
			Multikey: true,
			Text:     &plan.TextIndex{Spec: ix.Text.Spec, NPrefix: ix.Text.NPrefix, Version: ix.TextSpec.TextIndexVersion},
		}
		pi.Fields = make([]plan.Field, 0, len(ix.Fields))
		for _, f := range ix.Fields {
			pi.Fields = append(pi.Fields, plan.Field{Path: f.Path, Desc: f.Desc})
		}
		return pi
	}
	pi := &plan.Index{
		ID: ix.ID, Name: ix.Name, KeyPattern: ix.Key, Unique: ix.Unique || ix.IsID(),
		Sparse: ix.Sparse, Partial: ix.PartialFilter, Multikey: ix.Multikey,
		MultikeyPaths: ix.MultikeyPaths, Collation: ix.Collation,
		// Its keys are not in the query's string order.
		CollationMismatch: mismatch,
		Grid2D:            ix.Grid2D,
		Clustered:         ix.Clustered,
		InClustered:       ix.InClustered,
	}
	pi.Fields = make([]plan.Field, 0, len(ix.Fields))
	for _, f := range ix.Fields {
		pi.Fields = append(pi.Fields, plan.Field{Path: f.Path, Desc: f.Desc, Geo: f.Geo, Hashed: f.Hashed})
	}
	return pi
}
