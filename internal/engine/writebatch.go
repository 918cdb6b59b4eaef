package engine

import (
	"bytes"
	"fmt"
	"sync"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/indexkey"
	"github.com/lodedb/lode/internal/oplog"
	"github.com/lodedb/lode/internal/opstats"
	"github.com/lodedb/lode/internal/storage"
)

// Batch limits: a write batch commits when it holds this many
// documents or bytes, so large inserts become a few large batches.
const (
	maxBatchDocs  = 1000
	maxBatchBytes = 8 << 20
)

// A bulk insert (an insert command of at least bulkInsertMin documents,
// outside a transaction) commits in batches of up to bulkBatchDocs
// documents or bulkBatchBytes bytes, which storage commits by ingestion
// when they are large enough (storage.DB.NewIngestBatch): the fsyncs an
// ingestion costs are then shared by thousands of documents.
const (
	bulkInsertMin  = 1000
	bulkBatchDocs  = 16384
	bulkBatchBytes = 16 << 20
)

// writeBatch accumulates the changes of one or more documents of one
// collection into a Pebble batch. The caller holds the collection's writer
// lock from creation to the last commit. Each document's record and index
// entries are validated completely before any of them enters the batch, so
// a failed document leaves no partial state. It is a statement's batch,
// not a transaction: a long statement commits several in turn (see full),
// and inside a multi-document transaction (Txn) it writes into the
// transaction's batch instead.
type writeBatch struct {
	e *Engine
	// st receives the figures of the statement's plans (nil: none).
	st *opstats.Stats
	c  *collection // current metadata; replaced when an index turns multikey
	// built are the indexes whose build this batch's commit completes:
	// they are visible to snapshots from that commit on (index.VisibleFrom).
	built []*index

	b     *storage.Batch
	probe storage.IndexProbe // unique checks' reads, per batch
	docs  int
	// uniqMax holds, per unique index, the last keystring it holds in t.probe's
	// view (nil: empty index); valid as long as it. A key above it has
	// no entry, so monotonic keys (ObjectIds, counters) need no seek.
	uniqMax map[uint64][]byte

	// writeScratch holds the working buffers, pooled between batches
	// (writescratch.go): the key generator, the staged entries, the
	// pending unique keys, the conflict keys and the index-byte deltas.
	writeScratch
	scr *writeScratch // where they go back (writescratch.go)

	ck      []byte              // the cluster key of the document written (clustered collections)
	idBlock uint64              // clustered: the RecordID block this batch noted, plus one (0: none)
	removed map[string]struct{} // index keys removed in this batch

	metaDirty  bool
	spanDirty  bool // the buckets collection's widest bucket grew (bucketspan.go)
	countDelta int64
	sizeDelta  int64
	lastSeq    uint64
	counts     txnCounts // metrics.document, flushed on commit (stats_counters.go)

	tx *Txn // the multi-document transaction writing, or nil (see txn_write.go)

	ops   []oplog.Entry // oplog entries of the pending changes (oplog.go)
	quiet bool          // the current change is not logged (capped trims)
	opsNS string        // t.c's namespace, computed once for the batch's ops
	// bypass skips the collection's validator (bypassDocumentValidation).
	bypass bool
	// rec follows the statements of a retryable write (sessionrec.go):
	// each commit also writes the session's record.
	rec StmtRecorder
	// bulk: a bulk insert's batch (bulkInsertMin); bulkLeftBytes and
	// bulkLeftDocs are the documents it has still to stage, from which
	// each new batch's buffer is sized (newBatch).
	bulk                        bool
	bulkLeftBytes, bulkLeftDocs int
	// tsInsert: the batch writes a time series insert's buckets; any
	// other change to a bucket takes it out of the bucket catalog
	// (forgetBucket).
	tsInsert bool
	// diffO, when set, is the oplog description of the next update (a
	// bucket's, which knows what it appended).
	diffO bsoncore.Document
	// final: the next commit is the batch's last, so it leaves no new
	// storage batch behind for abort to close (a single insert made and
	// closed one each).
	final bool
}

type stagedKey struct {
	ix           int
	off, end     int // keystring in sbuf
	tbOff, tbEnd int // type bits in sbuf
	del          bool
}

func (e *Engine) newWriteBatch(c *collection) *writeBatch {
	t, _ := batchPool.Get().(*writeBatch)
	if t == nil {
		t = new(writeBatch)
	}
	*t = writeBatch{e: e, c: c, b: e.db.NewBatch(), ops: t.ops}
	t.takeScratch()
	return t
}

