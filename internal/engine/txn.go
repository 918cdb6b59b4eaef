package engine

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/oplog"
	"github.com/lodedb/lode/internal/storage"
)

// Txn is a multi-document transaction. Its writes go into one indexed
// Pebble batch; reads inside the transaction see that batch over a Pebble
// snapshot taken when the transaction began (snapshot isolation, see
// storage.Overlay); Commit applies the whole batch atomically. Every record a
// transaction changes (and every unique index key it adds) is claimed in
// the engine's conflict table, so a second writer of the same record fails
// with WriteConflict instead of losing an update (first writer wins).
//
// A Txn is used by one session at a time; it is not safe for concurrent
// use.
type Txn struct {
	e        *Engine
	start    uint64 // conflict-table sequence when the transaction began
	b        *storage.Batch
	snap     *storage.Snapshot // committed state when the transaction began
	snapSeq  uint64            // every commit up to this sequence is in snap
	view     *storage.Overlay  // snap with b applied: what the transaction reads
	snapOnce sync.Once         // closes snap once (Commit, Abort or engine Close)
	keys     []string          // conflict keys claimed by this transaction
	colls    map[uint64]*txnColl

	failed    error // set when a write conflicted; the transaction must abort
	done      bool
	committed bool   // the batch reached Pebble (Commit succeeded up to durability)
	seq       uint64 // commit sequence of the batch, for durability waits
	onEnd     []func()
	created   []*collection // collections this transaction created (txn_ddl.go)

	ops  []oplog.Entry  // the statements' oplog entries, one applyOps at commit
	info *oplog.TxnInfo // the session and transaction number (SetSession)
	// commitRec writes the session's record into the commit's batch
	// (SetCommitRecord).
	commitRec func(b *storage.Batch) error
}

// SetCommitRecord has fn write the session's record (config.transactions)
// into the batch that commits the transaction, so that the record of a
// committed transaction is exactly as durable as its writes. A
// transaction that wrote nothing commits no batch and no record.
func (tx *Txn) SetCommitRecord(fn func(b *storage.Batch) error) { tx.commitRec = fn }

// SetSession names the transaction's session and number, which its
// oplog entry records.
func (tx *Txn) SetSession(lsid bsoncore.Document, txnNumber int64) {
	tx.info = &oplog.TxnInfo{LSID: slices.Clone(lsid), TxnNumber: txnNumber}
}

// keepOps keeps a statement's oplog entries until commit, copying their
// documents, which belong to the statement.
func (tx *Txn) keepOps(ops []oplog.Entry) {
	for _, op := range ops {
		op.O = slices.Clone(op.O)
		op.O2 = slices.Clone(op.O2)
		images := op.Images
		op.Images = nil
		for _, im := range images {
			op.Images = append(op.Images, oplog.Image{Pre: slices.Clone(im.Pre), Post: slices.Clone(im.Post)})
		}
		tx.ops = append(tx.ops, op)
	}
}

// applyOpsEntry is the transaction's one oplog entry, as mongod writes a
// small transaction: {op: "c", ns: "admin.$cmd", o: {applyOps: [...]}}.
func (tx *Txn) applyOpsEntry() []oplog.Entry {
	if len(tx.ops) == 0 {
		return nil
	}
	idx, dst := bsoncore.AppendDocumentStart(nil)
	aidx, dst := bsoncore.AppendArrayElementStart(dst, "applyOps")
	var images []oplog.Image
	for i := range tx.ops {
		dst = tx.ops[i].AppendOp(dst, strconv.Itoa(i))
		for _, im := range tx.ops[i].Images {
			im.Op = uint32(i)
			images = append(images, im)
		}
	}
	dst, _ = bsoncore.AppendArrayEnd(dst, aidx)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	info := tx.info
	if info == nil {
		info = &oplog.TxnInfo{LSID: bsoncore.NewDocumentBuilder().Build()}
	}
	return []oplog.Entry{{Op: oplog.OpCommand, NS: "admin.$cmd", O: dst, Txn: info, Images: images}}
}

// OnEnd registers f to run once when the transaction commits or aborts
// (for example to close the cursors it opened).
func (tx *Txn) OnEnd(f func()) { tx.onEnd = append(tx.onEnd, f) }

