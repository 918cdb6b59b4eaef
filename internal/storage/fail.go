package storage

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// Failure is the error of a DB that a write to its filesystem failed
// (disk full, EIO, a read-only remount): Pebble cannot go on after a WAL
// write or sync fails (it panics or calls Fatalf, leaving its commit
// pipeline unusable), and retries a failed flush forever, so the DB
// enters a failed state. Every later Commit, WaitDurable, Sync, Flush and
// ingestion returns the Failure at once, without calling Pebble, and
// Close returns without waiting long for Pebble.
// Nothing acknowledged is lost: a j:true write is acknowledged only after
// its fsync succeeded, and the WAL is replayed at the next Open.
type Failure struct {
	Dir       string // the data directory
	FreeBytes uint64 // space available on its filesystem when it failed
	DiskFull  bool   // the error was ENOSPC (or EDQUOT)
	Err       error
}

func (f *Failure) Error() string {
	if f.DiskFull {
		return fmt.Sprintf("out of disk space: writing to the data directory %s failed (%d bytes free on its filesystem): %v; "+
			"the database stopped accepting operations: free space and reopen it", f.Dir, f.FreeBytes, f.Err)
	}
	return fmt.Sprintf("storage failure: writing to the data directory %s failed: %v; "+
		"the database stopped accepting operations: reopen it once the filesystem is healthy", f.Dir, f.Err)
}

func (f *Failure) Unwrap() error { return f.Err }

// MongoCode is the MongoDB error code clients receive for the failure
// (errs.As reads it): OutOfDiskSpace (14031) when the disk is full,
// InternalError (1) for other I/O errors. mongod itself aborts in both
// cases; its fatal assertion has no reply code.
func (f *Failure) MongoCode() int32 {
	if f.DiskFull {
		return 14031
	}
	return 1
}

// isDiskFull reports whether err is ENOSPC or EDQUOT.
func isDiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// isIOFailure reports whether err is a failure of the filesystem to
// write: out of space or quota, EIO, a read-only remount, a file too
// large.
func isIOFailure(err error) bool {
	if err == nil {
		return false
	}
	for _, e := range []error{syscall.ENOSPC, syscall.EDQUOT, syscall.EIO, syscall.EROFS, syscall.EFBIG} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// Failed returns the DB's Failure, or nil while it is healthy.
func (db *DB) Failed() error {
	if f := db.failure.Load(); f != nil {
		return f
	}
	return nil
}

// fail puts the DB in the failed state (the first failure wins), logs it
// once and calls Options.OnFailure. It returns the DB's Failure.
func (db *DB) fail(err error) error {
	if f := db.failure.Load(); f != nil {
		return f
	}
	f := &Failure{Dir: db.dir, DiskFull: isDiskFull(err), Err: err}
	if u, uerr := db.fs.GetDiskUsage(db.dir); uerr == nil {
		f.FreeBytes = u.AvailBytes
	}
	if !db.failure.CompareAndSwap(nil, f) {
		return db.failure.Load()
	}
	close(db.failedCh)
	if db.onFailure != nil {
		db.onFailure(f) // lode serve logs a fatal line and exits here
	} else {
		db.log.Error("storage failed: the database accepts no more operations", "dataPath", f.Dir,
			"freeBytes", f.FreeBytes, "diskFull", f.DiskFull, "err", err.Error())
	}
	return f
}

// backgroundError receives Pebble's flush and compaction errors. An I/O
// error fails the DB; Pebble retries a failed flush at once, forever, so
// once failed each report is slowed down (this runs with Pebble's mutex
// held, which also holds back the retry) and no longer logged: that loop
// is what spun a core and flooded the log when the disk filled.
func (db *DB) backgroundError(err error) {
	if db.failure.Load() != nil {
		time.Sleep(failedRetryPause)
		return
	}
	if isIOFailure(err) {
		db.fail(err)
		return
	}
	db.log.Error("storage background error", "component", "PEBBLE", "err", err)
}

// failedRetryPause slows Pebble's retries of a failed flush once the DB
// has failed.
const failedRetryPause = 200 * time.Millisecond

// fatalCommit is the panic quietLogger.Fatalf raises for Pebble's "fatal
// commit error": Commit and syncNow recover it.
type fatalCommit struct{ err error }

// recoverFatal turns a fatalCommit panic, or Pebble's own panic with an
// I/O error, into the DB's failure, in the deferred call of the
// functions that call Pebble's commit pipeline.
func (db *DB) recoverFatal(errp *error) {
	r := recover()
	if r == nil {
		return
	}
	if fc, ok := r.(fatalCommit); ok {
		*errp = db.fail(fc.err)
		return
	}
	// Pebble also panics with the error itself when writing a batch to
	// the WAL fails (commitWrite), with its commit pipeline's mutex held:
	// a commit already waiting for that mutex stays blocked, later ones
	// find the DB failed before entering Pebble.
	if err, ok := r.(error); ok && isIOFailure(err) {
		*errp = db.fail(err)
		return
	}
	panic(r)
}

// MinFreeBytes is the free space Open wants on the data directory's
// filesystem beyond the write-ahead logs it will replay: room for a new
// WAL, the MANIFEST, OPTIONS and the first flushes.
const MinFreeBytes = 8 << 20

// ErrNoSpace is returned (wrapped) by Open when the data directory's
// filesystem has too little free space to open it, or a probe file
// cannot be written and synced there.
var ErrNoSpace = errors.New("not enough free disk space")

// checkWritable refuses to open dir when its filesystem is full or fails
// writes: Pebble replays the write-ahead logs into new sstables at open
// and starts a new log, and on a full disk that failed only after
// opening. It checks the free space against the logs' size plus
// MinFreeBytes, then writes and syncs a small probe file.
func checkWritable(fsys vfs.FS, dir string) error {
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		if isDiskFull(err) {
			return fmt.Errorf("%w to create the data directory %s: %w", ErrNoSpace, dir, err)
		}
		return fmt.Errorf("cannot create the data directory %s: %w", dir, err)
	}
	var walBytes uint64
	if names, err := fsys.List(dir); err == nil {
		for _, n := range names {
			if strings.HasSuffix(n, ".log") {
				if st, err := fsys.Stat(fsys.PathJoin(dir, n)); err == nil {
					walBytes += uint64(st.Size())
				}
			}
		}
	}
	need := walBytes + MinFreeBytes
	if u, err := fsys.GetDiskUsage(dir); err == nil && u.AvailBytes < need {
		return fmt.Errorf("%w on the filesystem of the data directory %s: %d bytes free, need at least %d "+
			"(%d for the write-ahead log to replay and %d to start); free space there, or move the data directory to a larger filesystem",
			ErrNoSpace, dir, u.AvailBytes, need, walBytes, uint64(MinFreeBytes))
	}
	probe := fsys.PathJoin(dir, "lode-probe.tmp")
	err := writeProbe(fsys, probe)
	_ = fsys.Remove(probe)
	if err == nil {
		return nil
	}
	if isDiskFull(err) {
		return fmt.Errorf("%w in the data directory %s: cannot write a probe file: %w; free space there, or move the data directory to a larger filesystem",
			ErrNoSpace, dir, err)
	}
	return fmt.Errorf("cannot write a probe file in the data directory %s (a failing or read-only filesystem?): %w", dir, err)
}

func writeProbe(fsys vfs.FS, path string) error {
	f, err := fsys.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return err
	}
	buf := make([]byte, 64<<10)
	if _, err := f.Write(buf); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
