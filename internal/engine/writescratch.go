package engine

import (
	"sync"
	"unsafe"

	"github.com/lodedb/lode/internal/indexkey"
)

// writeScratch holds a write batch's working buffers between commands. A
// single-document write grew each of them from nothing, a dozen
// allocations per insert; a batch takes a scratch when it is made and
// gives it back when it ends (writeBatch.abort). writeBatch embeds it.
type writeScratch struct {
	g       indexkey.Generator
	staged  []stagedKey
	sbuf    []byte      // staged keystrings and type bits
	pending pendingKeys // unique keys added in this batch (pendingkeys.go)
	kbuf    []byte
	// touched holds the conflict keys written outside a transaction,
	// back to back, each ending at its touchedEnds offset (txn_write.go).
	touched     []byte
	touchedEnds []int
	idxDelta    indexDeltas // index bytes added (removed if < 0) by index id (stats_size.go)
}

var scratchPool = sync.Pool{New: func() any { return new(writeScratch) }}

// maxScratchBytes bounds the buffers a scratch keeps: a bulk insert's may
// grow far beyond a single write's, and are left to the collector.
const maxScratchBytes = 1 << 20

// takeScratch gives t a pooled scratch's buffers.
func (t *writeBatch) takeScratch() {
	s := scratchPool.Get().(*writeScratch)
	t.scr, t.writeScratch = s, *s
}

// releaseScratch returns t's buffers to the pool, emptied; t keeps
// working with fresh ones if it is used again. It is idempotent.
func (t *writeBatch) releaseScratch() {
	s := t.scr
	if s == nil {
		return
	}
	t.scr = nil
	w := &t.writeScratch
	w.g.Release()
	w.pending.release()
	if cap(w.sbuf) > maxScratchBytes || cap(w.touched) > maxScratchBytes ||
		cap(w.staged) > maxScratchBytes/int(unsafe.Sizeof(stagedKey{})) || cap(w.idxDelta) > 64 {
		*s = writeScratch{} // a bulk write's: left to the collector
	} else {
		*s = writeScratch{g: w.g, staged: w.staged[:0], sbuf: w.sbuf[:0], pending: w.pending, kbuf: w.kbuf[:0],
			touched: w.touched[:0], touchedEnds: w.touchedEnds[:0], idxDelta: w.idxDelta[:0]}
	}
	*w = writeScratch{}
	scratchPool.Put(s)
}
