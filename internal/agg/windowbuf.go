package agg

import (
	"fmt"
	"os"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// partBuf holds the documents of the current partition that the window
// stage still needs, by position in the partition. Past the memory limit
// (with allowDiskUse) it moves the documents it holds to an unlinked
// temporary file and reads them back by offset when they are needed, so
// only an index of 12 bytes per spilled document stays in memory.
type partBuf struct {
	ents  []bufEnt
	head  int   // index in ents of position base
	base  int64 // partition position of ents[head]
	mem   int64 // bytes of the documents held in memory
	dir   string
	f     *os.File
	fsize int64
	// spilled counts the documents written to disk, spills the writes.
	spilled, spills, spillBytes int64
}

type bufEnt struct {
	doc bsoncore.Document // nil when spilled
	off int64
	n   int32
}

// bufEntOverhead approximates what one held position costs beyond its
// document.
const bufEntOverhead = 40

func (b *partBuf) len() int64 { return b.base + int64(len(b.ents)-b.head) }

func (b *partBuf) push(d bsoncore.Document) {
	b.ents = append(b.ents, bufEnt{doc: d, n: int32(len(d))})
	b.mem += int64(len(d)) + bufEntOverhead
}

// get returns the document at partition position i (base <= i < len).
func (b *partBuf) get(i int64) (bsoncore.Document, error) {
	e := &b.ents[b.head+int(i-b.base)]
	if e.doc != nil {
		return e.doc, nil
	}
	d := make([]byte, e.n)
	if _, err := b.f.ReadAt(d, e.off); err != nil {
		return nil, fmt.Errorf("agg: read window spill file: %w", err)
	}
	return d, nil
}

// dropBefore forgets the positions before i.
func (b *partBuf) dropBefore(i int64) {
	for b.base < i && b.head < len(b.ents) {
		e := &b.ents[b.head]
		if e.doc != nil {
			b.mem -= int64(len(e.doc))
		}
		b.mem -= bufEntOverhead
		*e = bufEnt{}
		b.head++
		b.base++
	}
	if b.head > 1024 && b.head*2 > len(b.ents) {
		n := copy(b.ents, b.ents[b.head:])
		clear(b.ents[n:])
		b.ents, b.head = b.ents[:n], 0
	}
}

// reset empties the buffer for a new partition starting at position 0.
func (b *partBuf) reset() {
	b.dropBefore(b.len())
	b.ents, b.head, b.base, b.mem = b.ents[:0], 0, 0, 0
	if b.f != nil {
		b.f.Truncate(0)
		b.fsize = 0
	}
}

// spill writes every document held in memory to the spill file.
func (b *partBuf) spill() error {
	if b.f == nil {
		if b.dir != "" {
			if err := os.MkdirAll(b.dir, 0o700); err != nil {
				return fmt.Errorf("agg: create spill directory: %w", err)
			}
		}
		f, err := os.CreateTemp(b.dir, "lode-window-spill-*")
		if err != nil {
			return fmt.Errorf("agg: create window spill file: %w", err)
		}
		os.Remove(f.Name())
		b.f = f
	}
	var buf []byte
	start := b.fsize
	for i := b.head; i < len(b.ents); i++ {
		e := &b.ents[i]
		if e.doc == nil {
			continue
		}
		e.off = b.fsize
		b.fsize += int64(len(e.doc))
		buf = append(buf, e.doc...)
		b.mem -= int64(len(e.doc))
		e.doc = nil
		b.spilled++
	}
	if len(buf) == 0 {
		return nil
	}
	if _, err := b.f.WriteAt(buf, start); err != nil {
		return fmt.Errorf("agg: write window spill file: %w", err)
	}
	b.spills++
	b.spillBytes += int64(len(buf))
	return nil
}

func (b *partBuf) close() {
	if b.f != nil {
		b.f.Close()
		b.f = nil
	}
}
