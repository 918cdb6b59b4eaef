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
// the comparison sort runs instead. Entries added with a head already
// have their group from the arena's pages (bulkpages.go).

// SetRisingSuffix says that the last n bytes of the keys added rise, in
// the order added, among keys equal before them (an index build's record
// ids), which lets the load sort by grouping (bucketSort).
func (l *SortedLoad) SetRisingSuffix(n int) { l.suffix = n }

// maxBuckets bounds the groups bucketSort keeps before it gives up: the
// comparison sort is as cheap once the groups are many.
func maxBuckets(n int) int { return min(n/8, 1<<16) }

// bucketSort orders l.ents by grouping them and reports whether it did;
// it leaves them as they were when no grouping holds. It tries two
// groupings: on an index key's first field (AddHead), for a compound
// index whose later fields rise or fall with the records within each
// value of the first ({host: 1, time: 1} or {cat: 1, ts: -1} over events
// inserted in time order); then on the key before the rising suffix
// (SetRisingSuffix), for keys with few distinct values.
func (l *SortedLoad) bucketSort() bool {
	if len(l.heads) == len(l.ents) && len(l.ents) > 0 {
		heads := l.heads
		gids, gheads, _ := l.pages.groupsOf(len(l.ents)) // bulkpages.go
		ok := l.group(func(i int, k []byte) ([]byte, []byte, bool) {
			h := l.skip + int(heads[i])
			if h > len(k) {
				return nil, nil, false
			}
			return k[l.skip:h], k[h:], true
		}, true, gids, gheads)
		if ok {
			return true
		}
	}
	if l.suffix <= 0 {
		return false
	}
	return l.group(func(_ int, k []byte) ([]byte, []byte, bool) {
		if len(k) < l.skip+l.suffix {
			return nil, nil, false
		}
		return k[l.skip : len(k)-l.suffix], k[len(k)-l.suffix:], true
	}, false, nil, nil)
}

// group orders l.ents by the heads split gives their keys, each group in
// the order added when its suffixes rise, in reverse when they fall
// (allowed with fall), and reports whether it did. It gives up, leaving
// l.ents as they were, when the groups are too many, a group's suffixes
// neither rise nor fall throughout, or one head is a prefix of another
// (the keys' order would not be the heads' order then). gids, when not
// nil, is each entry's group already, and gheads the groups' heads (the
// heads split gives).
func (l *SortedLoad) group(split func(i int, k []byte) (head, suf []byte, ok bool), fall bool, gids []int32, gheads [][]byte) bool {
	n := len(l.ents)
	limit := maxBuckets(n)
	if limit < 2 || len(gheads) > limit {
		return false
	}
	var (
		ids    map[string]int32
		heads  [][]byte // each group's head
		counts []int
		last   [][]byte // each group's latest suffix
		dirs   []int8   // each group's direction: 1 rising, -1 falling, 0 not yet known
		group  []int32  // each entry's group
	)
	if gids != nil {
		heads, group = gheads, gids
		counts, last, dirs = make([]int, len(heads)), make([][]byte, len(heads)), make([]int8, len(heads))
	} else {
		ids = make(map[string]int32, min(limit, 1024))
		group = make([]int32, n)
	}
	for i := range l.ents {
		head, suf, ok := split(i, l.key(l.ents[i]))
		if !ok {
			return false
		}
		var id int32
		var seen bool
		if gids != nil {
			id = gids[i]
			seen = counts[id] > 0
		} else if id, seen = ids[string(head)]; !seen {
			if len(heads) == limit {
				return false
			}
			id = int32(len(heads))
			ids[string(head)] = id
			heads = append(heads, head)
			counts = append(counts, 0)
			last = append(last, nil)
			dirs = append(dirs, 0)
		}
		if seen {
			c := bytes.Compare(suf, last[id])
			switch {
			case c == 0:
				return false
			case dirs[id] == 0 && (c > 0 || fall):
				dirs[id] = int8(c)
			case dirs[id] == 0 || int(dirs[id]) != c:
				return false // neither rising nor falling throughout
			}
		}
		last[id] = suf
		counts[id]++
		if gids == nil {
			group[i] = id
		}
	}
	order := make([]int32, len(heads))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return bytes.Compare(heads[a], heads[b]) })
	for i := 1; i < len(order); i++ {
		if bytes.HasPrefix(heads[order[i]], heads[order[i-1]]) {
			return false
		}
	}
	// next[id] is where group id's next entry goes: forward from its start
	// when rising, backward from its end when falling.
	next := make([]int, len(heads))
	at := 0
	for _, id := range order {
		next[id] = at
		if dirs[id] < 0 {
			next[id] = at + counts[id] - 1
		}
		at += counts[id]
	}
	out := l.db.loadMem.takeEnts(n)
	if out == nil {
		out = newEnts(n, n)
	}
	out = out[:n]
	for i, e := range l.ents {
		id := group[i]
		out[next[id]] = e
		if dirs[id] < 0 {
			next[id]--
		} else {
			next[id]++
		}
	}
	l.db.loadMem.give(l.ents, nil)
	l.ents = out
	return true
}
