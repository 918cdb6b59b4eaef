package storage

import (
	"sync"
	"sync/atomic"
	"time"
)

// Record cache.
//
// A batched FETCH (RecordCursor.FetchAscending) reads its records through
// a cache of documents kept in front of Pebble, as WiredTiger serves a
// FETCH from the working set in its own cache: a hit costs a hash lookup
// where Pebble costs a seek, or the steps of its merging iterator over
// the records in between (some ten per document when a query wants one
// record in ten).
//
// Pebble keeps versions by sequence number, the cache does not: it holds
// the records of one collection as one version of the collection sees
// them, and serves only readers that see that version. A version is
// named by a count of committed writes: DB.Commit counts every batch
// that writes records (one that SetRecord, DeleteRecord or DeleteRecords
// touched) when it starts and when it ends, and notes for each
// collection it wrote the count it ended at (its version) and drops the
// collection's cache. A snapshot taken while no such batch was under way,
// and none started or ended while it was taken, sees exactly the writes
// counted so far: it records that count as its view (recordView). A
// collection whose version is at most the view is seen by the snapshot
// at that version, and the cache of that version serves it; a collection
// written since the snapshot has a later version, and its reads go to
// Pebble. A cache is never changed to another version: a write replaces
// it, so a reader holding the old one keeps reading its own version.
//
// Caching starts only for a collection left unwritten for
// Options.RecordCacheQuiet, so that a collection under writes does not pay for
// filling caches its next write drops. The caches of a DB share a budget
// (Options.CacheSize / recordCacheShare); once it is spent, reads of
// records not cached go to Pebble until writes drop caches. Transactions
// (an Overlay), indexed batches and DB.Reader are not snapshots and never
// use the cache.

// recordCacheShare divides Options.CacheSize into the record cache budget,
// on top of Pebble's block cache.
const recordCacheShare = 8

// DefaultRecordCacheQuiet is how long a collection must go unwritten
// before its records are cached, when Options leave it zero: long enough
// that a collection under steady writes does not refill what each write
// drops (filling costs a copy of each document read), short enough that
// a collection read right after a burst of writes (a load, a batch job)
// is served from the cache rather than from the memtable the burst
// filled.
const DefaultRecordCacheQuiet = 250 * time.Millisecond

// recordCacheChunk is the largest arena chunk documents are copied into;
// a larger document is not cached. A cache's first chunk is
// minRecordChunk bytes and each next one twice the last, so that the
// cache of a small collection stays small.
const (
	recordCacheChunk = 1 << 20
	minRecordChunk   = 4 << 10
)

// The cache indexes records in two levels: a directory for each
// 1<<recordDirBits consecutive record ids, found by a hash lookup, holds
// the blocks of 1<<recordBlockBits ids, each an array of entries. A run
// of ascending ids (a batched FETCH's) finds its entries by indexing the
// directory of the one before, without a hash lookup; a dense collection
// costs a few bytes per record, not a map slot.
const (
	recordBlockBits = 5
	recordDirBits   = 12
	blocksPerDir    = 1 << (recordDirBits - recordBlockBits)
)

// recordBlockCost and recordDirCost are the budget a block of entries
// and a directory take; documents take the arena chunks they fill.
const (
	recordBlockCost = 8 << recordBlockBits
	recordDirCost   = 4*blocksPerDir + 16
)

// blockOf and slotOf locate rid in its directory and its block.
func blockOf(rid RecordID) uint32 { return uint32(rid>>recordBlockBits) & (blocksPerDir - 1) }
func slotOf(rid RecordID) uint32  { return uint32(rid) & (1<<recordBlockBits - 1) }

// recordCaches is a DB's record cache state: the write counts and each
// collection's version and cache.
type recordCaches struct {
	started atomic.Uint64 // record-writing commits started
	done    atomic.Uint64 // record-writing commits ended
	budget  int64
	quiet   int64 // nanoseconds (Options.RecordCacheQuiet)
	used    atomic.Int64

	mu    sync.Mutex
	colls map[uint64]*collRecords
}

// collRecords is one collection's version and cache.
type collRecords struct {
	inflight  int    // its commits under way
	version   uint64 // the commit count its last write ended at
	writtenAt int64  // unix nanos of the end of its last write
	cache     *recordCache
}

// recordView is what a snapshot sees of the record writes: every write
// counted up to count, none after.
type recordView struct {
	rc    *recordCaches
	count uint64
}

// view returns the view of a snapshot taken by take, or nil when record
// writes were under way while it was taken.
func (rc *recordCaches) view(take func()) *recordView {
	d1 := rc.done.Load()
	s1 := rc.started.Load()
	take()
	d2 := rc.done.Load()
	s2 := rc.started.Load()
	if s1 != d1 || d2 != d1 || s2 != s1 {
		return nil
	}
	return &recordView{rc: rc, count: d1}
}

// begin counts the start of a commit that writes the records of colls.
func (rc *recordCaches) begin(colls []uint64) {
	rc.mu.Lock()
	rc.started.Add(1)
	for _, id := range colls {
		rc.coll(id).inflight++
	}
	rc.mu.Unlock()
}

// end counts the end of a commit begun with begin (committed or not):
// each collection it wrote takes a new version and loses its cache.
func (rc *recordCaches) end(colls []uint64) {
	now := time.Now().UnixNano()
	rc.mu.Lock()
	v := rc.done.Add(1)
	for _, id := range colls {
		c := rc.coll(id)
		c.inflight--
		c.version, c.writtenAt = v, now
		if c.cache != nil {
			c.cache.drop()
			c.cache = nil
		}
	}
	rc.mu.Unlock()
}

