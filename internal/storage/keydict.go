package storage

import (
	"bytes"
	"encoding/binary"
	"slices"
)

// An index build over a field of few distinct values (an event's path
// or host, an order's status) adds the same few keystrings again and
// again, each time with the next record id. Its entries need no sort:
// grouped by keystring, each group is already in order (the scan gives
// record ids rising), and only the groups are put in order. keyDict
// keeps such a load as one list of record ids per distinct keystring,
// eight bytes an entry, and writes the entries from it at Finish; the
// arena (SortedLoad) would copy each whole key in with a 32-byte entry,
// group them again with a lookup per entry (bucketsort.go) and gather
// them back out of the arena. The event log's {path: 1} build (1,000
// paths over 2M events) cost about a third less this way
// (docs/benchmarks.md, sixteenth session of issue 33).
//
// A compound index whose first field has few values is kept the same
// way on that field (the head, AddHead's): each head's entries are the
// rest of their keystrings, their type bits and their record ids, which
// must rise or fall throughout the group (a time within each host, a
// descending ts within each category, as the records were inserted);
// a falling group is written in reverse.
//
// A single field's entries with type bits (an int64 beside an int32 of
// the same value, a double that is an integer: what mongosh and the Node
// driver send) turn the lists into that form too, an empty rest of the
// keystring before each entry's type bits; the lists stay for the
// common case, as the longer form costs a {path: 1} build about a fifth
// more.
//
// The dictionary gives up, and its entries go to the arena in key order
// like any others, when an entry has a part it cannot keep (over 255
// bytes: a long suffix, a clustered collection's value), when a group's
// entries stop rising (or falling), when the groups are many beside the
// entries (a time, an _id: those the arena sorts or streams,
// bulkstream.go), or when it would outgrow the load's memory budget.
// Unique indexes do not use it: their neighbour check stays with the
// arena's drain.
type keyDict struct {
	// byHead: a compound key's entries, grouped on their first field.
	byHead bool
	ids    map[string]int32
	keys   [][]byte // each group's keystring, or head when byHead
	// long: the entries are in ents (byHead, or a single field's once
	// one had type bits), else in rids.
	long bool
	// rids are each group's record ids, rising (not long).
	rids [][]uint64
	// ents are each group's entries when long: the keystring after the
	// head (empty for a single field) and the type bits, each after a
	// length byte, then the record id. They are kept in chunks of at
	// most dictChunk bytes (entChunks); offs are where each begins (its
	// chunk, then its offset in it), dirs each group's direction (1
	// rising, -1 falling, 0 not yet known).
	ents []entChunks
	offs [][]uint32
	dirs []int8
	n    int // entries
	size int // bytes held, against max
	// next is the entry count at which the groups are next weighed
	// against the entries.
	next int
	max  int
	// rising: every entry so far started a group of its own, above the
	// one before (a time's build, which the arena will stream).
	rising bool
}

// Limits of the dictionary (see keyDict).
const (
	// dictDistinctCheck is the entry count at which a load whose
	// entries have all started groups of their own gives up.
	dictDistinctCheck = 256
	// dictEntriesPerKey is the fewest entries per group kept.
	dictEntriesPerKey = 8
	// dictFirstCheck is the entry count of the first weighing of the
	// groups, then at every doubling. Up to dictFirstCheck/2 groups
	// pass any weighing, so that a thousand values are kept before
	// their eight thousandth entry.
	dictFirstCheck = 4096
	// dictMaxKeys bounds the groups (bucketsort.go's maxBuckets does
	// the same for the arena's grouping).
	dictMaxKeys = 1 << 16
	// dictEntryBytes is a record id's memory, counting the growth of
	// its group's slice; a long entry counts its bytes twice.
	dictEntryBytes = 16
)

func newKeyDict(budget int) *keyDict {
	return &keyDict{ids: make(map[string]int32), next: dictFirstCheck, max: budget, rising: true}
}

// start sets how the entries are grouped, before the first: on their
// head (a compound key's first field) or on the whole keystring.
func (d *keyDict) start(byHead bool) { d.byHead, d.long = byHead, byHead }

