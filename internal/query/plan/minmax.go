package plan

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// KeyRange is a find's min and max on its hinted index: the keys in
// index order from Lo (inclusive; nil: the index's start) to Hi
// (exclusive; nil: its end), as keystrings of the index, and Min and Max
// as given (explain's startKey and endKey; nil when absent). The bounds
// are on the whole key in the index's order, not per field.
type KeyRange struct {
	Lo, Hi   []byte
	Min, Max bsoncore.Document
}

// MinMaxSolution returns the one plan of a find with min/max on index ix:
// FETCH (the whole filter) over an IXSCAN of the key range, or, on a
// clustered collection's clustered index, a scan of the records in that
// range. sorted says whether the find's sort needs a SORT stage.
func MinMaxSolution(ix *Index, kr *KeyRange, sorted bool) *Solution {
	if ix.Clustered {
		return &Solution{Root: &Node{Stage: StageCollScan, Direction: 1, Filter: true, KeyRange: kr}, BlockingSort: sorted}
	}
	scan := &Node{Stage: StageIxScan, Index: ix, Direction: 1, KeyRange: kr, Dedup: ix.Multikey}
	return &Solution{Root: &Node{Stage: StageFetch, Filter: true, Children: []*Node{scan}}, Index: ix, BlockingSort: sorted}
}
