package storage

import (
	"bytes"
	"sync"
)

// A bulk insert's batch (NewIngestBatch) keeps its writes out of a Pebble
// batch for as long as they are only the setting of keys: each key and
// value is copied once into an arena, with its key range noted, and a
// commit by ingestion (ingestcommit.go) reads the ranges' runs from there.
// Through a Pebble batch each write was encoded into the batch (the index
// entries into a side batch, then copied into the main one), and decoded
// again and split into ranges at the commit. A batch too small for
// ingestion, or one that is given anything but a set (a delete, a range
// deletion), replays what it staged into a Pebble batch, in key order and
// the last set of each key (what the sets leave), and goes on as an
// ordinary batch (unstage).

// stagedWrite is one staged set: its key and value in the arena, and the
// key range it belongs to (an index into ingestStage.ranges).
type stagedWrite struct {
	off        int
	klen, vlen uint32
	rng        uint32
}

// ingestStage holds a batch's staged sets in the order written.
type ingestStage struct {
	arena  []byte
	writes []stagedWrite
	// ranges are the key-range prefixes met (ingestRange), in first-met
	// order; last is the index of the range of the latest write.
	ranges [][]byte
	last   int
	// bytes is the size of the writes as a Pebble batch counts them
	// (about): keys, values and a few bytes of framing each.
	bytes int
	// ents backs the runs groups returns, kept with the arena for the
	// next batch: a batch of 10,000 small documents has 20,000 entries,
	// which a fresh slice had zeroed each time.
	ents []ingestEntry
}

// stagedFraming is about what a Pebble batch adds to each set beside its
// key and value (a kind byte and two varint lengths).
const stagedFraming = 3

// stagePool keeps the arenas of committed stages for the next bulk
// batch: a bulk insert commits batches of up to 16 MiB in turn.
var stagePool sync.Pool

// newIngestStage returns a stage whose arena holds size bytes before it
// grows.
func newIngestStage(size int) *ingestStage {
	if s, ok := stagePool.Get().(*ingestStage); ok {
		if cap(s.arena) >= size {
			return s
		}
	}
	return &ingestStage{arena: make([]byte, 0, size), writes: make([]stagedWrite, 0, size/128), last: -1}
}

// release empties s and returns it to the pool.
func (s *ingestStage) release() {
	s.arena, s.writes = s.arena[:0], s.writes[:0]
	for i := range s.ranges {
		s.ranges[i] = nil
	}
	s.ranges, s.last, s.bytes = s.ranges[:0], -1, 0
	stagePool.Put(s)
}

// add stages the setting of key to value, copying both.
func (s *ingestStage) add(key, value []byte) {
	p := ingestRange(key)
	r := s.last
	if r < 0 || len(s.ranges[r]) != p || !bytes.Equal(s.ranges[r], key[:p]) {
		r = -1
		for i, pr := range s.ranges {
			if len(pr) == p && bytes.Equal(pr, key[:p]) {
				r = i
				break
			}
		}
		if r < 0 {
			r = len(s.ranges)
			s.ranges = append(s.ranges, bytes.Clone(key[:p]))
		}
		s.last = r
	}
	off := len(s.arena)
	s.arena = append(append(s.arena, key...), value...)
	s.writes = append(s.writes, stagedWrite{off: off, klen: uint32(len(key)), vlen: uint32(len(value)), rng: uint32(r)})
	s.bytes += len(key) + len(value) + stagedFraming
}

// kv returns the key and value of w.
func (s *ingestStage) kv(w stagedWrite) (key, value []byte) {
	k := s.arena[w.off : w.off+int(w.klen) : w.off+int(w.klen)]
	v := s.arena[w.off+int(w.klen) : w.off+int(w.klen)+int(w.vlen) : w.off+int(w.klen)+int(w.vlen)]
	return k, v
}

// groups returns the staged writes as sorted runs of distinct keys,
// one of distinct keys per range, the runs in key order.
func (s *ingestStage) groups() [][]ingestEntry {
	counts := make([]int, len(s.ranges))
	for _, w := range s.writes {
		counts[w.rng]++
	}
	if cap(s.ents) < len(s.writes) {
		s.ents = make([]ingestEntry, len(s.writes))
	}
	all := s.ents[:len(s.writes)]
	groups := make([][]ingestEntry, len(s.ranges))
	at := 0
	for r, n := range counts {
		groups[r] = all[at : at : at+n]
		at += n
	}
	for ord, w := range s.writes {
		k, v := s.kv(w)
		groups[w.rng] = append(groups[w.rng], ingestEntry{key: k, value: v, ord: ord})
	}
	return sortGroups(groups)
}