// toLong moves a single field's record id lists into the long form.
func (d *keyDict) toLong() {
	d.ents, d.offs, d.dirs = make([]entChunks, len(d.rids)), make([][]uint32, len(d.rids)), make([]int8, len(d.rids))
	for id, rids := range d.rids {
		d.offs[id] = make([]uint32, 0, len(rids))
		for _, rid := range rids {
			d.offs[id] = append(d.offs[id], d.ents[id].add(nil, nil, rid))
		}
		if len(rids) > 1 {
			d.dirs[id] = 1
		}
		d.size += len(rids) * (2*(10+4) - dictEntryBytes)
	}
	d.rids, d.long = nil, true
}

// add adds the entry (ks, rid) with type bits tb, grouped on its first
// head bytes when the dictionary is byHead, and reports whether it did;
// when it did not, the dictionary takes no more.
func (d *keyDict) add(ks []byte, rid uint64, tb []byte, head int) bool {
	if (head > 0) != d.byHead || len(tb) > 255 {
		return false
	}
	if !d.byHead {
		head = len(ks) // the whole keystring groups; nothing follows it
		if len(tb) > 0 && !d.long {
			d.toLong()
		}
	}
	if head > len(ks) || len(ks)-head > 255 {
		return false
	}
	g := ks[:head]
	if d.size >= d.max {
		return false
	}
	if d.n == dictDistinctCheck && len(d.keys) == d.n {
		return false // every entry a group of its own so far: a time, an _id
	}
	if d.n == d.next {
		if len(d.keys) > max(d.n/dictEntriesPerKey, dictFirstCheck/2) {
			return false
		}
		d.next *= 2
	}
	id, ok := d.ids[string(g)]
	if !ok {
		if len(d.keys) >= dictMaxKeys {
			return false
		}
		if d.rising && len(d.keys) > 0 && bytes.Compare(g, d.keys[len(d.keys)-1]) <= 0 {
			d.rising = false
		}
		id = int32(len(d.keys))
		k := append([]byte(nil), g...)
		d.ids[string(k)] = id
		d.keys = append(d.keys, k)
		d.size += len(k) + 64
		if d.long {
			d.ents = append(d.ents, entChunks{})
			d.offs = append(d.offs, nil)
			d.dirs = append(d.dirs, 0)
		} else {
			d.rids = append(d.rids, nil)
		}
	} else {
		d.rising = false
		if d.long {
			if !d.follows(id, ks[head:], rid) {
				return false
			}
		} else if r := d.rids[id]; r[len(r)-1] >= rid {
			return false
		}
	}
	if d.long {
		d.offs[id] = append(growDouble(d.offs[id], 1), d.ents[id].add(ks[head:], tb, rid))
		d.size += 2 * (longEntryBytes(len(ks)-head, len(tb)) + 4)
	} else {
		d.rids[id] = append(growDouble(d.rids[id], 1), rid)
		d.size += dictEntryBytes
	}
	d.n++
	return true
}

// follows reports whether the entry (suf, rid), suf its keystring
// after the head, keeps group id rising or falling throughout, and notes
// the group's direction. An equal suffix orders the two entries by
// record id: it rises when the record ids do (a scan's usual order, not
// a clustered collection's), and cannot follow a falling group.
func (d *keyDict) follows(id int32, suf []byte, rid uint64) bool {
	lastSuf, _, lastRID := d.entry(id, len(d.offs[id])-1)
	c := bytes.Compare(suf, lastSuf)
	if c == 0 && rid <= lastRID {
		return false
	}
	switch {
	case d.dirs[id] == 0:
		d.dirs[id] = 1
		if c < 0 {
			d.dirs[id] = -1
		}
		return true
	case d.dirs[id] > 0:
		return c >= 0
	default:
		return c < 0
	}
}

// entry decodes entry i of group id (long).
func (d *keyDict) entry(id int32, i int) (suf, tb []byte, rid uint64) {
	o := d.offs[id][i]
	e := d.ents[id].chunks[o>>dictChunkBits][o&(dictChunk-1):]
	suf, e = e[1:1+int(e[0])], e[1+int(e[0]):]
	tb, e = e[1:1+int(e[0])], e[1+int(e[0]):]
	return suf, tb, binary.BigEndian.Uint64(e)
}

// groupLen is the number of entries of group id.
func (d *keyDict) groupLen(id int32) int {
	if d.long {
		return len(d.offs[id])
	}
	return len(d.rids[id])
}

// order returns the groups in keystring (or head) order, or false when
// one is a prefix of another: the entries' order would then depend on
// what follows them, not on the groups alone.
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

