package storage

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// WaitDurable blocks until an fsync covers the commit with sequence seq
// (as returned by Commit). Concurrent waiters share fsyncs, leader and
// followers: the first waiter to find no fsync in flight performs one
// itself, covering everything committed before it started, and wakes every
// waiter it covered; the others wait for that round and, if it started
// before their commit, lead the next. Leading inline saves the two
// goroutine hand-offs a separate syncer would cost each j:true write. No
// lock other than the fsync slot is held across the fsync.
func (db *DB) WaitDurable(ctx context.Context, seq uint64) error {
	waited := false
	for {
		if f := db.failure.Load(); f != nil {
			return f
		}
		db.mu.Lock()
		if db.syncErr != nil {
			err := db.syncErr
			db.mu.Unlock()
			return err
		}
		if db.synced >= seq {
			db.mu.Unlock()
			return nil
		}
		if db.closed {
			db.mu.Unlock()
			return ErrClosed
		}
		ch := db.round
		db.mu.Unlock()
		if !waited {
			waited = true
			db.syncWaits.Add(1)
		}
		if err := ctx.Err(); err != nil {
			// Out of time (maxTimeMS): do not start an fsync for it.
			return err
		}
		if db.syncSlot.TryLock() {
			// Leader: re-check under the slot (a round may have ended
			// since), then sync for everyone committed so far.
			db.mu.Lock()
			done := db.synced >= seq || db.closed
			db.mu.Unlock()
			var err error
			if !done {
				db.gatherCommits()
				err = db.syncNow()
			}
			db.syncSlot.Unlock()
			if err != nil {
				return err
			}
			continue
		}
		select {
		case <-ch:
		case <-db.failedCh:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// gatherCommits lets the writers that are about to commit do so before
// the leader's fsync, so that it covers them too: it yields while the
// commit sequence advances, at most maxGatherYields times. One writer
// alone yields once; sixteen on two cores had an fsync for every five
// commits, each fsync costing about as much CPU as the command itself
// (docs/benchmarks.md, "Issue 33: group commits that wait for their
// group"). PostgreSQL's commit_delay is the same idea on a timer.
func (db *DB) gatherCommits() {
	// A writer alone (the leader is one of the writers) has no group to
	// wait for: the yield would only cost it a trip through the
	// scheduler.
	if db.writers.Load() <= 1 {
		return
	}
	for range maxGatherYields {
		before := db.commitSeq.Load()
		runtime.Gosched()
		if db.commitSeq.Load() == before {
			return
		}
	}
}

// BeginWrite and EndWrite bracket a write command, from before it takes
// its locks to after its durability wait: a leader gathers commits only
// while other writers are under way. A write that does not bracket
// itself is still made durable, but no leader waits for it. journal
// says the command will wait for a sync (j:true): while one is under
// way, the log keeps what it is given for that sync to write directly
// (waldirect.go).
func (db *DB) BeginWrite(journal bool) {
	db.writers.Add(1)
	if journal {
		db.syncWanted.Add(1)
	}
}

// loneSyncWriter reports whether the one write command under way will
// wait for a sync: then the log may keep what it is given for that sync
// (waldirect.go). With more writers the writes go to the kernel as they
// come, as before: a group's sync gains nothing from the direct write,
// and a w:1 writer's bytes would wait in the process for someone else's
// sync.
func (db *DB) loneSyncWriter() bool {
	return db.syncWanted.Load() == 1 && db.writers.Load() == 1
}

// EndWrite ends a BeginWrite with the same journal.
func (db *DB) EndWrite(journal bool) {
	db.writers.Add(-1)
	if journal {
		db.syncWanted.Add(-1)
		// Its sync has usually sent the stash; what a failed or
		// interrupted command left there goes to the kernel now.
		if w := db.curWAL.Load(); w != nil {
			// A failure here has failed the DB (writeFailed); the next
			// command meets it.
			_ = w.flushStash()
		}
	}
}

// maxGatherYields bounds the leader's wait for its group.
const maxGatherYields = 32

// Synced returns the highest commit sequence an fsync has covered, and a
// channel closed when the next fsync completes (the periodic one, or a
// j:true writer's).
func (db *DB) Synced() (seq uint64, next <-chan struct{}) {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.synced, db.round
}

// Sync forces an fsync covering every commit so far.
func (db *DB) Sync(ctx context.Context) error {
	return db.WaitDurable(ctx, db.commitSeq.Load())
}

// syncLoop runs the periodic and requested fsyncs.
func (db *DB) syncLoop(interval time.Duration) {
	defer close(db.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-db.stop:
			return
		case <-t.C:
		case <-db.kick:
		}
		if db.syncedAll() {
			continue
		}
		db.syncSlot.Lock()
		// Again under the slot: a j:true writer's sync that was under
		// way has usually covered everything since. Syncing again would
		// cost a sync each tick with nothing to write, and break the log's
		// count of lone syncs (waldirect.go).
		var err error
		if !db.syncedAll() {
			err = db.syncNow()
		}
		db.syncSlot.Unlock()
		if err != nil && db.failure.Load() == nil {
			db.log.Error("WAL sync failed", "err", err)
		}
	}
}

// syncedAll reports whether an fsync covers every commit so far.
func (db *DB) syncedAll() bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.synced >= db.commitSeq.Load()
}

// RequestSync asks for an fsync covering every commit so far, soon and
// without waiting for it: Synced's channel tells when one completes.
// Requests made while one is pending, or while an fsync runs, are served
// together by the next. Change streams ask so, to report w:1 changes once
// durable without waiting for the periodic sync.
func (db *DB) RequestSync() {
	select {
	case db.kick <- struct{}{}:
	default: // one is requested already
	}
}

// syncNow performs one fsync and wakes the waiters it covers. The caller
// holds syncSlot.
func (db *DB) syncNow() error {
	// Every commit with a sequence <= target has returned from Pebble's
	// commit, so its batch is in the WAL before the sync below is queued.
	target := db.commitSeq.Load()
	err := db.logSync()
	db.syncs.Add(1)
	db.mu.Lock()
	if err != nil {
		if f := db.failure.Load(); f != nil {
			db.syncErr = f
		} else {
			db.syncErr = fmt.Errorf("storage: WAL sync: %w", err)
		}
		err = db.syncErr
	} else if target > db.synced {
		db.synced = target
	}
	old := db.round
	db.round = make(chan struct{})
	db.mu.Unlock()
	close(old)
	return err
}

// logSync syncs the WAL. A failed DB does not call Pebble (its commit
// pipeline may be blocked behind the failed write); a failed write or
// sync fails the DB.
func (db *DB) logSync() (err error) {
	if f := db.failure.Load(); f != nil {
		return f
	}
	defer db.recoverFatal(&err)
	err = db.pdb.LogData(nil, pebble.Sync)
	if err != nil && isIOFailure(err) {
		err = db.fail(err)
	}
	return err
}
