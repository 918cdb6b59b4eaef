package engine

import (
	"sync"

	"github.com/lodedb/lode/internal/indexkey"
)

// writeScratch holds a write batch's working buffers between commands: the
// key generator's, the staged index entries and the pending unique keys.
// A single-document write grew each of them from nothing, a dozen
// allocations per insert; a batch takes a scratch when it is made and
// gives it back when it ends (writeBatch.abort).
type writeScratch struct {
	g       indexkey.Generator
	sbuf    []byte
	staged  []stagedKey
	pending pendingKeys
	kbuf    []byte
	// touched and touchedEnds: the conflict keys of a plain write
	// (txn_write.go); idxDelta: its index bytes by index (stats_size.go).
	touched     []byte
	touchedEnds []int
	idxDelta    map[uint64]int64
}

var scratchPool = sync.Pool{New: func() any { return new(writeScratch) }}

// maxScratchBytes bounds the buffers a scratch keeps: a bulk insert's may
// grow far beyond a single write's, and are left to the collector.
const maxScratchBytes = 1 << 20

// takeScratch gives t a pooled scratch's buffers.
func (t *writeBatch) takeScratch() {
	s := scratchPool.Get().(*writeScratch)
	t.scr = s
	t.g, t.sbuf, t.staged, t.pending, t.kbuf = s.g, s.sbuf[:0], s.staged[:0], s.pending, s.kbuf[:0]
	t.touched, t.touchedEnds, t.idxDelta = s.touched[:0], s.touchedEnds[:0], s.idxDelta
	*s = writeScratch{}
}

// releaseScratch returns t's buffers to the pool; t keeps working with
// fresh ones if it is used again. It is idempotent.
func (t *writeBatch) releaseScratch() {
	s := t.scr
	if s == nil {
		return
	}
	t.scr = nil
	t.g.Release()
	t.pending.release()
	if cap(t.sbuf) <= maxScratchBytes && cap(t.staged)*32 <= maxScratchBytes && cap(t.touched) <= maxScratchBytes {
		s.g, s.sbuf, s.staged, s.pending, s.kbuf = t.g, t.sbuf[:0], t.staged[:0], t.pending, t.kbuf[:0]
		s.touched, s.touchedEnds = t.touched[:0], t.touchedEnds[:0]
		if len(t.idxDelta) <= 64 {
			clear(t.idxDelta)
			s.idxDelta = t.idxDelta
		}
	}
	t.g, t.sbuf, t.staged, t.pending, t.kbuf = indexkey.Generator{}, nil, nil, pendingKeys{}, nil
	t.touched, t.touchedEnds, t.idxDelta = nil, nil, nil
	scratchPool.Put(s)
}
