package engine

import (
	"bytes"
	"encoding/binary"
	"sync/atomic"

	"github.com/lodedb/lode/internal/query/exec"
)

// Known-empty index ranges ("empty prefix" hints).
//
// A work queue claims jobs with findAndModify({startTime: null}, sort
// {createdOn: 1}, $set startTime) over the index {startTime: 1, createdOn:
// 1}. Each claim moves the job's entry out of the startTime: null range and
// leaves a SingleDelete tombstone at the head of that range, so without
// help every later claim would seek to the start of the range and walk
// over all the tombstones of the jobs claimed before it.
//
// The collection therefore keeps, per index, hints S -> F meaning "the
// index holds no entries in [S, F)": S is the start of a forward IXSCAN
// range and F the key of the first entry that scan found (or the range's
// end when it found none). A later scan whose range starts exactly at S
// starts at F instead. Keys are in the index's key space without the index
// prefix (keystring, then the big-endian record id).
//
// Validity rests on the collection's writer lock:
//   - Hints are read and written only by statements holding the lock that
//     are not part of a multi-document transaction (those read through the
//     transaction's batch, whose view other statements do not share).
//   - Every index entry set under the lock goes through writeBatch.writeStaged,
//     which shrinks a hint [S, F) containing the new key k to [S, k) (or
//     drops it when k == S). Removing entries never invalidates a hint.
//   - A transaction commit applies index entries that were staged without
//     shrinking the hints (it holds the lock while it commits, but its
//     entries never went through writeStaged under it). It counts itself
//     in txnCommitting while it commits and bumps txnGen afterwards; hints
//     belong to the txnGen seen when the statement began, and are ignored
//     while a commit is under way or after txnGen moved on.
//   - Index builds, index drops, renames and collection drops clear them
//     (publish and dropLocked); index ids are never reused.
//
// Scans without the lock (find, count, the snapshot pass of updateMany and
// deleteMany) never use hints.

// maxEmptyRangesPerIndex bounds the hints kept per index.
const maxEmptyRangesPerIndex = 8

// emptyRange is one hint: no entries in [start, end).
type emptyRange struct {
	start, end []byte
}

// emptyRanges are a collection's hints, guarded by collState.mu.
type emptyRanges struct {
	gen     uint64 // txnGen the hints were recorded under
	byIndex map[uint64][]emptyRange
	// uniqMax holds, per unique index id, what is known of the index's
	// highest entries (uniquebound.go): the unique check of most new keys
	// needs no seek. It follows the hints' rules: writeStaged notes each
	// new entry (noteIndexSet), removals leave it an upper bound, and a
	// transaction commit (txnGen) or DDL discards it.
	uniqMax map[uint64]*uniqueBound
	pos     []byte // noteIndexSet's scratch
}

// clear drops every hint.
func (h *emptyRanges) clear() { h.byIndex, h.uniqMax = nil, nil }

// shrink narrows the hints of index id around a new entry key (without the
// index prefix).
func (h *emptyRanges) shrink(id uint64, key []byte) {
	rs := h.byIndex[id]
	w := 0
	for _, r := range rs {
		if bytes.Compare(key, r.start) >= 0 && bytes.Compare(key, r.end) < 0 {
			if bytes.Equal(key, r.start) {
				continue
			}
			r.end = append(r.end[:0], key...)
		}
		rs[w] = r
		w++
	}
	if len(rs) > 0 {
		h.byIndex[id] = rs[:w]
	}
}

// txnCommits counts a collection's transaction commits: committing while
// they run, gen once each is done. A nil *txnCommits disables the hints.
type txnCommits struct {
	committing atomic.Int32
	gen        atomic.Uint64
}

func (c *txnCommits) begin() {
	if c != nil {
		c.committing.Add(1)
	}
}

func (c *txnCommits) end() {
	if c != nil {
		c.gen.Add(1)
		c.committing.Add(-1)
	}
}