// batchPool keeps the write batches of single inserts between commands
// (recycle). A fresh one was the largest allocation of a single insert,
// about a kilobyte of memory the processor's caches no longer held: a
// pooled one is the same memory each command, cached.
var batchPool sync.Pool

// recycle gives back t, aborted or committed to the end (abort has run),
// for newWriteBatch to reuse: its owner does not use it again. Its oplog
// entry slice stays with it, emptied (the oplog copies what a commit
// stages: stageOps); a transaction's batch is not recycled.
func (t *writeBatch) recycle() {
	if t.tx != nil || t.b != nil || t.scr != nil || cap(t.ops) > 16 {
		return
	}
	clear(t.ops[:cap(t.ops)])
	*t = writeBatch{ops: t.ops[:0]}
	batchPool.Put(t)
}

// newBatch returns the storage batch for the next commit: for a bulk
// insert a batch to be committed by ingestion (storage.NewIngestBatch),
// sized for what it will stage (each document about twice, as its
// record and its oplog entry, and its _id entry), up to a full batch;
// otherwise Pebble's default, which grows as needed.
func (t *writeBatch) newBatch() *storage.Batch {
	if !t.bulk || t.bulkLeftDocs == 0 {
		return t.e.db.NewBatch()
	}
	docs := min(t.bulkLeftDocs, bulkBatchDocs)
	size := min(t.bulkLeftBytes/t.bulkLeftDocs*docs*2+docs*bulkDocOverhead, bulkBatchBytes+bulkBatchBytes/8)
	return t.e.db.NewIngestBatch(size)
}

// bulkDocOverhead is about what a bulk-inserted document stages beside
// twice its bytes: keys, the _id entry, the oplog entry's fields.
const bulkDocOverhead = 160

// bulkOps holds the oplog entry slices of bulk inserts for the next:
// bulkBatchDocs entries are 2 MB, which a bulk insert of 10,000
// documents a command otherwise allocates (and zeroes) each command.
var bulkOps sync.Pool

// takeBulkOps returns an empty slice of bulkBatchDocs oplog entries.
func takeBulkOps() []oplog.Entry {
	if p, ok := bulkOps.Get().(*[]oplog.Entry); ok {
		return (*p)[:0]
	}
	return make([]oplog.Entry, 0, bulkBatchDocs)
}

// putBulkOps gives ops (from takeBulkOps) back, its entries cleared.
// Entries past len(ops) are zero: every commit and failed commit
// clears the entries it used.
func putBulkOps(ops []oplog.Entry) {
	clear(ops)
	ops = ops[:0]
	bulkOps.Put(&ops)
}

// full reports whether the batch should be committed now.
func (t *writeBatch) full() bool {
	if t.bulk {
		return t.docs >= bulkBatchDocs || t.b.Len() >= bulkBatchBytes
	}
	return t.docs >= maxBatchDocs || t.b.Len() >= maxBatchBytes
}

