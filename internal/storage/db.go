package storage

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Options configures a DB.
type Options struct {
	// SyncInterval is the period of the background WAL sync. Zero means
	// 100 ms.
	SyncInterval time.Duration
	// Logger receives storage logs. Nil means slog.Default().
	Logger *slog.Logger
	// CacheSize is the size of Pebble's block cache, the equivalent of
	// WiredTiger's cache (`lode serve --cache-size-gb`, mongod's
	// --wiredTigerCacheSizeGB). Zero means DefaultCacheSize.
	CacheSize int64
	// OnFailure, when set, is called once when a write to the filesystem
	// fails and the DB enters its failed state (see Failure); lode serve
	// logs a fatal line and exits there. Without it the failure is logged
	// at error level. It may be called from any goroutine, Pebble's
	// included, and must not call the DB.
	OnFailure func(*Failure)
	// RecordCacheQuiet is how long a collection must go unwritten before
	// FETCH caches its records (recordcache.go). Zero means
	// DefaultRecordCacheQuiet; negative, at once (tests).
	RecordCacheQuiet time.Duration
	// FS is the filesystem Pebble uses; the zero FS means the operating
	// system's. Tests inject I/O errors through it (NewFS).
	FS FS
}

// DefaultCacheSize is the block cache size when Options leave it zero:
// 512 MiB. Pebble's own default (8 MiB) makes every record fetch of an
// index scan a disk read once the data outgrows it; mongod's (half of the
// memory above 1 GB) would let the cache alone take a server far past the
// 1 GB that issue 32 holds its peak RSS under. Blocks evicted from it are
// usually still in the operating system's page cache, so a larger data
// set costs a copy and a decompression per miss, not a disk read; a
// server with the memory raises it with --cache-size-gb.
const DefaultCacheSize = 512 << 20

// tableBlockSize is the size of the sstables' data blocks at every level,
// 32 KiB where Pebble's default is 4 KiB (CockroachDB configures Pebble
// with 32 KiB blocks too; WiredTiger's leaf pages are up to 32 KiB). Each
// block read costs a cache lookup, a read from the file and a
// decompression whatever its size, so the first scan of just-loaded data
// (an index build after a load) and a point read of a cached record cost
// about a fifth less, a warm scan a tenth less, and writing a table is a
// little cheaper (BenchmarkRecordScan; docs/benchmarks.md, "32 KiB
// blocks"). A read that misses the block cache decompresses a larger
// block for its record.
const tableBlockSize = 32 << 10

// Reader is the read interface of the engine's read paths: the latest
// committed state (DB.Reader), a Snapshot's, an indexed Batch's, or a
// transaction's Overlay. Its methods are storage's own, so only storage
// implements it; callers read through the store types and cursors.
type Reader interface {
	get(key []byte) ([]byte, io.Closer, error)
	newIter(o *pebble.IterOptions) (Iterator, error)
}

// Iterator is the subset of *pebble.Iterator the read paths use;
// *pebble.Iterator implements it.
type Iterator interface {
	First() bool
	Last() bool
	Next() bool
	Prev() bool
	SeekGE(key []byte) bool
	SeekLT(key []byte) bool
	// SetBounds replaces the iterator's bounds (copied) and unpositions
	// it: the next call must be a seek, First or Last.
	SetBounds(lower, upper []byte)
	Valid() bool
	Key() []byte
	Value() []byte
	ValueAndErr() ([]byte, error)
	Error() error
	Close() error
}

// NewRangeIter opens an iterator of r over the keys in [lo, hi); nil
// bounds leave that side open.
func NewRangeIter(r Reader, lo, hi []byte) (Iterator, error) {
	return r.newIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
}

// pebbleSource is what *pebble.DB, *pebble.Snapshot and indexed
// *pebble.Batch have in common.
type pebbleSource interface {
	Get(key []byte) ([]byte, io.Closer, error)
	NewIter(o *pebble.IterOptions) (*pebble.Iterator, error)
}

