//go:build unix

package storage

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"
)

// TestEmptyDataDirectoryIsSmall: a new data directory with a few small
// writes takes a few megabytes on disk, not the write-ahead log's whole
// 70 MiB preallocation.
func TestEmptyDataDirectoryIsSmall(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 { // the log preallocates once it has been written to
		b := db.NewBatch()
		if err := SetMeta(b, fmt.Sprint("k", i), []byte("v")); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
		if err := db.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	var blocks int64
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err != nil {
			return err
		}
		blocks += st.Blocks
		return nil
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if used := blocks * 512; used > 16<<20 {
		t.Errorf("a data directory with one write takes %d MiB on disk", used>>20)
	}
}