// commit commits the pending batch (if any) without sync.
func (t *writeBatch) commit() error {
	t.probe.Close()
	if t.tx != nil {
		return t.commitInTxn()
	}
	if t.docs == 0 && !t.metaDirty {
		return nil
	}
	span := t.spanToStore() // bucketspan.go
	if t.metaDirty || t.spanDirty {
		t.spanDirty = false
		if err := storage.SetCollectionEntry(t.b, t.c.ID, encodeCollection(t.c)); err != nil {
			return fmt.Errorf("catalog update: %w", err)
		}
	}
	if t.rec != nil && t.docs > 0 {
		if err := t.rec.Stage(t.b); err != nil {
			t.rec.Done(false)
			t.b.Close()
			t.b = t.newBatch()
			t.idBlock = 0
			clear(t.ops)
			t.ops = t.ops[:0]
			return err
		}
	}
	tk, err := t.e.stageOps(t.b, t.ops)
	if err != nil {
		if t.rec != nil && t.docs > 0 {
			t.rec.Done(false)
		}
		t.b.Close()
		t.b = t.newBatch()
		t.idBlock = 0
		clear(t.ops)
		t.ops = t.ops[:0]
		return err
	}
	seq, err := t.e.db.Commit(t.b)
	t.e.opsDone(tk, err == nil)
	if t.rec != nil && t.docs > 0 {
		t.rec.Done(err == nil)
	}
	clear(t.ops)
	t.ops = t.ops[:0]
	if t.final {
		t.b = nil // nothing stages after the last commit (abort)
	} else {
		t.b = t.newBatch()
	}
	t.idBlock = 0
	t.docs = 0
	clear(t.removed)
	t.pending.reset()
	if err != nil {
		t.metaDirty = false
		t.countDelta, t.sizeDelta = 0, 0
		t.idxDelta = t.idxDelta[:0]
		t.counts = txnCounts{}
		return err
	}
	t.lastSeq = seq
	t.spanStored(span)
	t.e.addDocCounts(&t.counts)
	t.noteCommitted()
	if t.built != nil {
		for _, ix := range t.built {
			ix.VisibleFrom = seq
		}
		t.built = nil
	}
	if t.metaDirty {
		t.e.publish(t.c)
		t.metaDirty = false
	}
	st := t.c.state
	if st.statsValid {
		st.count += t.countDelta
		st.dataSize += t.sizeDelta
		st.docCount.Store(st.count)
	}
	st.addIndexBytes(t.idxDelta)
	t.countDelta, t.sizeDelta = 0, 0
	t.idxDelta = t.idxDelta[:0]
	t.e.viewsWritten(t.c.DB, t.c.Name)
	return nil
}

// abort discards the uncommitted batch.
func (t *writeBatch) abort() {
	t.probe.Close()
	t.releaseScratch()
	if t.bulk && cap(t.ops) == bulkBatchDocs {
		putBulkOps(t.ops)
		t.ops = nil
	}
	if t.tx != nil {
		t.b = nil // the transaction owns its batch
		return
	}
	if t.b != nil {
		if t.rec != nil && t.docs > 0 {
			t.rec.Done(false) // staged changes that never commit
		}
		t.b.Close()
		t.b = nil
	}
}

// stageKeys computes the index entries of doc for every index into
// t.staged (with del set as given) and returns the multikey paths found
// per index.
func (t *writeBatch) stageKeys(doc bsoncore.Document, del bool) (mk map[int][]string, err error) {
	for i, ix := range t.c.Indexes {
		if out, end, ok := indexkey.AppendIDKey(t.sbuf, ix, doc); ok {
			off := len(t.sbuf)
			t.sbuf = out
			t.staged = append(t.staged, stagedKey{ix: i, off: off, end: end, tbOff: end, tbEnd: len(t.sbuf), del: del})
			continue
		}
		if ks, tb, _, ok := t.g.FlatKey(ix, doc); ok {
			off := len(t.sbuf)
			t.sbuf = append(t.sbuf, ks...)
			end := len(t.sbuf)
			t.sbuf = append(t.sbuf, tb...)
			t.staged = append(t.staged, stagedKey{ix: i, off: off, end: end, tbOff: end, tbEnd: len(t.sbuf), del: del})
			continue
		}
		keys, paths, skip, err := t.g.Keys(ix, doc)
		if err != nil {
			return nil, err
		}
		if skip {
			continue
		}
		for j, k := range keys {
			off := len(t.sbuf)
			t.sbuf = append(t.sbuf, k...)
			end := len(t.sbuf)
			t.sbuf = append(t.sbuf, t.g.TypeBits(j)...)
			t.staged = append(t.staged, stagedKey{ix: i, off: off, end: end, tbOff: end, tbEnd: len(t.sbuf), del: del})
		}
		if !del && len(paths) > 0 && !hasPaths(ix.MultikeyPaths, paths) {
			if mk == nil {
				mk = map[int][]string{}
			}
			mk[i] = append([]string(nil), paths...)
		}
	}
	return mk, nil
}

func hasPaths(have, want []string) bool {
	return subset(want, have)
}

