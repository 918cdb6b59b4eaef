package mongolog

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFileRotate: rename mode moves the file to path.<UTC time> and
// writes on in a new file; a second rotation in the same second finds
// the name taken; reopen mode keeps writing at path after another
// program moved the file; without logAppend an existing file is renamed
// aside at open.
func TestFileRotate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mongod.log")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 29, 6, 7, 8, 0, time.FixedZone("X", 3600))
	lf := &File{path: path, now: func() time.Time { return now }}
	renamed, err := lf.renameAside()
	if err != nil {
		t.Fatal(err)
	}
	if want := path + ".2026-11-29T05-07-08"; renamed != want {
		t.Fatalf("renamed to %s, want %s (UTC)", renamed, want)
	}
	if lf.f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err != nil {
		t.Fatal(err)
	}
	_, _ = lf.Write([]byte("one\n"))
	now = now.Add(time.Second)
	rotated, err := lf.Rotate()
	if err != nil {
		t.Fatal(err)
	}
	_, _ = lf.Write([]byte("two\n"))
	if b, _ := os.ReadFile(rotated); string(b) != "one\n" {
		t.Errorf("rotated file %s holds %q", rotated, b)
	}
	if b, _ := os.ReadFile(path); string(b) != "two\n" {
		t.Errorf("new file holds %q", b)
	}
	if _, err := lf.Rotate(); !errors.Is(err, ErrRotateTargetExists) {
		t.Errorf("second rotation in one second: %v, want ErrRotateTargetExists", err)
	}
	_, _ = lf.Write([]byte("three\n"))
	if b, _ := os.ReadFile(path); string(b) != "two\nthree\n" {
		t.Errorf("after a failed rotation the file holds %q, want the writes to go on", b)
	}
	_ = lf.Close()

	// OpenFile without logAppend renames the existing file aside.
	lf2, err := OpenFile(path, false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer lf2.Close()
	if b, _ := os.ReadFile(path); len(b) != 0 {
		t.Errorf("OpenFile without logAppend kept %q in the file", b)
	}
	// Reopen mode: another program moved the file; the rotation opens a
	// new one at the same path.
	_, _ = lf2.Write([]byte("before\n"))
	if err := os.Rename(path, path+".moved"); err != nil {
		t.Fatal(err)
	}
	if renamed, err := lf2.Rotate(); err != nil || renamed != "" {
		t.Fatalf("reopen: %q, %v", renamed, err)
	}
	_, _ = lf2.Write([]byte("after\n"))
	if b, _ := os.ReadFile(path + ".moved"); string(b) != "before\n" {
		t.Errorf("moved file holds %q", b)
	}
	if b, _ := os.ReadFile(path); string(b) != "after\n" {
		t.Errorf("reopened file holds %q", b)
	}
}