// runEnd runs the OnEnd callbacks once.
func (tx *Txn) runEnd() {
	fs := tx.onEnd
	tx.onEnd = nil
	for _, f := range fs {
		f()
	}
}

// txnColl holds a collection's statistics deltas until commit, and the
// index set the transaction's writes were staged against.
type txnColl struct {
	state      *collState
	db, name   string
	indexIDs   []uint64 // ids of the collection's indexes at the first write
	countDelta int64
	sizeDelta  int64
	idxDelta   indexDeltas
}

// newTxnColl records collection c as written by a transaction: its index
// set now, which Commit compares with the index set then.
func newTxnColl(c *collection) *txnColl {
	tc := &txnColl{state: c.state, db: c.DB, name: c.Name}
	tc.indexIDs = indexIDs(c)
	return tc
}

// indexIDs returns the ids of c's indexes in order.
func indexIDs(c *collection) []uint64 {
	ids := make([]uint64, len(c.Indexes))
	for i, ix := range c.Indexes {
		ids[i] = ix.ID
	}
	return ids
}

type txnKey struct{}

// WithTxn returns a context whose engine operations run inside tx.
func WithTxn(ctx context.Context, tx *Txn) context.Context {
	return context.WithValue(ctx, txnKey{}, tx)
}

// TxnFrom returns the transaction carried by ctx, or nil.
func TxnFrom(ctx context.Context) *Txn {
	tx, _ := ctx.Value(txnKey{}).(*Txn)
	if tx == nil || tx.done {
		return nil
	}
	return tx
}

// BeginTxn starts a transaction.
func (e *Engine) BeginTxn() (*Txn, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	tx := &Txn{e: e, b: e.db.NewIndexedBatch(), colls: map[uint64]*txnColl{}}
	// The conflict-table sequence is read before the snapshot is taken:
	// a write the snapshot misses commits to Pebble after the snapshot, so
	// it reaches the conflict table after begin and gets a sequence above
	// tx.start, and a write of the same record by tx then conflicts.
	tx.start = e.txns.begin(tx)
	tx.snapSeq = e.db.LastCommit() // before the snapshot: commits up to it ended before
	tx.snap = e.db.NewSnapshot()
	tx.view = storage.NewOverlay(tx.snap, tx.b)
	return tx, nil
}

// Err returns the error that doomed the transaction (a write conflict), or
// nil.
func (tx *Txn) Err() error { return tx.failed }

// Reader returns the transaction's view: the data committed when it
// began with its own writes applied.
func (tx *Txn) Reader() storage.Reader { return tx.view }

// closeSnapshot releases the transaction's snapshot.
func (tx *Txn) closeSnapshot() {
	tx.snapOnce.Do(func() { tx.snap.Close() })
}

// closeSnapshots releases the snapshots of all open transactions, so that
// the database can close (Pebble refuses to close with open snapshots).
func (tt *txnTable) closeSnapshots() {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	for tx := range tt.active {
		tx.closeSnapshot()
	}
}

