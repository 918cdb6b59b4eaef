package storage

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestWALRawIO: on the operating system's filesystem a log is written and
// synced with raw calls, which write every byte in order and report a
// failed call as the os package would; a wrapping filesystem (fault
// injection) keeps seeing the log's writes.
func TestWALRawIO(t *testing.T) {
	dir := t.TempDir()
	db := openTestDB(t) // the DB whose failure a failed write reports
	open := func(fs guardFS, name string) *walFile {
		t.Helper()
		f, err := fs.Create(filepath.Join(dir, name), walCategory)
		if err != nil {
			t.Fatal(err)
		}
		w, ok := f.(*walFile)
		if !ok {
			t.Fatalf("%s: %T, want a *walFile", name, f)
		}
		return w
	}
	w := open(guardFS{FS: vfs.Default, db: db, raw: true}, "a.log")
	if w.raw != walRawIO {
		t.Fatalf("log on the default filesystem: raw %v, want %v", w.raw, walRawIO)
	}
	var want []byte
	for i := range 200 {
		p := bytes.Repeat([]byte{byte(i)}, 1+i*37)
		if n, err := w.Write(p); err != nil || n != len(p) {
			t.Fatalf("write %d: %d, %v", i, n, err)
		}
		want = append(want, p...)
		if i%50 == 0 {
			if err := w.SyncData(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "a.log"))
	if err != nil {
		t.Fatal(err)
	}
	// The file runs ahead of the writes in zeros (walStep).
	if len(got) < len(want) || !bytes.Equal(got[:len(want)], want) || len(bytes.Trim(got[len(want):], "\x00")) != 0 {
		t.Fatalf("the log holds %d bytes, not the %d written followed by zeros", len(got), len(want))
	}

	if walRawIO {
		// A call on a descriptor that cannot write fails as os.File's
		// would: a *os.PathError with the errno.
		ro, err := os.Open(filepath.Join(dir, "a.log"))
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		_, err = rawWrite(ro.Fd(), "a.log", []byte("x"))
		var pe *os.PathError
		if !errors.As(err, &pe) || !errors.Is(err, syscall.EBADF) || pe.Path != "a.log" {
			t.Fatalf("raw write on a read-only descriptor: %v, want EBADF naming the file", err)
		}
	}

	// Behind a wrapping filesystem, the wrapper sees the log's writes.
	var armed atomic.Bool
	injected := guardFS{FS: injectFS(&armed, syscall.EIO, func(string) bool { return true }).v, db: db}
	w = open(injected, "b.log")
	if w.raw {
		t.Fatal("log behind a wrapping filesystem written with raw calls")
	}
	armed.Store(true)
	if _, err := w.Write([]byte("x")); !errors.Is(err, syscall.EIO) {
		t.Fatalf("write through the injecting filesystem: %v, want EIO", err)
	}
}

// TestRawMetadataSyncs: on the operating system's filesystem the MANIFEST
// and directories sync with raw system calls, a table a compaction
// writes keeps the file's own sync, and behind a wrapping filesystem
// nothing is raw (the wrapper sees every sync).
func TestRawMetadataSyncs(t *testing.T) {
	dir := t.TempDir()
	db := openTestDB(t)
	check := func(f vfs.File, err error, what string, wantRaw bool) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		gf, ok := f.(guardFile)
		if !ok {
			t.Fatalf("%s: %T, want a guardFile", what, f)
		}
		if got := gf.rawName != ""; got != wantRaw {
			t.Fatalf("%s: raw sync %v, want %v", what, got, wantRaw)
		}
		if err := f.Sync(); err != nil {
			t.Fatalf("%s: sync: %v", what, err)
		}
	}
	def := guardFS{FS: vfs.Default, db: db, raw: true}
	f, err := def.Create(filepath.Join(dir, "MANIFEST-000001"), manifestCategory)
	check(f, err, "MANIFEST", walRawIO)
	f, err = def.OpenDir(dir)
	check(f, err, "directory", walRawIO)
	f, err = def.Create(filepath.Join(dir, "000002.sst"), "pebble-compaction")
	check(f, err, "compaction table", false)

	var armed atomic.Bool
	wrapped := guardFS{FS: injectFS(&armed, syscall.EIO, func(string) bool { return true }).v, db: db}
	f, err = wrapped.Create(filepath.Join(dir, "MANIFEST-000003"), manifestCategory)
	check(f, err, "MANIFEST behind a wrapping filesystem", false)
}
