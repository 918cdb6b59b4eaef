package engine

import (
	"bytes"
	"sort"

	"github.com/lodedb/lode/internal/storage"
)

// pendingKeys are the keys of unique indexes a write batch has added and
// not yet committed, with the record each belongs to: the unique checks
// of the batch's later documents look here, since the batch's entries are
// not in the index yet. Keys that rise (ObjectIds, counters, the _ids of
// a bulk insert) go to a per-index run, appended without hashing or
// allocating, where a key above the run's last needs one comparison;
// others go to a map.
type pendingKeys struct {
	m    map[string]uint64 // by storage.AppendIndexKeyLockKey
	runs []risingRun
}

// risingRun holds one index's pending keys that arrived in rising order:
// every key the map holds for that index is below the run's last.
type risingRun struct {
	id   uint64
	buf  []byte // keystrings back to back
	ends []int
	rids []uint64 // goneRID: removed again
}

// goneRID marks a run's key removed in the batch after it was added.
const goneRID = ^uint64(0)

func (r *risingRun) key(i int) []byte {
	start := 0
	if i > 0 {
		start = r.ends[i-1]
	}
	return r.buf[start:r.ends[i]]
}

// search returns the position of ks in r, or -1.
func (r *risingRun) search(ks []byte) int {
	n := len(r.ends)
	i := sort.Search(n, func(i int) bool { return bytes.Compare(r.key(i), ks) >= 0 })
	if i < n && bytes.Equal(r.key(i), ks) {
		return i
	}
	return -1
}

func (p *pendingKeys) run(id uint64) *risingRun {
	for i := range p.runs {
		if p.runs[i].id == id {
			return &p.runs[i]
		}
	}
	return nil
}

// lookup returns the record of pending key ks of index id (lockKey its
// lock key), if any.
func (p *pendingKeys) lookup(id uint64, ks, lockKey []byte) (uint64, bool) {
	if r := p.run(id); r != nil && len(r.ends) > 0 {
		if bytes.Compare(ks, r.key(len(r.ends)-1)) > 0 {
			return 0, false // above every pending key of the index
		}
		if i := r.search(ks); i >= 0 && r.rids[i] != goneRID {
			return r.rids[i], true
		}
	}
	rid, ok := p.m[string(lockKey)]
	return rid, ok
}

// add notes key ks of index id as pending for record rid. Only a key
// that does not rise needs its lock key, built in *kbuf.
func (p *pendingKeys) add(id uint64, ks []byte, rid uint64, kbuf *[]byte) {
	r := p.run(id)
	if r == nil {
		if len(p.runs) < cap(p.runs) {
			// A run a released batch left (release): its buffers are reused.
			p.runs = p.runs[:len(p.runs)+1]
			r = &p.runs[len(p.runs)-1]
			r.id, r.buf, r.ends, r.rids = id, r.buf[:0], r.ends[:0], r.rids[:0]
		} else {
			p.runs = append(p.runs, risingRun{id: id})
			r = &p.runs[len(p.runs)-1]
		}
	}
	if n := len(r.ends); n == 0 || bytes.Compare(ks, r.key(n-1)) > 0 {
		r.buf = append(r.buf, ks...)
		r.ends = append(r.ends, len(r.buf))
		r.rids = append(r.rids, rid)
		return
	}
	if p.m == nil {
		p.m = map[string]uint64{}
	}
	*kbuf = storage.AppendIndexKeyLockKey((*kbuf)[:0], id, ks)
	p.m[string(*kbuf)] = rid
}

// remove drops pending key ks of index id when it is record rid's.
func (p *pendingKeys) remove(id uint64, ks, lockKey []byte, rid uint64) {
	if r := p.run(id); r != nil {
		if i := r.search(ks); i >= 0 && r.rids[i] == rid {
			r.rids[i] = goneRID
		}
	}
	if r, ok := p.m[string(lockKey)]; ok && r == rid {
		delete(p.m, string(lockKey))
	}
}

// reset forgets every pending key (the batch committed or was dropped),
// keeping the buffers.
func (p *pendingKeys) reset() {
	clear(p.m)
	for i := range p.runs {
		r := &p.runs[i]
		r.buf, r.ends, r.rids = r.buf[:0], r.ends[:0], r.rids[:0]
	}
}

// release forgets every pending key and every index's run, keeping the
// runs' buffers for the next batch (writescratch.go).
func (p *pendingKeys) release() {
	p.m = nil // used by keys out of order, a bulk insert's: left to the collector
	for i := range p.runs {
		if cap(p.runs[i].buf) > maxScratchBytes {
			p.runs = nil
			return
		}
	}
	p.reset()
	p.runs = p.runs[:0]
}