// pebbleReader adapts a Pebble reader to Reader. A snapshot's has a
// view of the record writes when it knows which it sees (recordcache.go).
type pebbleReader struct {
	r    pebbleSource
	view *recordView
}

func (p pebbleReader) get(key []byte) ([]byte, io.Closer, error) { return p.r.Get(key) }

func (p pebbleReader) newIter(o *pebble.IterOptions) (Iterator, error) {
	it, err := p.r.NewIter(o)
	if err != nil {
		return nil, err
	}
	return it, nil
}

// Reader returns the latest committed state as a Reader.
func (db *DB) Reader() Reader { return pebbleReader{r: db.pdb} }

// Stats are durability counters.
type Stats struct {
	// Commits is the number of batches committed.
	Commits uint64
	// Syncs is the number of WAL fsyncs performed (background and
	// requested).
	Syncs uint64
	// SyncWaits is the number of writers that waited for an fsync.
	SyncWaits uint64
	// WALDirectWrites is the number of log writes sent past the page
	// cache before a lone j:true writer's sync (waldirect.go).
	WALDirectWrites uint64
}

// ErrClosed is returned by operations on a closed DB.
var ErrClosed = errors.New("storage: closed")

// ErrLocked is returned by Open when another process (or another DB in
// this process) has the directory open: Pebble holds an exclusive lock on
// its LOCK file for as long as a database is open.
var ErrLocked = errors.New("data directory is in use by another process")

// DB is one Pebble database with Lode's durability policy.
type DB struct {
	pdb   *pebble.DB
	popts *pebble.Options
	dir   string
	log   *slog.Logger

	commitSeq atomic.Uint64 // sequence of acknowledged (WAL-written) commits
	commits   atomic.Uint64
	syncs     atomic.Uint64
	syncWaits atomic.Uint64
	// walDirectWrites counts the log's direct writes (Stats).
	walDirectWrites atomic.Uint64

	mu     sync.Mutex
	synced uint64        // highest commitSeq covered by a completed fsync
	round  chan struct{} // closed when the next fsync completes
	// syncSlot is held by whoever runs an fsync (syncNow): a j:true
	// waiter leading a round, the periodic syncer, or Close.
	syncSlot sync.Mutex
	syncErr  error // sticky fsync failure
	closed   bool

	stalls stallCounter // Pebble write stalls (metrics.go)

	usageMu sync.Mutex
	usage   map[uint64]usageEntry // IndexDiskUsage's recent estimates

	stop    chan struct{}
	done    chan struct{}
	kick    chan struct{} // RequestSync: an fsync soon, not at the next tick
	closeMu sync.Mutex

	fs        vfs.FS
	failure   atomic.Pointer[Failure] // set once by fail (fail.go)
	onFailure func(*Failure)
	failedCh  chan struct{} // closed by fail
	inPebble  atomic.Int64  // calls inside Pebble that may switch memtables (guardfs.go)
	opening   atomic.Bool   // within pebble.Open: Fatalf panics for openPebble to recover
	cacheSize int64         // the block cache's capacity (Options.CacheSize)
	records   recordCaches  // the record cache (recordcache.go)
	loadMem   loadMem       // memory kept between sorted loads (loadmem.go)
	// ingestCommits counts the batches committed by ingestion.
	ingestCommits atomic.Int64
	writers       atomic.Int32 // write commands under way (BeginWrite), for gatherCommits
	// syncWanted counts the write commands under way that will wait for
	// a sync (BeginWrite(true)): while it is above zero the log keeps
	// Pebble's writes for the sync to send directly (waldirect.go).
	syncWanted atomic.Int32
	// curWAL is the newest log with direct writes, whose stash EndWrite
	// hands to the kernel when the last such command ends.
	curWAL atomic.Pointer[walFile]
}

