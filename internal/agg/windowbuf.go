package agg

import (
	"fmt"
	"os"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// partBuf holds the documents of the current partition that the window
// stage still needs, by position in the partition. Past the memory limit
// (with allowDiskUse) it moves every document it holds to an unlinked
// temporary file and reads them back by offset when they are needed, so
// a spilled position costs 8 bytes of memory. Spilled positions are
// always a prefix of the held ones: a spill writes everything held.
type partBuf struct {
	base int64 // partition position of the first held document
	// offs are the file offsets of the spilled positions, from shead on;
	// the last one ends at fsize.
	offs  []int64
	shead int
	// docs are the in-memory positions after the spilled ones, from mhead.
	docs  []bsoncore.Document
	mhead int
	mem   int64 // bytes of memory held
	dir   string
	f     *os.File
	fsize int64
	// spilled counts the documents written to disk, spills the writes.
	spilled, spills, spillBytes int64
}

// docOverheadWin is what an in-memory position costs beyond its document.
const docOverheadWin = 24

func (b *partBuf) nSpilled() int64 { return int64(len(b.offs) - b.shead) }

func (b *partBuf) len() int64 { return b.base + b.nSpilled() + int64(len(b.docs)-b.mhead) }

func (b *partBuf) push(d bsoncore.Document) {
	b.docs = append(b.docs, d)
	b.mem += int64(len(d)) + docOverheadWin
}

// get returns the document at partition position i (base <= i < len).
func (b *partBuf) get(i int64) (bsoncore.Document, error) {
	k := i - b.base
	if k >= b.nSpilled() {
		return b.docs[b.mhead+int(k-b.nSpilled())], nil
	}
	j := b.shead + int(k)
	end := b.fsize
	if j+1 < len(b.offs) {
		end = b.offs[j+1]
	}
	d := make([]byte, end-b.offs[j])
	if _, err := b.f.ReadAt(d, b.offs[j]); err != nil {
		return nil, fmt.Errorf("agg: read window spill file: %w", err)
	}
	return d, nil
}

// dropBefore forgets the positions before i.
func (b *partBuf) dropBefore(i int64) {
	for b.base < i && b.nSpilled() > 0 {
		b.shead++
		b.base++
		b.mem -= 8
	}
	for b.base < i && b.mhead < len(b.docs) {
		b.mem -= int64(len(b.docs[b.mhead])) + docOverheadWin
		b.docs[b.mhead] = nil
		b.mhead++
		b.base++
	}
	if b.mhead > 64 && b.mhead*2 > len(b.docs) {
		n := copy(b.docs, b.docs[b.mhead:])
		clear(b.docs[n:])
		b.docs, b.mhead = b.docs[:n], 0
	}
	if b.shead > 64 && b.shead*2 > len(b.offs) {
		n := copy(b.offs, b.offs[b.shead:])
		b.offs, b.shead = b.offs[:n], 0
	}
}

// reset empties the buffer for a new partition starting at position 0.
func (b *partBuf) reset() {
	clear(b.docs)
	b.docs, b.mhead, b.offs, b.shead, b.base, b.mem = b.docs[:0], 0, b.offs[:0], 0, 0, 0
	if b.f != nil {
		b.f.Truncate(0)
		b.fsize = 0
	}
}

// spill writes every document held in memory to the spill file.
func (b *partBuf) spill() error {
	if b.mhead == len(b.docs) {
		return nil
	}
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
	for _, d := range b.docs[b.mhead:] {
		b.offs = append(b.offs, b.fsize)
		b.fsize += int64(len(d))
		buf = append(buf, d...)
		b.mem += 8 - int64(len(d)) - docOverheadWin
		b.spilled++
	}
	clear(b.docs)
	b.docs, b.mhead = b.docs[:0], 0
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
