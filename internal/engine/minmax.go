package engine

import (
	"bytes"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/query/exec"
	"github.com/lodedb/lode/internal/query/plan"
)

// A find's min and max, as mongod 7.0 plans them: they need a hint
// (51173) naming an index whose key pattern has exactly their fields in
// order (51174), min must come before max in the index's order (51175),
// and the plan is the one scan of the keys from min (inclusive) to max
// (exclusive) with the whole filter applied to the documents. The bounds
// are on the whole key in index order, not per field: {a: 1, b: 5} to
// {a: 3, b: 0} holds every key with a = 2. On a clustered collection
// hinted {_id: 1}, the records themselves are scanned in that range.

// hasMinMax reports whether q has a non-empty min or max.
func (q *planReq) hasMinMax() bool { return len(q.min) > 5 || len(q.max) > 5 }

// minMaxPlan builds the plan of a find with min or max over c, whose
// planner indexes are pix.
func minMaxPlan(c *collection, q *planReq, pix []*plan.Index, env exec.Env) (*builtPlan, error) {
	if q.hint.Type == 0 {
		return nil, errs.New(errs.Location51173, "When using min()/max() a hint of which index to use must be provided")
	}
	ix, natural, err := plan.ResolveHint(plan.Params{NS: c.NS(), FilterDoc: q.filterDoc, SortDoc: q.sortDoc, Indexes: pix, Hint: q.hint})
	if err != nil {
		return nil, err
	}
	if natural != 0 {
		return nil, errs.New(errs.BadValue, "min and max are incompatible with $natural")
	}
	cix := c.IndexByName(ix.Name)
	if cix == nil {
		return nil, errs.New(errs.BadValue, "hint provided does not correspond to an existing index")
	}
	for _, f := range cix.Fields {
		if f.Geo != "" || cix.Text != nil {
			return nil, errs.New(errs.NotImplemented, "min/max on a %s index is not supported by Lode", bsonutilIndexType(cix))
		}
	}
	mismatch := cix.Collator != q.filter.Collator()
	var lo, hi []byte
	for _, side := range []struct {
		d  bsoncore.Document
		ks *[]byte
	}{{q.min, &lo}, {q.max, &hi}} {
		if len(side.d) <= 5 {
			continue
		}
		ks, ok := minMaxKey(cix, side.d, mismatch)
		if !ok {
			return nil, errs.New(errs.Location51174, "The index chosen is not compatible with min/max")
		}
		*side.ks = ks
	}
	if lo != nil && hi != nil && bytes.Compare(lo, hi) >= 0 {
		return nil, errs.New(errs.Location51175, "The value provided for min() does not come before the value provided for max() in the hinted index")
	}
	kr := &plan.KeyRange{Lo: lo, Hi: hi}
	if len(q.min) > 5 {
		kr.Min = q.min
	}
	if len(q.max) > 5 {
		kr.Max = q.max
	}
	sol := plan.MinMaxSolution(ix, kr, q.sort != nil)
	if q.timing {
		walkSolution(sol.Root, renderResidual)
	}
	root, err := exec.Build(sol, env, q.opts)
	if err != nil {
		return nil, err
	}
	return &builtPlan{root: root, sol: sol}, nil
}

// minMaxKey returns the keystring of bound d in index ix, or false when
// d's fields are not exactly the key pattern's, in order, or when a value
// compares by collation and the query's collation is not the index's.
func minMaxKey(ix *index, d bsoncore.Document, mismatch bool) ([]byte, bool) {
	elems, err := d.Elements()
	if err != nil || len(elems) != len(ix.Fields) {
		return nil, false
	}
	var ks []byte
	for i, el := range elems {
		f := ix.Fields[i]
		if el.Key() != f.Path {
			return nil, false
		}
		v := el.Value()
		if collatable(v.Type) {
			if mismatch {
				return nil, false
			}
			if ix.Collator != nil {
				v = ix.Collator.Transform(v)
			}
		}
		ks = keystring.AppendValue(ks, v, f.Desc)
	}
	return ks, true
}

// collatable reports whether values of type t compare by collation.
func collatable(t bsoncore.Type) bool {
	switch t {
	case bsoncore.TypeString, bsoncore.TypeSymbol, bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
		return true
	}
	return false
}

// bsonutilIndexType names ix's type for a message.
func bsonutilIndexType(ix *index) string {
	if ix.Text != nil {
		return "text"
	}
	for _, f := range ix.Fields {
		if f.Geo != "" {
			return f.Geo
		}
	}
	return "btree"
}