// Open opens (creating if needed) the Pebble database in dir.
func Open(dir string, opts Options) (*DB, error) {
	if opts.SyncInterval <= 0 {
		opts.SyncInterval = 100 * time.Millisecond
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.CacheSize <= 0 {
		opts.CacheSize = DefaultCacheSize
	}
	fsys := opts.FS.v
	if fsys == nil {
		fsys = vfs.Default
	}
	if err := checkWritable(fsys, dir); err != nil {
		return nil, fmt.Errorf("storage: %w", err) // names dir
	}
	cache := pebble.NewCache(opts.CacheSize)
	defer cache.Unref() // the DB holds its own reference
	db := &DB{
		dir:       dir,
		log:       opts.Logger,
		round:     make(chan struct{}),
		stop:      make(chan struct{}),
		kick:      make(chan struct{}, 1),
		done:      make(chan struct{}),
		fs:        fsys,
		onFailure: opts.OnFailure,
		failedCh:  make(chan struct{}),
		cacheSize: opts.CacheSize,
	}
	db.records.budget = opts.CacheSize / recordCacheShare
	switch {
	case opts.RecordCacheQuiet == 0:
		db.records.quiet = int64(DefaultRecordCacheQuiet)
	case opts.RecordCacheQuiet > 0:
		db.records.quiet = int64(opts.RecordCacheQuiet)
	}
	popts := &pebble.Options{
		FS:           guardFS{FS: fsys, db: db, raw: fsys == vfs.Default},
		Logger:       quietLogger{opts.Logger, db},
		Cache:        cache,
		MemTableSize: 64 << 20,
		MaxOpenFiles: openTables(fileLimit()), // opentables.go
		EventListener: &pebble.EventListener{
			WriteStallBegin: db.stalls.begin,
			WriteStallEnd:   db.stalls.end,
			BackgroundError: db.backgroundError,
		},
	}
	for i := range popts.Levels {
		popts.Levels[i].BlockSize = tableBlockSize
	}
	popts.EnsureDefaults()
	pdb, err := db.openPebble(popts)
	// Another process holds the flock (EAGAIN), or this process has the
	// directory open already: Pebble reports that with an unexported
	// error whose text is all there is to match.
	if errors.Is(err, syscall.EAGAIN) || err != nil && strings.Contains(err.Error(), "lock held by current process") {
		return nil, fmt.Errorf("storage: open %s: %w (%w)", dir, ErrLocked, err)
	}
	if err != nil {
		if isDiskFull(err) {
			err = fmt.Errorf("%w: %w", ErrNoSpace, err)
		}
		return nil, fmt.Errorf("storage: open %s: %w", dir, err)
	}
	// Sorted loads (bulkload.go) keep their runs and sstables in bulk-*
	// directories, and commits by ingestion theirs in bulk-commit
	// (ingestcommit.go); what a crash left there is of no further use.
	// They are removed once Pebble holds the directory's lock, so that a
	// second process refused the directory leaves the first one's alone.
	if stale, _ := filepath.Glob(filepath.Join(dir, "bulk-*")); len(stale) > 0 {
		for _, d := range stale {
			os.RemoveAll(d)
		}
	}
	db.pdb, db.popts = pdb, popts
	if err := db.Failed(); err != nil {
		db.closePebble()
		return nil, fmt.Errorf("storage: open %s: %w", dir, err)
	}
	// What a crash left of a commit by ingestion's session records
	// (ingestredo.go).
	if err := db.replayIngestRedo(); err != nil {
		db.closePebble()
		return nil, fmt.Errorf("storage: open %s: %w", dir, err)
	}
	go db.syncLoop(opts.SyncInterval)
	return db, nil
}

// openPebble opens Pebble in db.dir; a fatal I/O error while it writes
// its MANIFEST comes back as the DB's failure.
func (db *DB) openPebble(popts *pebble.Options) (pdb *pebble.DB, err error) {
	db.opening.Store(true)
	defer db.opening.Store(false)
	defer db.recoverFatal(&err)
	return pebble.Open(db.dir, popts)
}

// NewBatch returns a write-only batch.
func (db *DB) NewBatch() *Batch { return newBatch(db.pdb.NewBatch()) }

// NewIngestBatch returns a write-only batch for a bulk insert, committed
// by ingestion when it is large enough and only sets keys: its writes
// are staged apart from Pebble (ingeststage.go), in an arena that holds
// size bytes before it grows.
func (db *DB) NewIngestBatch(size int) *Batch {
	b := newBatch(db.pdb.NewBatch())
	b.st = newIngestStage(size)
	return b
}

// NewIndexedBatch returns a batch that can also be read (it sees its own
// writes over the database).
func (db *DB) NewIndexedBatch() *Batch { return newBatch(db.pdb.NewIndexedBatch()) }

// NewSnapshot returns a consistent point-in-time view. Close it when done.
func (db *DB) NewSnapshot() *Snapshot {
	var ps *pebble.Snapshot
	view := db.records.view(func() { ps = db.pdb.NewSnapshot() })
	return &Snapshot{ps: ps, r: pebbleReader{r: ps, view: view}}
}

// Get reads the latest value of key; found is false when it does not exist.
// The returned slice is a copy appended to dst.
func (db *DB) Get(key, dst []byte) (val []byte, found bool, err error) {
	return Get(db.Reader(), key, dst)
}

// Get reads key from r and appends its value to dst.
func Get(r Reader, key, dst []byte) (val []byte, found bool, err error) {
	v, closer, err := r.get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return dst, false, nil
	}
	if err != nil {
		return dst, false, fmt.Errorf("storage: get: %w", err)
	}
	dst = append(dst, v...)
	closer.Close()
	return dst, true, nil
}

