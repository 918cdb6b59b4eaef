package plan

import (
	"bytes"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// A clustered collection keeps its records in _id order and has no _id
// index of its own: its clustered index (Index.Clustered) is planned as
// an index, so that _id predicates get their usual bounds, and each plan
// that scans it becomes a collection scan bounded by those bounds, as
// mongod 7.0 plans a clustered collection: CLUSTERED_IXSCAN with
// minRecord and maxRecord, applying the whole filter to each record it
// reads, or a plain COLLSCAN when the bounds are full. An _id equality
// leaves that plan alone, as in mongod. Other shapes over the clustered
// index (index intersections, OR branches, distinct and count scans) are
// dropped: the records are read by a collection scan or not at all.

// clusterSolutions rewrites the solutions of p that scan its clustered
// index.
func clusterSolutions(p Params, sols []*Solution) []*Solution {
	var ci *Index
	for _, ix := range p.Indexes {
		if ix.Clustered {
			ci = ix
		}
	}
	if ci == nil {
		return sols
	}
	out := make([]*Solution, 0, len(sols))
	for _, s := range sols {
		if hasStage(s.Root, StageAndSorted) {
			continue // its results carry no cluster key to fetch by
		}
		if !usesIndex(s.Root, ci) {
			out = append(out, s)
			continue
		}
		ixn := s.Root
		if ixn.Stage == StageFetch && len(ixn.Children) == 1 {
			ixn = ixn.Children[0]
		}
		if ixn.Stage != StageIxScan || ixn.Index != ci {
			continue
		}
		n := &Node{Stage: StageCollScan, Direction: ixn.Direction, Filter: true}
		if len(ixn.Bounds) == 1 && !ixn.Bounds[0].OIL.IsFull() {
			n.ClusterBounds = ixn.Bounds
		}
		cs := &Solution{Root: n, BlockingSort: s.BlockingSort, HitScanLimit: s.HitScanLimit, rank: s.rank}
		if n.ClusterBounds != nil && len(n.ClusterBounds[0].OIL) == 1 && n.ClusterBounds[0].OIL[0].IsPoint() {
			return []*Solution{cs} // an _id equality: the one plan
		}
		out = append(out, cs)
	}
	if len(out) == 0 {
		return []*Solution{collScan(1, p.Sort != nil)}
	}
	return out
}

// naturalScan is the collection scan in direction dir of a $natural hint
// or sort. On a clustered collection it is bounded by the _id predicates
// as a hint of the clustered index would be (mongod plans {$natural: -1}
// with an _id equality as a backward CLUSTERED_IXSCAN).
func naturalScan(p Params, dir int, preds []pred, conjuncts int, leafOnly bool) *Solution {
	s := collScan(dir, p.Sort != nil)
	for _, ix := range p.Indexes {
		if !ix.Clustered {
			continue
		}
		is := indexSolution(p, ix, preds, conjuncts, leafOnly, true)
		if is == nil {
			break
		}
		n := is.Root
		if n.Stage == StageFetch && len(n.Children) == 1 {
			n = n.Children[0]
		}
		if n.Stage == StageIxScan && n.Index == ix && len(n.Bounds) == 1 && !n.Bounds[0].OIL.IsFull() {
			s.Root.ClusterBounds = n.Bounds
		}
		break
	}
	return s
}

// usesIndex reports whether the tree under n scans ix.
func usesIndex(n *Node, ix *Index) bool {
	if n.Index == ix {
		return true
	}
	for _, c := range n.Children {
		if usesIndex(c, ix) {
			return true
		}
	}
	return false
}

// hasStage reports whether the tree under n has a node of stage st.
func hasStage(n *Node, st string) bool {
	if n.Stage == st {
		return true
	}
	for _, c := range n.Children {
		if hasStage(c, st) {
			return true
		}
	}
	return false
}

// ClusterRecords returns explain's minRecord and maxRecord of a clustered
// scan with bounds oil, as mongod 7.0 shows them: the values the _id
// predicates give, and no minRecord (maxRecord) when the lower (upper)
// end is only the edge of the value's type bracket, as for {$lt: 10}.
func ClusterRecords(oil OIL) (min, max bsoncore.Value, hasMin, hasMax bool) {
	if len(oil) == 0 {
		return min, max, false, false
	}
	first, last := oil[0], oil[len(oil)-1]
	min, max = first.Lo, last.Hi
	hasMin, hasMax = min.Type != bsoncore.TypeMinKey, max.Type != bsoncore.TypeMaxKey
	if lo, _, loInc, _, ok := bracket(last.Hi); ok && hasMin && sameValue(lo, min) && loInc == first.LoInc {
		hasMin = false
	}
	if _, hi, _, hiInc, ok := bracket(first.Lo); ok && hasMax && sameValue(hi, max) && hiInc == last.HiInc {
		hasMax = false
	}
	return min, max, hasMin, hasMax
}

// sameValue reports whether a and b are the same BSON value.
func sameValue(a, b bsoncore.Value) bool {
	return a.Type == b.Type && bytes.Equal(a.Data, b.Data)
}
