package storage

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestTableWritable writes pieces shorter than, about as long as and
// longer than the buffer, and reads back exactly their concatenation,
// through the file's own calls and through raw system calls.
func TestTableWritable(t *testing.T) {
	for _, raw := range []bool{false, true} {
		t.Run(map[bool]string{false: "file", true: "raw"}[raw], func(t *testing.T) { testTableWritable(t, raw) })
	}
}

func testTableWritable(t *testing.T, raw bool) {
	path := filepath.Join(t.TempDir(), "t.sst")
	f, err := vfs.Default.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	w := newTableWritable(f, path, raw)
	if w.raw != (raw && walRawIO) {
		t.Fatalf("raw %v, want %v", w.raw, raw && walRawIO)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var want []byte
	for _, n := range []int{1, 4096, 32 << 10, tableWriteBuffer - 1, 7, tableWriteBuffer, 3 * tableWriteBuffer / 2, 100, 0, 16 << 10} {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(r.Uint32())
		}
		want = append(want, p...)
		if err := w.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the file holds %d bytes, not the %d written in order", len(got), len(want))
	}
}