// Commit writes b to the WAL and memtable without fsync and closes it. The
// returned sequence can be passed to WaitDurable.
//
// Once the DB has failed (Failed) it returns the Failure without calling
// Pebble, whose commit pipeline a failed WAL write leaves unusable.
func (db *DB) Commit(b *Batch) (seq uint64, err error) {
	if !db.enter() {
		b.Close()
		return 0, db.failure.Load()
	}
	if colls := b.colls; len(colls) > 0 {
		db.records.begin(colls)
		defer db.records.end(colls)
	}
	err = b.mergeSides()
	done := false
	if err == nil && b.st != nil {
		if b.st.bytes >= ingestCommitMin {
			done, err = true, db.ingestRuns(b.st.groups())
		} else {
			err = b.unstage()
		}
	}
	if err == nil && !done {
		err = db.commit(b.pb)
	}
	db.leave()
	if err != nil {
		b.Close()
		if isIOFailure(err) {
			return 0, db.fail(err)
		}
		if f := db.failure.Load(); f != nil {
			return 0, f
		}
		return 0, fmt.Errorf("storage: commit: %w", err)
	}
	b.Close()
	db.commits.Add(1)
	return db.commitSeq.Add(1), nil
}

// commit commits b, turning Pebble's fatal commit error (a panic raised by
// quietLogger.Fatalf) into the DB's failure.
func (db *DB) commit(b *pebble.Batch) (err error) {
	defer db.recoverFatal(&err)
	return b.Commit(pebble.NoSync)
}

// LastCommit returns the sequence of the latest committed batch.
func (db *DB) LastCommit() uint64 { return db.commitSeq.Load() }

// EstimateDiskUsage estimates the on-disk bytes of the keys in [lo, hi).
func (db *DB) EstimateDiskUsage(lo, hi []byte) (uint64, error) {
	return db.pdb.EstimateDiskUsage(lo, hi)
}

// Stats returns the durability counters.
func (db *DB) Stats() Stats {
	return Stats{Commits: db.commits.Load(), Syncs: db.syncs.Load(), SyncWaits: db.syncWaits.Load(),
		WALDirectWrites: db.walDirectWrites.Load()}
}

