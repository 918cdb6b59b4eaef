package engine

import (
	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/storage"
)

// minAndScanKeys is the fewest entries every scan of an AND_SORTED
// candidate must hold for the candidate to be kept: when one point holds
// fewer, a plain scan of it reads no more than that, and dropping the
// intersection often leaves a single candidate and so no plan trial.
const minAndScanKeys = 64

// pruneIntersections drops the AND_SORTED candidates one of whose scans
// is that selective, counting at most minAndScanKeys entries per scan.
// One candidate is always kept.
func pruneIntersections(r storage.Reader, sols []*plan.Solution) []*plan.Solution {
	out := sols[:0:0]
	for _, s := range sols {
		if and := andSortedOf(s); and != nil && !allScansBroad(r, and) {
			continue
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return sols
	}
	return out
}

// andSortedOf returns the AND_SORTED under a FETCH > AND_SORTED solution.
func andSortedOf(s *plan.Solution) *plan.Node {
	if s.Root == nil || s.Root.Stage != plan.StageFetch || len(s.Root.Children) != 1 {
		return nil
	}
	if c := s.Root.Children[0]; c.Stage == plan.StageAndSorted {
		return c
	}
	return nil
}

// allScansBroad reports whether every scan of and holds at least
// minAndScanKeys entries.
func allScansBroad(r storage.Reader, and *plan.Node) bool {
	for _, c := range and.Children {
		n, err := countKeys(r, c, minAndScanKeys)
		if err != nil || n < minAndScanKeys {
			return false
		}
	}
	return true
}