// checkUnique verifies that adding keystring ks to unique index ix for
// record rid conflicts with no other record.
func (t *writeBatch) checkUnique(ix *index, ks []byte, rid uint64, doc bsoncore.Document) error {
	t.kbuf = storage.AppendIndexKeyLockKey(t.kbuf[:0], ix.ID, ks)
	if err := t.claim(t.kbuf); err != nil {
		return err
	}
	if r, ok := t.pending.lookup(ix.ID, ks, t.kbuf); ok && r != rid {
		return dupKeyError(t.c, ix, indexkey.Values(ix, doc, ks))
	}
	if ix.Clustered {
		return t.checkClusterKey(ix, ks, rid, doc)
	}
	// The collection's cached bound answers most checks (ascending _ids,
	// and ObjectIds from many clients, a little out of order) without an
	// iterator or a seek.
	cb := t.uniqueMax(ix.ID)
	if cb != nil && cb.absent(ks) {
		return nil
	}
	if !t.probe.IsOpen() {
		if err := t.probe.Open(t.reader()); err != nil {
			return fmt.Errorf("unique check: %w", err)
		}
		if t.bulk {
			// A bulk insert's keys that fall below the bound rise
			// inside the index's gaps (storage.IndexProbe).
			t.probe.KeepGaps()
		}
		clear(t.uniqMax)
	}
	max, known := t.uniqMax[ix.ID]
	if !known && cb != nil {
		// ks is at or below the collection's cached bound: the index's
		// last entry is not worth a seek.
		max, known = cb.max, true
	}
	if !known {
		last, ok, err := t.probe.LastKeystring(ix.ID, nil)
		if err != nil {
			return fmt.Errorf("unique check: %w", err)
		}
		if !ok {
			last = nil
		}
		if t.uniqMax == nil {
			t.uniqMax = map[uint64][]byte{}
		}
		t.uniqMax[ix.ID], max = last, last
		t.setUniqueMax(ix.ID, last)
	}
	if max == nil || bytes.Compare(ks, max) > 0 {
		return nil // after the index's last entry: no record has ks
	}
	conflict := false
	err := t.probe.Find(ix.ID, ks, func(r storage.RecordID) bool {
		if uint64(r) == rid {
			return true
		}
		if len(t.removed) > 0 {
			t.kbuf = storage.AppendIndexEntryLockKey(t.kbuf[:0], ix.ID, ks, r)
			if _, gone := t.removed[string(t.kbuf)]; gone {
				return true
			}
		}
		conflict = true
		return false
	})
	if err != nil {
		return fmt.Errorf("unique check: %w", err)
	}
	if conflict {
		return dupKeyError(t.c, ix, indexkey.Values(ix, doc, ks))
	}
	return nil
}

// checkClusterKey verifies that no other record of the clustered
// collection has cluster key ks: the clustered index's uniqueness is that
// of the record keys.
func (t *writeBatch) checkClusterKey(ix *index, ks []byte, rid uint64, doc bsoncore.Document) error {
	r, found, err := storage.ClusteredRecordID(t.reader(), t.c.ID, ks)
	if err != nil {
		return fmt.Errorf("unique check: %w", err)
	}
	if !found || uint64(r) == rid {
		return nil
	}
	if len(t.removed) > 0 {
		t.kbuf = storage.AppendIndexEntryLockKey(t.kbuf[:0], ix.ID, ks, r)
		if _, gone := t.removed[string(t.kbuf)]; gone {
			return nil
		}
	}
	return dupKeyError(t.c, ix, indexkey.Values(ix, doc, ks))
}

// maxClusterKeyBytes bounds a clustered record's key, as mongod bounds
// a RecordId (its _id's keystring): 8 MiB.
const maxClusterKeyBytes = 8 << 20

// setClusterKey sets t.ck to doc's cluster key (its _id's keystring in
// the clustered index) when t.c is clustered.
func (t *writeBatch) setClusterKey(doc bsoncore.Document) error {
	if !t.c.Clustered {
		return nil
	}
	keys, _, _, err := t.g.Keys(t.c.Indexes[0], doc)
	if err != nil {
		return err
	}
	if len(keys) != 1 {
		return fmt.Errorf("clustered record without a single _id key")
	}
	t.ck = append(t.ck[:0], keys[0]...)
	return nil
}

// noteIDBlock notes in the batch, once, that rid's block of a clustered
// collection's RecordIDs is in use (storage.NoteClusteredIDs).
func (t *writeBatch) noteIDBlock(rid storage.RecordID) error {
	blk := uint64(rid)/storage.ClusteredIDBlock + 1
	if t.idBlock == blk {
		return nil
	}
	t.idBlock = blk
	return storage.NoteClusteredIDs(t.b, t.c.ID, rid)
}