// Commit applies the transaction's writes atomically. With journal it
// returns only after an fsync covers them.
//
// The commit takes the writer locks of every collection the transaction
// wrote (in collection id order) so that no index build, index drop or
// collection drop runs between the check below and the Pebble commit. If
// any of those collections changed its index set (or was dropped or
// renamed) since the transaction first wrote to it, the staged index
// entries no longer match the collection's indexes: the transaction is
// aborted with WriteConflict (TransientTransactionError), as mongod aborts
// transactions that conflict with DDL.
//
// An error returned after the batch reached Pebble (a durability wait that
// failed or ran out of time) leaves Committed true: the data is committed
// and a later WaitDurable can wait for it again.
func (tx *Txn) Commit(ctx context.Context, journal bool) error {
	if tx.done {
		return errs.New(errs.NoSuchTransaction, "Transaction has already finished")
	}
	if tx.failed != nil {
		tx.Abort()
		return tx.failed
	}
	tx.done = true
	defer tx.runEnd()
	tx.closeSnapshot()
	if tx.b.Empty() {
		tx.b.Close()
		tx.committed = true
		tx.e.txns.finish(tx, true)
		tx.endCreated(true)
		return nil
	}
	colls := tx.sortedColls()
	for _, tc := range colls {
		tc.state.mu.Lock()
	}
	unlock := func() {
		for i := len(colls) - 1; i >= 0; i-- {
			colls[i].state.mu.Unlock()
		}
	}
	if err := tx.checkCatalog(colls); err != nil {
		unlock()
		tx.b.Close()
		tx.e.txns.finish(tx, false)
		tx.endCreated(false)
		return err
	}
	// Locked statements may hold empty-range hints that this commit's
	// index entries invalidate (scanhints.go).
	for _, tc := range colls {
		tc.state.commits.begin()
	}
	var err error
	if tx.commitRec != nil {
		err = tx.commitRec(tx.b)
	}
	var tk oplog.Ticket
	if err == nil {
		tk, err = tx.e.stageOps(tx.b, tx.applyOpsEntry())
	}
	var seq uint64
	if err == nil {
		seq, err = tx.e.db.Commit(tx.b)
		tx.e.opsDone(tk, err == nil)
	} else {
		tx.b.Close()
	}
	for _, tc := range colls {
		tc.state.commits.end()
	}
	if err != nil {
		unlock()
		tx.e.txns.finish(tx, false)
		tx.endCreated(false)
		return fmt.Errorf("commit transaction: %w", err)
	}
	tx.committed, tx.seq = true, seq
	tx.applyStats(colls)
	unlock()
	for _, tc := range colls {
		tx.e.viewsWritten(tc.db, tc.name)
	}
	tx.e.txns.finish(tx, true)
	tx.endCreated(true)
	return tx.WaitDurable(ctx, journal)
}

// Committed reports whether the transaction's writes reached the database.
func (tx *Txn) Committed() bool { return tx.committed }

// WaitDurable waits, when journal is set, for an fsync covering the
// transaction's committed writes. It may be called again after Commit
// returned a durability error.
func (tx *Txn) WaitDurable(ctx context.Context, journal bool) error {
	if !tx.committed {
		return errs.New(errs.NoSuchTransaction, "Transaction was not committed")
	}
	return tx.e.waitDurable(ctx, tx.seq, journal)
}

