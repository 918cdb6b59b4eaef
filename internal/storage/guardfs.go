package storage

import (
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// guardFS is the filesystem Pebble writes through. It fails the DB at
// the first failed write, on the goroutine that met it, before Pebble
// sees the error: from then on Commit refuses at once, so no commit can
// go on filling a memtable behind a broken write-ahead log.
//
// That matters because Pebble cannot unwind a failed WAL write met while
// it switches memtables (rotateWAL): it panics with its mutex released,
// and the deferred unlock turns the panic into a fatal error that no
// recover catches, ending a program that embeds Lode. A write that fails
// while a call able to switch memtables (Commit, Flush, an ingestion) is
// inside Pebble therefore waits until that call has left; if the call is
// the one switching, or waits for the failed write, the wait never ends,
// and the goroutine stays parked instead of taking the process down.
type guardFS struct {
	vfs.FS
	db *DB
	// raw: the FS is the operating system's (vfs.Default), whose logs
	// walFile writes and syncs with raw system calls. A wrapping FS (the
	// tests' fault injection) sees every write and sync instead.
	raw bool
}

func (g guardFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := g.file(g.FS.Create(name, category))
	if err == nil && category == manifestCategory {
		f = g.rawSyncs(f, name)
	}
	return g.wal(f, err, name, category)
}

func (g guardFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := g.file(g.FS.ReuseForWrite(oldname, newname, category))
	return g.wal(f, err, newname, category)
}

// wal gives a write-ahead log its walFile.
func (g guardFS) wal(f vfs.File, err error, name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	if err != nil || category != walCategory || f.Fd() == vfs.InvalidFd {
		return f, err
	}
	w := &walFile{File: f, name: name, db: g.db, raw: rawIO(g.raw, f)}
	if fi, err := f.Stat(); err == nil {
		w.size = fi.Size() // a recycled log is overwritten up to its size
	}
	if w.raw {
		if w.direct = newWALDirect(name); w.direct != nil { // waldirect.go
			g.db.curWAL.Store(w)
		}
	}
	return w, nil
}

// rawIO reports whether f is written and synced with raw system calls:
// raw (its filesystem is the operating system's), this system has them
// (walRawIO), and f has a descriptor.
func rawIO(raw bool, f vfs.File) bool {
	return raw && walRawIO && f.Fd() != vfs.InvalidFd
}

// walCategory is the write category Pebble creates its logs with, and
// manifestCategory its MANIFEST.
const (
	walCategory      vfs.DiskWriteCategory = "pebble-wal"
	manifestCategory vfs.DiskWriteCategory = "pebble-manifest"
)

// rawSyncs makes f, a guardFile, sync with a raw system call when the FS
// is the operating system's. Each ingestion and each flush or compaction
// that ends syncs the MANIFEST and the directory: through
// syscall.Syscall those outlasted the runtime monitor's tick, which took
// the P back and, on an otherwise idle server, began another millisecond
// of its 20 us wake-ups (tableWritable says more). The sstables that
// compactions write keep the ordinary syncs, which are long and run
// beside the requests.
func (g guardFS) rawSyncs(f vfs.File, name string) vfs.File {
	gf, ok := f.(guardFile)
	if !ok || !rawIO(g.raw, gf) {
		return f
	}
	gf.rawName = name
	return gf
}

func (g guardFS) OpenReadWrite(name string, category vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	f, err := g.FS.OpenReadWrite(name, category, opts...)
	return g.file(f, err)
}

// OpenDir: Pebble syncs directories after creating a log or a table.
func (g guardFS) OpenDir(name string) (vfs.File, error) {
	f, err := g.file(g.FS.OpenDir(name))
	if err != nil {
		return nil, err
	}
	return g.rawSyncs(f, name), nil
}

func (g guardFS) Unwrap() vfs.FS { return g.FS }

func (g guardFS) file(f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, g.db.writeFailed(err)
	}
	return guardFile{File: f, db: g.db}, nil
}

// guardFile checks the writes of one file opened for writing.
type guardFile struct {
	vfs.File
	db *DB
	// rawName: the file syncs with raw system calls (rawSyncs); its
	// name, for errors.
	rawName string
}

func (f guardFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	return n, f.db.writeFailed(err)
}

func (f guardFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.File.WriteAt(p, off)
	return n, f.db.writeFailed(err)
}

// Preallocate reserves at most maxPreallocate bytes of what Pebble asks
// for. Pebble reserves 110% of the memtable size (70 MiB) for each new
// write-ahead log, which made an empty data directory take 71 MB on
// disk; logs are extended by walFile instead. It is not checked: Pebble
// ignores a failed preallocation (the writes themselves may still find
// room).
func (f guardFile) Preallocate(off, length int64) error {
	return f.File.Preallocate(off, min(length, maxPreallocate))
}

// maxPreallocate bounds a file's preallocation.
const maxPreallocate = 4 << 20