// Close syncs the WAL, stops the syncer and closes Pebble. It is
// idempotent.
func (db *DB) Close() error {
	db.closeMu.Lock()
	defer db.closeMu.Unlock()
	db.mu.Lock()
	if db.closed {
		db.mu.Unlock()
		return nil
	}
	db.mu.Unlock()
	db.loadMem.drop()
	close(db.stop)
	select {
	case <-db.done:
	case <-db.failedCh:
		// Failed: the sync loop may be inside Pebble behind the failed
		// write (guardfs.go); it is not waited for past a bound.
		select {
		case <-db.done:
		case <-time.After(failedCloseWait):
		}
	}
	if f := db.failure.Load(); f != nil {
		// Failed: no final sync (Pebble's commit pipeline may be
		// blocked), and Pebble's close is not waited for past a bound.
		db.mu.Lock()
		db.closed = true
		close(db.round)
		db.mu.Unlock()
		db.closePebble()
		return f
	}
	db.syncSlot.Lock()
	serr := db.syncNow() // final sync covers everything committed
	db.mu.Lock()
	db.closed = true
	close(db.round) // release any waiter; they observe closed
	db.mu.Unlock()
	db.syncSlot.Unlock()
	if f := db.failure.Load(); f != nil {
		db.closePebble()
		return f
	}
	cerr := db.pdb.Close()
	if serr != nil {
		return serr
	}
	if cerr != nil {
		return fmt.Errorf("storage: close: %w", cerr)
	}
	return nil
}

// failedCloseWait bounds how long Close waits for Pebble to close once
// the DB has failed.
var failedCloseWait = 5 * time.Second

// closePebble closes Pebble after a failure, giving up after
// failedCloseWait: a goroutine blocked in Pebble's commit pipeline or a
// background job stuck on the failed filesystem may keep it from
// closing. Pebble's lock on the directory is then held until the process
// exits.
func (db *DB) closePebble() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				db.log.Warn("closing the failed storage engine", "panic", fmt.Sprint(r))
			}
		}()
		_ = db.pdb.Close()
	}()
	select {
	case <-done:
	case <-time.After(failedCloseWait):
		db.log.Warn("the failed storage engine did not close; giving up", "dataPath", db.dir)
	}
}

type quietLogger struct {
	l  *slog.Logger
	db *DB
}

func (q quietLogger) Infof(format string, args ...any) {
	q.l.Debug(fmt.Sprintf(format, args...), "component", "PEBBLE")
}
func (q quietLogger) Errorf(format string, args ...any) {
	if q.db != nil && q.db.failure.Load() != nil {
		return // failed: Pebble's retries would only repeat the failure
	}
	q.l.Error(fmt.Sprintf(format, args...), "component", "PEBBLE")
}

// Fatalf is Pebble's way to stop on errors it cannot unwind. A fatal
// commit error (a WAL write or sync failed) or an ingestion's failed
// write happens on the caller's goroutine: it fails the DB and panics
// with fatalCommit, which Commit, syncNow and Ingest's callers recover. An
// I/O failure on one of Pebble's own goroutines (a MANIFEST write after a
// flush) fails the DB and parks that goroutine for good, since a panic
// there would end the process of a program embedding Lode. Anything else
// is an invariant violation: it panics as Pebble expects.
func (q quietLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	var cause error
	for _, a := range args {
		if e, ok := a.(error); ok {
			cause = e
			break
		}
	}
	if q.db != nil && cause != nil && isIOFailure(cause) {
		q.db.fail(cause)
		if strings.HasPrefix(format, "pebble: fatal commit error") || format == "%v" || q.db.opening.Load() {
			panic(fatalCommit{cause})
		}
		select {}
	}
	q.l.Error(msg, "component", "PEBBLE")
	panic(msg)
}

// Flush writes the memtable to an sstable (the fsync command; tests:
// on-disk estimates). Pebble retries a failed flush forever, so the wait
// ends when the DB fails.
func (db *DB) Flush() error {
	if !db.enter() {
		return db.failure.Load()
	}
	done, err := db.pdb.AsyncFlush()
	db.leave()
	if err != nil {
		return err
	}
	select {
	case <-done:
	case <-db.failedCh:
	}
	return db.Failed()
}