// bytes is the size of the entries' keys and values.
func (d *keyDict) bytes() int64 {
	var b int64
	for i, k := range d.keys {
		if d.long {
			b += d.ents[i].n + int64(len(d.offs[i]))*int64(indexPrefixLen+len(k)-2)
		} else {
			b += int64(len(d.rids[i])) * int64(indexPrefixLen+len(k)+8)
		}
	}
	return b
}

// dictSource yields a dictionary's entries as index keys and values, in
// the groups' order, each group forward or (falling) backward.
type dictSource struct {
	d       *keyDict
	indexID uint64
	order   []int32
	g, i    int // the group (in order) and the entries of it taken
	kb      []byte
	head    int // the head's length in the last key (0 without one)
}

func (s *dictSource) next() (k, v []byte, ok bool, err error) {
	d := s.d
	for s.g < len(s.order) {
		id := s.order[s.g]
		if s.i >= d.groupLen(id) {
			s.g, s.i = s.g+1, 0
			continue
		}
		if !d.long {
			s.kb = appendIndexKey(s.kb[:0], s.indexID, d.keys[id], d.rids[id][s.i])
			s.i++
			return s.kb, nil, true, nil
		}
		j := s.i
		if d.dirs[id] < 0 {
			j = d.groupLen(id) - 1 - s.i
		}
		s.i++
		suf, tb, rid := d.entry(id, j)
		s.kb = appendIndexPrefix(s.kb[:0], s.indexID)
		s.kb = append(s.kb, d.keys[id]...)
		s.kb = append(s.kb, suf...)
		s.kb = binary.BigEndian.AppendUint64(s.kb, rid)
		s.head = 0
		if d.byHead {
			s.head = len(d.keys[id])
		}
		return s.kb, tb, true, nil
	}
	return nil, nil, false, nil
}

// entChunks are one group's long entries, back to back in chunks of at
// most dictChunk bytes: the first grows by doubling up to dictChunk, the
// ones after it are allocated whole. A group in one slice grew by
// doubling too, and each doubling copied the group so far into memory
// the kernel first had to fault in: 8% of the event log's index builds
// (docs/benchmarks.md, twenty-eighth session). An entry is at most 521
// bytes, so it always fits in a chunk.
type entChunks struct {
	chunks [][]byte
	n      int64 // bytes in all chunks
}

// dictChunk is the size of an entChunks chunk, and 1<<dictChunkBits; an
// entry's place is its chunk's index, shifted by dictChunkBits, plus its
// offset in the chunk.
const (
	dictChunkBits = 16
	dictChunk     = 1 << dictChunkBits
)

// longEntryBytes is the size of a long entry: its suffix and type bits of
// those lengths, each after a length byte, then the record id.
func longEntryBytes(suf, tb int) int { return 1 + suf + 1 + tb + 8 }

// add appends the entry (suf, tb, rid) and returns its place.
func (c *entChunks) add(suf, tb []byte, rid uint64) uint32 {
	n := longEntryBytes(len(suf), len(tb))
	last := len(c.chunks) - 1
	switch {
	case last < 0:
		c.chunks = append(c.chunks, make([]byte, 0, max(n, 64)))
		last = 0
	case len(c.chunks[last])+n > dictChunk:
		c.chunks = append(c.chunks, make([]byte, 0, dictChunk))
		last++
	case len(c.chunks[last])+n > cap(c.chunks[last]):
		e := c.chunks[last]
		c.chunks[last] = slices.Grow(e, min(max(n, cap(e)), dictChunk-len(e)))
	}
	e := c.chunks[last]
	at := uint32(last)<<dictChunkBits | uint32(len(e))
	e = append(e, byte(len(suf)))
	e = append(e, suf...)
	e = append(e, byte(len(tb)))
	e = append(e, tb...)
	c.chunks[last] = binary.BigEndian.AppendUint64(e, rid)
	c.n += int64(n)
	return at
}

// growDouble returns s with room for n more elements, doubling its
// capacity when it has none. append grows a large slice by about a
// quarter at a time, so a group that ends at S bytes is copied about 4S
// bytes' worth on its way there, and each copy leaves its predecessor
// as garbage; doubling copies about S (dictEntryBytes, and the double
// count of a long entry, already allow for a group's slice at up to
// twice its length).
func growDouble[S ~[]E, E any](s S, n int) S {
	if len(s)+n <= cap(s) {
		return s
	}
	return slices.Grow(s, max(n, cap(s)))
}
