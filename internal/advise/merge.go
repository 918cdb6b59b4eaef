package advise

import "sort"

// serves reports whether an index with key k serves candidate c as well
// as c's own key: c's equality fields first (in any order), then c's sort
// fields in their directions (or all reversed: the scan runs backward),
// then one of c's range fields (in any direction) when c has any.
func serves(k Key, c candidate) bool {
	need := len(c.eq) + len(c.sort)
	if len(c.rng) > 0 {
		need++
	}
	if len(k) < need {
		return false
	}
	i := 0
	eq := map[string]bool{}
	for _, f := range c.eq {
		eq[f] = true
	}
	for ; i < len(c.eq); i++ {
		if !eq[k[i].Field] {
			return false
		}
	}
	flip := 0
	for _, s := range c.sort {
		f := k[i]
		i++
		if f.Field != s.Field {
			return false
		}
		same := 1
		if f.Dir != s.Dir {
			same = -1
		}
		if flip == 0 {
			flip = same
		} else if flip != same {
			return false
		}
	}
	if len(c.rng) > 0 {
		for _, r := range c.rng {
			if k[i].Field == r {
				return true
			}
		}
		return false
	}
	return true
}

// merged is a proposed key with the shapes it serves.
type merged struct {
	key    Key
	shapes []int // indexes into the analysed shapes
}

// mergeCandidates merges the candidates of one namespace: it keeps the
// longest first (sorted ones first among equals) and drops every candidate that a kept key serves (so a
// prefix goes only when the longer key serves its sort too), then assigns
// each shape to the first kept key that serves it.
func mergeCandidates(cands []candidate, owners []int) []merged {
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	// Longest first; among equals, those with a sort first: their
	// directions matter, a range field's do not.
	sort.SliceStable(order, func(a, b int) bool {
		ca, cb := cands[order[a]], cands[order[b]]
		if len(ca.key) != len(cb.key) {
			return len(ca.key) > len(cb.key)
		}
		return len(ca.sort) > len(cb.sort)
	})
	var kept []merged
	for _, i := range order {
		c := cands[i]
		placed := false
		for j := range kept {
			if serves(kept[j].key, c) {
				kept[j].shapes = append(kept[j].shapes, owners[i])
				placed = true
				break
			}
		}
		if !placed {
			kept = append(kept, merged{key: c.key, shapes: []int{owners[i]}})
		}
	}
	return kept
}