// sortedColls returns the collections the transaction wrote, ordered by
// id (the order their locks are taken in).
func (tx *Txn) sortedColls() []*txnColl {
	ids := make([]uint64, 0, len(tx.colls))
	for id := range tx.colls {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	out := make([]*txnColl, len(ids))
	for i, id := range ids {
		out[i] = tx.colls[id]
	}
	return out
}

// checkCatalog fails with WriteConflict when a collection the transaction
// wrote was dropped or renamed, or its index set changed, since the first
// write. The caller holds the collections' writer locks.
func (tx *Txn) checkCatalog(colls []*txnColl) error {
	cat := tx.e.cat.Load()
	for _, tc := range colls {
		cur := cat.lookup(tc.db, tc.name)
		if tc.state.dropped || cur == nil || cur.state != tc.state || !slices.Equal(indexIDs(cur), tc.indexIDs) {
			tx.e.log.Debug("transaction aborted by a concurrent catalog change", "ns", tc.db+"."+tc.name)
			e := conflictError()
			e.Msg = "Unable to commit the transaction: the indexes of " + tc.db + "." + tc.name + " changed while it was in progress. Please retry the transaction."
			return e
		}
	}
	return nil
}

// Abort discards the transaction's writes. It is idempotent.
func (tx *Txn) Abort() {
	if tx.done {
		return
	}
	tx.done = true
	tx.closeSnapshot()
	tx.b.Close()
	tx.e.txns.finish(tx, false)
	tx.endCreated(false)
	tx.runEnd()
}

// applyStats folds the committed count and size deltas into the
// collections' statistics. The caller holds the collections' writer locks.
func (tx *Txn) applyStats(colls []*txnColl) {
	for _, tc := range colls {
		st := tc.state
		if st.statsValid && !st.dropped {
			st.count += tc.countDelta
			st.dataSize += tc.sizeDelta
			st.docCount.Store(st.count)
		}
		if !st.dropped {
			st.addIndexBytes(tc.idxDelta)
		}
	}
}

// conflictError is the error of a write that conflicts with another
// writer.
func conflictError() *errs.Error {
	e := errs.New(errs.WriteConflict, "Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.")
	e.Labels = append(e.Labels, "TransientTransactionError")
	return e
}

// plainConflictError is the error of a write outside a transaction that
// touches a record an open transaction has changed.
func plainConflictError() *errs.Error {
	return errs.New(errs.WriteConflict, "Write conflict: the document is being modified by an uncommitted transaction. Please retry your operation.")
}

// txnTable is the engine's conflict table: for each recently written
// record or unique index key, the sequence of its last committed write and
// the open transaction that holds it, if any.
type txnTable struct {
	mu      sync.Mutex
	seq     uint64
	m       map[string]*keyState
	active  map[*Txn]struct{}
	pruneAt int
	// open is len(active), changed under mu: check, which every key
	// of a write outside a transaction calls, reads it without mu.
	open atomic.Int32
}

type keyState struct {
	seq   uint64
	owner *Txn
}

func (tt *txnTable) begin(tx *Txn) uint64 {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.active == nil {
		tt.active = map[*Txn]struct{}{}
		tt.m = map[string]*keyState{}
	}
	tt.active[tx] = struct{}{}
	tt.open.Store(int32(len(tt.active)))
	return tt.seq
}

// claim records that tx is about to change key. It fails when another
// open transaction holds the key or the key was committed after tx began.
func (tt *txnTable) claim(tx *Txn, key []byte) error {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	ks := tt.m[string(key)]
	if ks == nil {
		ks = &keyState{}
		tt.m[string(key)] = ks
	}
	if ks.owner == tx {
		return nil
	}
	if ks.owner != nil || ks.seq > tx.start {
		return conflictError()
	}
	ks.owner = tx
	tx.keys = append(tx.keys, string(key))
	return nil
}

// check fails when an open transaction holds key (for writes outside a
// transaction).
func (tt *txnTable) check(key []byte) error {
	// No transaction open: none holds key. One that begins after this
	// load claims key after this check, as it would after the locked
	// one, and conflicts with this write at its commit (committed).
	if tt.open.Load() == 0 {
		return nil
	}
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if len(tt.active) == 0 {
		return nil
	}
	if ks := tt.m[string(key)]; ks != nil && ks.owner != nil {
		return plainConflictError()
	}
	return nil
}

// committed records a committed write outside a transaction to keys
// (back to back in buf, each ending at its offset in ends), so open
// transactions that began earlier conflict on them.
func (tt *txnTable) committed(buf []byte, ends []int) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if len(tt.active) == 0 {
		return
	}
	tt.seq++
	start := 0
	for _, end := range ends {
		k := buf[start:end]
		start = end
		if ks := tt.m[string(k)]; ks != nil {
			ks.seq = tt.seq
		} else {
			tt.m[string(k)] = &keyState{seq: tt.seq}
		}
	}
	tt.maybePrune()
}

// finish releases tx's keys; when ok they are marked committed now.
func (tt *txnTable) finish(tx *Txn, ok bool) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if ok && len(tx.keys) > 0 {
		tt.seq++
	}
	for _, k := range tx.keys {
		ks := tt.m[k]
		if ks == nil || ks.owner != tx {
			continue
		}
		ks.owner = nil
		if ok {
			ks.seq = tt.seq
		}
	}
	tx.keys = nil
	delete(tt.active, tx)
	tt.open.Store(int32(len(tt.active)))
	tt.maybePrune()
}

// maybePrune drops entries no open transaction can conflict on. Called
// with mu held.
func (tt *txnTable) maybePrune() {
	if len(tt.active) == 0 {
		clear(tt.m)
		return
	}
	if len(tt.m) < tt.pruneAt {
		return
	}
	minStart := tt.seq
	for tx := range tt.active {
		minStart = min(minStart, tx.start)
	}
	for k, ks := range tt.m {
		if ks.owner == nil && ks.seq <= minStart {
			delete(tt.m, k)
		}
	}
	tt.pruneAt = 2*len(tt.m) + 4096
}

// ActiveTxns returns the number of open transactions.
func (e *Engine) ActiveTxns() int {
	e.txns.mu.Lock()
	defer e.txns.mu.Unlock()
	return len(e.txns.active)
}