// walFile is a write-ahead log whose size runs ahead of what is written.
// The fdatasync of a j:true commit that grows the file must also make the
// new size durable, a metadata journal commit: on this ext4 machine 70
// to 90 us of CPU per sync against 50 to 60 for writes within the
// file's size (docs/benchmarks.md, "Issue 33: write-ahead logs that do
// not grow at each sync"). So the log is extended walStep bytes at a
// time (fallocate without KEEP_SIZE: unwritten extents that read as
// zeros), as PostgreSQL zero-fills its WAL segments and WiredTiger
// preallocates its log files, and each sync in between writes data
// only. Pebble's recovery reads a zeroed tail as the log's end, the
// case its own recycled and preallocated logs already meet.
//
// Its writes and syncs are raw system calls when the FS is the operating
// system's. os.File's go through syscall.Syscall, whose entersyscall
// wakes the runtime's sysmon thread whenever every P was idle, and sysmon
// then polls every 20 us until they are idle again: with one j:true
// client that was about two thread wake-ups and sleeps per insert, a
// quarter of the server's context switches (docs/benchmarks.md, "Issue
// 33: the log's writes and syncs as raw system calls"). The server's
// sockets are read and written the same way (internal/server/rawio_linux.go).
// The cost: the goroutine keeps its P through the call, so for the length
// of an fdatasync one P runs nothing else, and a stop-the-world of the
// garbage collector waits for the sync to end. With two Ps and sixteen
// j:true clients it cost less CPU per insert than the handoff, not more.
type walFile struct {
	vfs.File
	off, size int64 // bytes written; the file's size
	fixed     bool  // extending failed: writes append
	raw       bool  // write and sync with raw system calls
	name      string
	db        *DB
	// direct: the log's synced writes bypass the page cache
	// (waldirect.go); nil: every write goes through it.
	direct *walDirect
}

// walStep is how far a log is extended at a time.
const walStep = 4 << 20

func (w *walFile) Write(p []byte) (int, error) {
	if w.direct != nil {
		return w.writeDirect(p)
	}
	w.extend(w.off + int64(len(p)))
	var n int
	var err error
	if w.raw {
		n, err = rawWrite(w.Fd(), w.name, p)
		err = w.db.writeFailed(err)
	} else {
		n, err = w.File.Write(p)
	}
	w.off += int64(n)
	return n, err
}

// extend extends the log by walStep bytes at a time to hold end bytes.
func (w *walFile) extend(end int64) {
	if end > w.size && !w.fixed {
		size := (end + walStep - 1) / walStep * walStep
		if extendFile(w.Fd(), w.size, size-w.size) == nil {
			w.size = size
		} else {
			w.fixed = true // no room or no support: the write finds its own
		}
	}
}

func (w *walFile) SyncData() error {
	if w.direct != nil {
		return w.syncDirect(true)
	}
	if w.raw {
		return w.db.writeFailed(rawSync(w.Fd(), w.name, true))
	}
	return w.File.SyncData()
}

func (w *walFile) Sync() error {
	if w.direct != nil {
		return w.syncDirect(false)
	}
	if w.raw {
		return w.db.writeFailed(rawSync(w.Fd(), w.name, false))
	}
	return w.File.Sync()
}

// SyncTo syncs the log whole when its writes may be in the stash.
func (w *walFile) SyncTo(length int64) (bool, error) {
	if w.direct != nil {
		return true, w.syncDirect(true)
	}
	return w.File.SyncTo(length)
}

// Close hands the stash to the kernel first.
func (w *walFile) Close() error {
	if d := w.direct; d != nil {
		err := w.flushStash()
		d.mu.Lock()
		d.closeFd()
		d.mu.Unlock()
		w.db.curWAL.CompareAndSwap(w, nil)
		if err != nil {
			w.File.Close()
			return err
		}
	}
	return w.File.Close()
}

// Preallocate: the log reserves its space as it extends.
func (w *walFile) Preallocate(off, length int64) error { return nil }

func (f guardFile) Sync() error {
	if f.rawName != "" {
		return f.db.writeFailed(rawSync(f.Fd(), f.rawName, false))
	}
	return f.db.writeFailed(f.File.Sync())
}

func (f guardFile) SyncData() error {
	if f.rawName != "" {
		return f.db.writeFailed(rawSync(f.Fd(), f.rawName, true))
	}
	return f.db.writeFailed(f.File.SyncData())
}

func (f guardFile) SyncTo(length int64) (bool, error) {
	full, err := f.File.SyncTo(length)
	return full, f.db.writeFailed(err)
}

func (f guardFile) Close() error { return f.db.writeFailed(f.File.Close()) }

// writeFailed passes err on; an I/O failure first fails the DB and waits
// until no memtable-switching call is inside Pebble (see guardFS).
func (db *DB) writeFailed(err error) error {
	if !isIOFailure(err) {
		return err
	}
	db.fail(err)
	start := time.Now()
	logged := false
	pause := time.Millisecond
	for db.inPebble.Load() > 0 {
		if !logged && time.Since(start) > parkNotice {
			logged = true
			db.log.Warn("a failed storage write met a commit inside the storage engine: both wait for good; "+
				"the database's directory stays locked until the process exits", "dataPath", db.dir)
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
	return err
}

// parkNotice is how long writeFailed waits before it logs that it may be
// waiting for good.
const parkNotice = 2 * time.Second

// enter brackets, with leave, a call into Pebble that may switch
// memtables. It returns false, without entering, once the DB has failed.
func (db *DB) enter() bool {
	db.inPebble.Add(1)
	if db.failure.Load() != nil {
		db.inPebble.Add(-1)
		return false
	}
	return true
}

func (db *DB) leave() { db.inPebble.Add(-1) }
