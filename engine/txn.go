package engine

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/cockroachdb/pebble/v2"

	"github.com/lodedb/lode/errs"
	"github.com/lodedb/lode/storage"
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
	b        *pebble.Batch
	snap     *pebble.Snapshot // committed state when the transaction began
	view     *storage.Overlay // snap with b applied: what the transaction reads
	snapOnce sync.Once        // closes snap once (Commit, Abort or engine Close)
	keys     []string         // conflict keys claimed by this transaction
	colls    map[uint64]*txnColl

	failed error // set when a write conflicted; the transaction must abort
	done   bool
}

// txnColl holds a collection's statistics deltas until commit.
type txnColl struct {
	state      *collState
	countDelta int64
	sizeDelta  int64
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
func (tx *Txn) Commit(ctx context.Context, journal bool) error {
	if tx.done {
		return errs.New(errs.NoSuchTransaction, "Transaction has already finished")
	}
	if tx.failed != nil {
		tx.Abort()
		return tx.failed
	}
	tx.done = true
	tx.closeSnapshot()
	var seq uint64
	if !tx.b.Empty() {
		// The commit writes index entries without the collections' writer
		// locks: keep locked scans off their empty-range hints meanwhile
		// and invalidate the hints afterwards (scanhints.go).
		for _, tc := range tx.colls {
			tc.state.commits.begin()
		}
		s, err := tx.e.db.Commit(tx.b)
		for _, tc := range tx.colls {
			tc.state.commits.end()
		}
		if err != nil {
			tx.e.txns.finish(tx, false)
			return fmt.Errorf("commit transaction: %w", err)
		}
		seq = s
	} else {
		tx.b.Close()
	}
	tx.e.txns.finish(tx, true)
	tx.applyStats()
	return tx.e.waitDurable(ctx, seq, journal)
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
}

// applyStats folds the committed count and size deltas into the
// collections' statistics.
func (tx *Txn) applyStats() {
	ids := make([]uint64, 0, len(tx.colls))
	for id := range tx.colls {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		tc := tx.colls[id]
		st := tc.state
		st.mu.Lock()
		if st.statsValid && !st.dropped {
			st.count += tc.countDelta
			st.dataSize += tc.sizeDelta
		}
		st.mu.Unlock()
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

// committed records a committed write outside a transaction to keys, so
// open transactions that began earlier conflict on them.
func (tt *txnTable) committed(keys []string) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if len(tt.active) == 0 {
		return
	}
	tt.seq++
	for _, k := range keys {
		if ks := tt.m[k]; ks != nil {
			ks.seq = tt.seq
		} else {
			tt.m[k] = &keyState{seq: tt.seq}
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
