package storage

import (
	"bytes"
	"slices"
)

// Index builds add their entries in record order, so the entries that
// share a keystring arrive with their record ids (the key's last eight
// bytes) rising: grouping the entries by keystring, keeping each group
// in arrival order, and putting the groups in keystring order sorts them
// with a hash per entry instead of a comparison sort's twenty-odd
// comparisons of keys that share their first bytes. It pays when an
// index has few distinct values (a path, a host, a status); with many,
// the comparison sort runs instead.

// SetRisingSuffix says that the last n bytes of the keys added rise, in
// the order added, among keys equal before them (an index build's record
// ids), which lets the load sort by grouping (bucketSort).
func (l *SortedLoad) SetRisingSuffix(n int) { l.suffix = n }

// maxBuckets bounds the groups bucketSort keeps before it gives up: the
// comparison sort is as cheap once the groups are many.
func maxBuckets(n int) int { return min(n/8, 1<<16) }

// bucketSort orders l.ents by grouping them on the key before the rising
// suffix and reports whether it did; it leaves them as they were when
// the groups are too many or a suffix does not rise.
func (l *SortedLoad) bucketSort() bool {
	n := len(l.ents)
	limit := maxBuckets(n)
	if l.suffix <= 0 || limit < 2 {
		return false
	}
	ids := make(map[string]int32, min(limit, 1024))
	var (
		heads  [][]byte // each group's key before the suffix
		counts []int
		last   [][]byte // each group's latest suffix
	)
	group := make([]int32, n)
	for i := range l.ents {
		k := l.key(l.ents[i])
		if len(k) < l.skip+l.suffix {
			return false
		}
		head, suf := k[l.skip:len(k)-l.suffix], k[len(k)-l.suffix:]
		id, ok := ids[string(head)]
		if !ok {
			if len(heads) == limit {
				return false
			}
			id = int32(len(heads))
			ids[string(head)] = id
			heads = append(heads, head)
			counts = append(counts, 0)
			last = append(last, nil)
		} else if bytes.Compare(suf, last[id]) <= 0 {
			return false // not rising: the caller's promise does not hold
		}
		last[id] = suf
		counts[id]++
		group[i] = id
	}
	order := make([]int32, len(heads))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return bytes.Compare(heads[a], heads[b]) })
	start := make([]int, len(heads))
	at := 0
	for _, id := range order {
		start[id] = at
		at += counts[id]
	}
	out := l.db.loadMem.takeEnts(n)
	if out == nil {
		out = make([]sortEntry, n)
	}
	out = out[:n]
	for i, e := range l.ents {
		id := group[i]
		out[start[id]] = e
		start[id]++
	}
	l.db.loadMem.give(l.ents, nil)
	l.ents = out
	return true
}