// coll returns the state of collection id, created on first use (a
// collection not written since the DB opened is at version 0).
func (rc *recordCaches) coll(id uint64) *collRecords {
	if rc.colls == nil {
		rc.colls = map[uint64]*collRecords{}
	}
	c := rc.colls[id]
	if c == nil {
		c = &collRecords{}
		rc.colls[id] = c
	}
	return c
}

// cacheFor returns the cache of collID that serves a reader with view v,
// or nil.
func (v *recordView) cacheFor(collID uint64) *recordCache {
	rc := v.rc
	if rc.budget <= 0 {
		return nil
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	c := rc.coll(collID)
	if c.version > v.count {
		return nil // written since the snapshot
	}
	if c.cache == nil {
		if c.inflight > 0 || time.Now().UnixNano()-c.writtenAt < rc.quiet || rc.used.Load() >= rc.budget {
			return nil
		}
		c.cache = &recordCache{owner: rc, dirs: map[uint64]uint32{}}
	}
	return c.cache
}

// recordCache holds documents of one collection at one version. Entries
// are added, never changed or removed; the whole cache is dropped when
// the collection is written.
type recordCache struct {
	owner   *recordCaches
	mu      sync.RWMutex
	dirs    map[uint64]uint32 // rid>>recordDirBits: the directory's start in dirSlab
	dirSlab []uint32          // directories: a block's start in slab + 1; 0: none
	slab    []uint64          // blocks of entries: chunk<<40 | offset<<20 | length; 0: none
	n       int               // records cached
	chunks  [][]byte
	bytes   int64 // charged to owner.used
	gone    bool  // dropped: its bytes are no longer charged, and it takes no more
}

// drop returns the cache's bytes to the budget; readers holding it may
// go on reading it.
func (c *recordCache) drop() {
	c.mu.Lock()
	c.gone = true
	c.owner.used.Add(-c.bytes)
	c.mu.Unlock()
}

// recordBlockRef remembers the directory the last lookup found, for the
// next.
type recordBlockRef struct {
	key   uint64
	first uint32
	ok    bool // key and first are set
	found bool // the directory exists
}

// get returns the cached document of rid. The caller holds mu for reading;
// ref carries the directory of the previous lookup under the same lock
// hold.
func (c *recordCache) get(rid RecordID, ref *recordBlockRef) ([]byte, bool) {
	key := uint64(rid) >> recordDirBits
	if !ref.ok || ref.key != key {
		ref.first, ref.found = c.dirs[key]
		ref.key, ref.ok = key, true
	}
	if !ref.found {
		return nil, false
	}
	b := c.dirSlab[ref.first+blockOf(rid)]
	if b == 0 {
		return nil, false
	}
	e := c.slab[b-1+slotOf(rid)]
	if e == 0 {
		return nil, false
	}
	ch, off, n := e>>40, (e>>20)&(recordCacheChunk-1), e&(recordCacheChunk-1)
	return c.chunks[ch][off : off+n : off+n], true
}

// recordFill is a run of documents read from Pebble, to add to a cache.
type recordFill struct {
	rids []RecordID
	ends []int // ends[i]: the end of document i in buf
	buf  []byte
}

func (f *recordFill) reset() { f.rids, f.ends, f.buf = f.rids[:0], f.ends[:0], f.buf[:0] }

// add notes doc as the document of rid, if it fits a chunk.
func (f *recordFill) add(rid RecordID, doc []byte) {
	if len(doc) >= recordCacheChunk {
		return
	}
	f.buf = append(f.buf, doc...)
	f.rids = append(f.rids, rid)
	f.ends = append(f.ends, len(f.buf))
}

// put adds the documents of f not cached yet, within the budget.
func (c *recordCache) put(f *recordFill) {
	if len(f.rids) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone {
		return
	}
	start := 0
	for i, rid := range f.rids {
		doc := f.buf[start:f.ends[i]]
		start = f.ends[i]
		key := uint64(rid) >> recordDirBits
		d, okd := c.dirs[key]
		var b uint32
		if okd {
			b = c.dirSlab[d+blockOf(rid)]
		}
		if b != 0 && c.slab[b-1+slotOf(rid)] != 0 {
			continue
		}
		last := len(c.chunks) - 1
		chunk := 0 // the capacity of a new chunk, if the document needs one
		if last < 0 || len(c.chunks[last])+len(doc) > cap(c.chunks[last]) {
			chunk = minRecordChunk
			if last >= 0 {
				chunk = min(2*cap(c.chunks[last]), recordCacheChunk)
			}
			chunk = max(chunk, len(doc))
		}
		cost := int64(chunk)
		if !okd {
			cost += recordDirCost
		}
		if b == 0 {
			cost += recordBlockCost
		}
		if c.owner.used.Add(cost) > c.owner.budget || len(c.slab) >= 1<<32-2<<recordBlockBits || len(c.dirSlab) >= 1<<32-2*blocksPerDir {
			c.owner.used.Add(-cost)
			return
		}
		c.bytes += cost
		if !okd {
			d = uint32(len(c.dirSlab))
			c.dirSlab = append(c.dirSlab, make([]uint32, blocksPerDir)...)
			c.dirs[key] = d
		}
		if b == 0 {
			b = uint32(len(c.slab)) + 1
			c.slab = append(c.slab, make([]uint64, 1<<recordBlockBits)...)
			c.dirSlab[d+blockOf(rid)] = b
		}
		if chunk > 0 {
			c.chunks = append(c.chunks, make([]byte, 0, chunk))
			last++
		}
		off := len(c.chunks[last])
		c.chunks[last] = append(c.chunks[last], doc...)
		c.slab[b-1+slotOf(rid)] = uint64(last)<<40 | uint64(off)<<20 | uint64(len(doc))
		c.n++
	}
}
