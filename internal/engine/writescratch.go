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
	if cap(t.sbuf) <= maxScratchBytes && cap(t.staged)*32 <= maxScratchBytes {
		s.g, s.sbuf, s.staged, s.pending, s.kbuf = t.g, t.sbuf[:0], t.staged[:0], t.pending, t.kbuf[:0]
	}
	t.g, t.sbuf, t.staged, t.pending, t.kbuf = indexkey.Generator{}, nil, nil, pendingKeys{}, nil
	scratchPool.Put(s)
}
