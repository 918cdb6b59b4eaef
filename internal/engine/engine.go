// Package engine is Lode's database engine: the catalog of databases,
// collections and indexes, the write path (insert, update, delete,
// findAndModify) with index maintenance, and the read path (find, count,
// distinct). It stores everything through package storage and follows
// MongoDB 7.0's semantics.
package engine

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/oplog"
	"github.com/lodedb/lode/internal/params"
	"github.com/lodedb/lode/internal/storage"
	"github.com/lodedb/lode/internal/update"
)

// Engine is an open Lode data directory.
type Engine struct {
	db  *storage.DB
	log *slog.Logger
	dir string

	catMu  sync.Mutex // serializes catalog changes
	cat    atomic.Pointer[catalog]
	nextID atomic.Uint64

	ttl  ttlMonitor  // background TTL deletions (ttl.go)
	docs docCounters // metrics.document (stats_counters.go)

	closeOnce sync.Once
	closeErr  error
	closed    atomic.Bool

	txns txnTable // write-conflict table for transactions (txn.go)

	snaps snapHistory // snapshots of snapshot reads (readsnap.go)

	nsHook namespaceHook // drops and renames, for cursors (nshook.go)

	indexUse indexUse // $indexStats access counters (indexaccess.go)

	// params are the instance's settable parameters, memory budget and
	// counters, shared with the server and the aggregation pipeline.
	params *params.Set
	// tsClock hands out the increments of the timestamps that
	// $currentDate {$type: "timestamp"} writes, like a mongod's clock.
	tsClock update.TimestampClock

	// oplog records every committed change (oplog.go); nil when off.
	oplog *oplog.Log
	clock oplog.Clock // cluster time when the oplog is off
	// oplogColl is local.oplog.rs's collection descriptor (oplogcoll.go).
	oplogColl *collection
}

// Open opens (creating if needed) the engine stored in dir.
func Open(dir string, opts Options) (*Engine, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	db, err := storage.Open(dir, storage.Options{SyncInterval: opts.SyncInterval, Logger: opts.Logger,
		OnFailure: opts.OnFailure, FS: opts.FS, CacheSize: opts.CacheSize})
	if err != nil {
		return nil, err
	}
	e := &Engine{db: db, log: opts.Logger, dir: dir, params: params.New(opts.Budget)}
	// Spill files are unlinked when created; clear what a crash between
	// creating and unlinking one could have left.
	if err := os.RemoveAll(e.TempDir()); err != nil {
		e.log.Warn("cannot clear the temporary directory", "dir", e.TempDir(), "err", err)
	}
	if err := os.MkdirAll(e.TempDir(), 0o700); err != nil {
		e.log.Warn("cannot create the temporary directory", "dir", e.TempDir(), "err", err)
	}
	if err := e.loadCatalog(); err != nil {
		db.Close()
		return nil, fmt.Errorf("engine: open %s: %w", dir, err)
	}
	if err := e.loadViews(); err != nil {
		db.Close()
		return nil, fmt.Errorf("engine: open %s: %w", dir, err)
	}
	if err := e.upgradeIndexKeys(); err != nil {
		db.Close()
		return nil, fmt.Errorf("engine: open %s: %w", dir, err)
	}
	if err := e.openOplog(opts.OplogBytes); err != nil {
		db.Close()
		return nil, fmt.Errorf("engine: open %s: %w", dir, err)
	}
	e.startTTL(opts.TTLMonitorSleep)
	return e, nil
}

// Params returns the instance's parameters, memory budget and counters.
func (e *Engine) Params() *params.Set { return e.params }

// Close syncs and closes the engine. It is idempotent.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		e.closed.Store(true)
		e.stopTTL()
		e.txns.closeSnapshots()
		e.snaps.closeAll()
		e.closeErr = e.db.Close()
	})
	return e.closeErr
}

// TempDir is the directory for temporary files (aggregation and sort
// spills): <dir>/_tmp, emptied and created at open.
func (e *Engine) TempDir() string { return filepath.Join(e.dir, "_tmp") }

// Flush writes the memtables out to sstables, so every acknowledged
// write is in the data files (the fsync command).
func (e *Engine) Flush() error { return e.db.Flush() }

// Storage returns the storage layer, for the query executor and stats.
func (e *Engine) Storage() *storage.DB { return e.db }

// StorageMetrics returns Pebble's flush, compaction, level 0, memtable,
// block cache and write stall figures.
func (e *Engine) StorageMetrics() storage.EngineMetrics { return e.db.Metrics() }

// StorageStats returns the durability counters (commits, fsyncs).
func (e *Engine) StorageStats() storage.Stats { return e.db.Stats() }

// Sync forces an fsync covering every write acknowledged so far.
func (e *Engine) Sync(ctx context.Context) error { return e.db.Sync(ctx) }

// Failed returns the storage failure (disk full, EIO) that stopped the
// engine, as a MongoDB error (OutOfDiskSpace or InternalError), or nil.
func (e *Engine) Failed() error {
	if err := e.db.Failed(); err != nil {
		return errs.As(err)
	}
	return nil
}

func (e *Engine) checkOpen() error {
	if err := e.Failed(); err != nil {
		return err
	}
	if e.closed.Load() {
		return errs.New(errs.ShutdownInProgress, "The server is in quiesce mode and will shut down")
	}
	return nil
}

// waitDurable waits for the fsync covering seq when journal is requested.
func (e *Engine) waitDurable(ctx context.Context, seq uint64, journal bool) error {
	if !journal || seq == 0 {
		return nil
	}
	if err := e.db.WaitDurable(ctx, seq); err != nil {
		return errs.New(errs.WriteConcernFailed, "waiting for journal: %v", err)
	}
	return nil
}