// lockedRanges is the exec.EmptyRanges view of one locked statement.
type lockedRanges struct {
	st  *collState
	gen uint64
	ok  bool // no transaction commit was under way when the view began
}

// emptyRangesFor returns the hints a statement of t may use: none inside a
// multi-document transaction. The caller holds t.c.state.mu.
func (t *writeBatch) emptyRangesFor() exec.EmptyRanges {
	st := t.c.state
	if t.tx != nil || st.commits == nil {
		return nil
	}
	v := &lockedRanges{st: st}
	v.ok = st.commits.committing.Load() == 0
	v.gen = st.commits.gen.Load()
	return v
}

// valid reports whether the stored hints may be used now: no transaction
// commit ran since the statement began (the scan's iterator may see it).
func (v *lockedRanges) valid() bool {
	c := v.st.commits
	return v.ok && c.committing.Load() == 0 && c.gen.Load() == v.gen && v.st.hints.gen == v.gen
}

// Skip implements exec.EmptyRanges.
func (v *lockedRanges) Skip(id uint64, start []byte) []byte {
	if !v.valid() {
		return nil
	}
	for _, r := range v.st.hints.byIndex[id] {
		if bytes.Equal(r.start, start) {
			return r.end
		}
	}
	return nil
}

// Note implements exec.EmptyRanges.
func (v *lockedRanges) Note(id uint64, start, first []byte) {
	if !v.ok || bytes.Equal(start, first) {
		return
	}
	h := &v.st.hints
	if h.gen != v.gen || h.byIndex == nil {
		h.gen = v.gen
		h.byIndex = map[uint64][]emptyRange{}
	}
	rs := h.byIndex[id]
	for i := range rs {
		if bytes.Equal(rs[i].start, start) {
			rs[i].end = append(rs[i].end[:0], first...)
			return
		}
	}
	if len(rs) >= maxEmptyRangesPerIndex {
		rs = append(rs[:0], rs[1:]...)
	}
	h.byIndex[id] = append(rs, emptyRange{start: append([]byte(nil), start...), end: append([]byte(nil), first...)})
}

// noteIndexSet shrinks the hints of index id around a new entry
// (keystring ks, record rid), for a bulk insert's batch when bulk is set
// (uniqueBound.noteRising). The caller holds the collection's writer
// lock.
func (st *collState) noteIndexSet(id uint64, ks []byte, rid uint64, bulk bool) {
	if b := st.hints.uniqMax[id]; b != nil {
		if bulk {
			b.noteRising(ks)
		} else {
			b.note(ks)
		}
	}
	if st.hints.byIndex == nil {
		return
	}
	// Hints compare entry positions: keystring, then big-endian record id
	// (storage.IndexCursor.SeekGE's).
	st.hints.pos = binary.BigEndian.AppendUint64(append(st.hints.pos[:0], ks...), rid)
	st.hints.shrink(id, st.hints.pos)
}

// uniqueMax returns the cached bound of unique index id's keystrings for
// a statement of t (nil: none usable). The caller holds the writer lock.
func (t *writeBatch) uniqueMax(id uint64) *uniqueBound {
	st := t.c.state
	if t.tx != nil || st.commits == nil || st.commits.committing.Load() != 0 || st.hints.gen != st.commits.gen.Load() {
		return nil
	}
	return st.hints.uniqMax[id]
}

// setUniqueMax records last, the last keystring of unique index id read
// by a statement of t (nil: the index is empty), as its bound.
func (t *writeBatch) setUniqueMax(id uint64, last []byte) {
	st := t.c.state
	if t.tx != nil || st.commits == nil || st.commits.committing.Load() != 0 {
		return
	}
	h := &st.hints
	if gen := st.commits.gen.Load(); h.gen != gen {
		h.gen, h.byIndex, h.uniqMax = gen, nil, nil
	}
	if h.uniqMax == nil {
		h.uniqMax = map[uint64]*uniqueBound{}
	}
	h.uniqMax[id] = newUniqueBound(last)
}