// setRecord adds the write of doc as record rid (t.ck its cluster key in a
// clustered collection).
func (t *writeBatch) setRecord(rid uint64, doc bsoncore.Document) error {
	if t.c.tsTime != "" {
		t.noteBucketSpan(doc) // bucketspan.go
	}
	if t.c.Clustered {
		return storage.SetClusteredRecord(t.b, t.c.ID, t.ck, storage.RecordID(rid), doc)
	}
	return storage.SetRecord(t.b, t.c.ID, storage.RecordID(rid), doc)
}

// insert adds doc (already prepared: _id first, validated) as a new record.
func (t *writeBatch) insert(doc bsoncore.Document) (uint64, error) {
	if err := t.validate(nil, doc); err != nil {
		return 0, err
	}
	t.staged, t.sbuf = t.staged[:0], t.sbuf[:0]
	mk, err := t.stageKeys(doc, false)
	if err != nil {
		return 0, err
	}
	rid := uint64(t.c.state.rids.Peek())
	if t.docs == 1 && t.tx == nil {
		// A batch of several inserts: each index's entries in a run
		// (storage.Batch.GroupIndexEntries).
		t.b.GroupIndexEntries()
	}
	for _, s := range t.staged {
		ix := t.c.Indexes[s.ix]
		if ix.EnforcesUnique() || ix.Clustered {
			if err := t.checkUnique(ix, t.sbuf[s.off:s.end], rid, doc); err != nil {
				return 0, err
			}
		}
	}
	if err := t.setClusterKey(doc); err != nil {
		return 0, err
	}
	if len(t.ck) > maxClusterKeyBytes {
		return 0, errs.New(errs.Location5894900, "Size of RecordId is above limit of %d bytes", maxClusterKeyBytes)
	}
	if t.c.Clustered {
		if err := t.noteIDBlock(storage.RecordID(rid)); err != nil {
			return 0, err
		}
	}
	if err := t.setRecord(uint64(t.c.state.rids.Take()), doc); err != nil {
		return 0, err
	}
	t.writeStaged(rid)
	t.markMultikey(mk)
	t.logOp(oplog.OpInsert, doc, nil)
	t.noteChange('i', nil, doc)
	t.docs++
	t.counts.ins++
	t.countDelta++
	t.sizeDelta += int64(len(doc))
	return rid, nil
}

// writeStaged applies the staged index changes for record rid.
func (t *writeBatch) writeStaged(rid uint64) {
	for _, s := range t.staged {
		ix := t.c.Indexes[s.ix]
		ks := t.sbuf[s.off:s.end]
		if !ix.Clustered {
			n := storage.IndexEntryOverhead + len(ks) + s.tbEnd - s.tbOff
			if ix.InClustered {
				n += len(t.ck) + 1 // the cluster key the value carries
			}
			t.noteIndexBytes(ix.ID, n, s.del)
		}
		if t.st != nil {
			if s.del {
				t.st.KeysDeleted++
			} else {
				t.st.KeysInserted++
			}
		}
		if s.del {
			if !ix.Clustered { // the clustered index is the records
				_ = storage.DeleteIndexEntry(t.b, ix.ID, ks, storage.RecordID(rid))
			}
			if t.removed == nil {
				t.removed = map[string]struct{}{}
			}
			t.kbuf = storage.AppendIndexEntryLockKey(t.kbuf[:0], ix.ID, ks, storage.RecordID(rid))
			t.removed[string(t.kbuf)] = struct{}{}
			if ix.EnforcesUnique() {
				t.pending.remove(ix.ID, ks, storage.AppendIndexKeyLockKey(t.kbuf[:0], ix.ID, ks), rid)
			}
			continue
		}
		switch {
		case ix.Clustered:
		case ix.InClustered:
			_ = storage.SetClusteredIndexEntry(t.b, ix.ID, ks, storage.RecordID(rid), t.sbuf[s.tbOff:s.tbEnd], t.ck)
		default:
			_ = storage.SetIndexEntry(t.b, ix.ID, ks, storage.RecordID(rid), t.sbuf[s.tbOff:s.tbEnd])
		}
		t.c.state.noteIndexSet(ix.ID, ks, rid, t.bulk)
		if t.removed != nil {
			t.kbuf = storage.AppendIndexEntryLockKey(t.kbuf[:0], ix.ID, ks, storage.RecordID(rid))
			delete(t.removed, string(t.kbuf))
		}
		if ix.EnforcesUnique() {
			t.pending.add(ix.ID, ks, rid, &t.kbuf)
		}
	}
}

