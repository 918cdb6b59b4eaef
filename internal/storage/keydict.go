package storage

import (
	"bytes"
	"slices"
)

// An index build over a field of few distinct values (an event's path
// or host, an order's status) adds the same few keystrings again and
// again, each time with the next record id. Its entries need no sort:
// grouped by keystring, each group is already in order (the scan gives
// record ids rising), and only the groups are put in order. keyDict
// keeps such a load as one list of record ids per distinct keystring,
// eight bytes an entry, and writes the entries from it at Finish; the
// arena (SortedLoad) would copy each whole key in, group them again with
// a lookup per entry (bucketsort.go) and gather them back out of the
// arena. The event log's {path: 1} build (1,000 paths over 2M events)
// cost about a third less this way (docs/benchmarks.md, sixteenth
// session of issue 33).
//
// The dictionary gives up, and its entries go to the arena like any
// others, when an entry has type bits or a value (a clustered
// collection's, a number's type), when a keystring's record ids stop
// rising, when the keystrings are many beside the entries (a time, an
// _id: those the arena sorts or streams, bulkstream.go), or when it
// would outgrow the load's memory budget. Unique indexes do not use it:
// their neighbour check stays with the arena's drain.
type keyDict struct {
	ids  map[string]int32
	keys [][]byte   // each group's keystring
	rids [][]uint64 // each group's record ids, rising
	n    int        // entries
	// next is the entry count at which the groups are next weighed
	// against the entries.
	next int
	// max is the most entries the load's memory budget allows.
	max int
	// rising: every entry so far had a keystring of its own, above the
	// one before (a time's build, which the arena will stream).
	rising bool
}

// Limits of the dictionary (see keyDict).
const (
	// dictFirstCheck is the entry count of the first weighing of the
	// groups, then at every doubling. Up to dictFirstCheck/2 groups
	// pass any weighing, so that a thousand values are kept before
	// their eight thousandth entry.
	dictFirstCheck = 4096
	// dictDistinctCheck is the entry count at which a load whose
	// entries have all had keystrings of their own gives up.
	dictDistinctCheck = 256
	// dictEntriesPerKey is the fewest entries per group kept.
	dictEntriesPerKey = 8
	// dictMaxKeys bounds the groups (bucketsort.go's maxBuckets does
	// the same for the arena's grouping).
	dictMaxKeys = 1 << 16
	// dictEntryBytes is an entry's memory, counting the growth of its
	// group's slice.
	dictEntryBytes = 16
)

func newKeyDict(budget int) *keyDict {
	return &keyDict{ids: make(map[string]int32), next: dictFirstCheck, max: budget / dictEntryBytes, rising: true}
}

// add adds the entry (ks, rid) and reports whether it did; when it did
// not, the dictionary takes no more.
func (d *keyDict) add(ks []byte, rid uint64) bool {
	if d.n >= d.max {
		return false
	}
	if d.n == dictDistinctCheck && len(d.keys) == d.n {
		return false // every entry a value of its own so far: a time, an _id
	}
	if d.n == d.next {
		if len(d.keys) > max(d.n/dictEntriesPerKey, dictFirstCheck/2) {
			return false
		}
		d.next *= 2
	}
	id, ok := d.ids[string(ks)]
	if !ok {
		if len(d.keys) >= dictMaxKeys {
			return false
		}
		if d.rising && len(d.keys) > 0 && bytes.Compare(ks, d.keys[len(d.keys)-1]) <= 0 {
			d.rising = false
		}
		id = int32(len(d.keys))
		k := append([]byte(nil), ks...)
		d.ids[string(k)] = id
		d.keys = append(d.keys, k)
		d.rids = append(d.rids, nil)
	} else if r := d.rids[id]; r[len(r)-1] >= rid {
		return false
	} else {
		d.rising = false
	}
	d.rids[id] = append(d.rids[id], rid)
	d.n++
	return true
}

// order returns the groups in keystring order, or false when one
// keystring is a prefix of another: the entries' order would then
// depend on record ids, not on the keystrings alone.
func (d *keyDict) order() ([]int32, bool) {
	order := make([]int32, len(d.keys))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return bytes.Compare(d.keys[a], d.keys[b]) })
	for i := 1; i < len(order); i++ {
		if bytes.HasPrefix(d.keys[order[i]], d.keys[order[i-1]]) {
			return order, false
		}
	}
	return order, true
}

// bytes is the size of the entries' keys.
func (d *keyDict) bytes() int64 {
	var b int64
	for i, k := range d.keys {
		b += int64(len(d.rids[i])) * int64(indexPrefixLen+len(k)+8)
	}
	return b
}

// dictSource yields a dictionary's entries as index keys, in order.
type dictSource struct {
	d       *keyDict
	indexID uint64
	order   []int32
	g, i    int // the group (in order) and the entry within it
	kb      []byte
}

func (s *dictSource) next() (k, v []byte, ok bool, err error) {
	for s.g < len(s.order) {
		id := s.order[s.g]
		if r := s.d.rids[id]; s.i < len(r) {
			s.kb = appendIndexKey(s.kb[:0], s.indexID, s.d.keys[id], r[s.i])
			s.i++
			return s.kb, nil, true, nil
		}
		s.g, s.i = s.g+1, 0
	}
	return nil, nil, false, nil
}