// markMultikey records new multikey paths in the collection metadata; the
// catalog entry is written with the batch.
func (t *writeBatch) markMultikey(mk map[int][]string) {
	if len(mk) == 0 {
		return
	}
	if !t.metaDirty {
		t.c = t.c.copyMeta()
		t.metaDirty = true
	}
	for i, paths := range mk {
		old := t.c.Indexes[i]
		n := *old
		n.Multikey = true
		n.MultikeyPaths = append([]string(nil), old.MultikeyPaths...)
		for _, p := range paths {
			addArrayPath(&n.MultikeyPaths, []string{p})
		}
		t.c.Indexes[i] = &n
	}
}

// update replaces record rid's oldDoc with newDoc, changing only the index
// entries whose keys differ.
// replacement says whether the update replaced the document (how the
// oplog describes it).
func (t *writeBatch) update(rid uint64, oldDoc, newDoc bsoncore.Document, replacement bool) error {
	if err := t.claimRecord(rid); err != nil {
		return err
	}
	if err := checkCappedUpdate(t.c, oldDoc, newDoc); err != nil {
		return err
	}
	if err := t.validate(oldDoc, newDoc); err != nil {
		return err
	}
	t.staged, t.sbuf = t.staged[:0], t.sbuf[:0]
	if _, err := t.stageKeys(oldDoc, true); err != nil {
		return err
	}
	nOld := len(t.staged)
	mk, err := t.stageKeys(newDoc, false)
	if err != nil {
		return err
	}
	// Cancel entries present in both old and new key sets with the same
	// type bits. An entry whose keystring stays but whose type bits change
	// (1 -> NumberLong(1)) is removed and set again in the same batch.
	oldKeys := t.staged[:nOld]
	newKeys := t.staged[nOld:]
	for i := range oldKeys {
		for j := range newKeys {
			if newKeys[j].ix == oldKeys[i].ix && newKeys[j].end >= 0 && oldKeys[i].end >= 0 &&
				string(t.sbuf[oldKeys[i].off:oldKeys[i].tbEnd]) == string(t.sbuf[newKeys[j].off:newKeys[j].tbEnd]) &&
				oldKeys[i].end-oldKeys[i].off == newKeys[j].end-newKeys[j].off {
				oldKeys[i].end, newKeys[j].end = -1, -1
				break
			}
		}
	}
	w := 0
	for _, s := range t.staged {
		if s.end >= 0 {
			t.staged[w] = s
			w++
		}
	}
	t.staged = t.staged[:w]
	for _, s := range t.staged {
		ix := t.c.Indexes[s.ix]
		if !s.del && (ix.EnforcesUnique() || ix.Clustered) {
			if err := t.checkUnique(ix, t.sbuf[s.off:s.end], rid, newDoc); err != nil {
				return err
			}
		}
	}
	if err := t.setClusterKey(oldDoc); err != nil {
		return err
	}
	t.forgetBucket(oldDoc) // timeseries.go
	if err := t.setRecord(rid, newDoc); err != nil {
		return err
	}
	t.writeStaged(rid)
	t.markMultikey(mk)
	t.logUpdate(oldDoc, newDoc, replacement)
	t.noteChange('u', oldDoc, newDoc)
	t.docs++
	t.counts.upd++
	t.sizeDelta += int64(len(newDoc) - len(oldDoc))
	return nil
}

// remove deletes record rid (whose current version is doc) and its index
// entries.
func (t *writeBatch) remove(rid uint64, doc bsoncore.Document) error {
	if err := t.claimRecord(rid); err != nil {
		return err
	}
	t.staged, t.sbuf = t.staged[:0], t.sbuf[:0]
	if _, err := t.stageKeys(doc, true); err != nil {
		return err
	}
	t.forgetBucket(doc) // timeseries.go
	if t.c.Clustered {
		if err := t.setClusterKey(doc); err != nil {
			return err
		}
		if err := storage.DeleteClusteredRecord(t.b, t.c.ID, t.ck); err != nil {
			return err
		}
	} else if err := storage.DeleteRecord(t.b, t.c.ID, storage.RecordID(rid)); err != nil {
		return err
	}
	t.writeStaged(rid)
	t.logOp(oplog.OpDelete, idDoc(doc), nil)
	t.keepImages(doc, nil)
	t.noteChange('d', doc, nil)
	t.docs++
	t.counts.del++
	t.countDelta--
	t.sizeDelta -= int64(len(doc))
	return nil
}
