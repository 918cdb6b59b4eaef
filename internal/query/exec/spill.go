package exec

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query"
)

// spillRun is one sorted run of a SORT written to a temporary file as
// (recordID, position, document) records. The file is removed on close.
type spillRun struct {
	f *os.File
	r *bufio.Reader
}

func writeRun(dir string, entries []sortEntry) (*spillRun, error) {
	f, err := os.CreateTemp(dir, "lode-sort-*.run")
	if err != nil {
		return nil, fmt.Errorf("sort spill: %w", err)
	}
	_ = os.Remove(f.Name()) // unlinked: the data goes away with the handle
	w := bufio.NewWriterSize(f, 1<<20)
	var hdr [24]byte
	for _, e := range entries {
		binary.LittleEndian.PutUint64(hdr[:8], e.m.RID)
		binary.LittleEndian.PutUint64(hdr[8:], uint64(int64(e.m.Pos)))
		binary.LittleEndian.PutUint64(hdr[16:], math.Float64bits(e.m.Score))
		if _, err := w.Write(hdr[:]); err != nil {
			f.Close()
			return nil, fmt.Errorf("sort spill: %w", err)
		}
		if _, err := w.Write(e.m.Doc); err != nil {
			f.Close()
			return nil, fmt.Errorf("sort spill: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return nil, fmt.Errorf("sort spill: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("sort spill: %w", err)
	}
	return &spillRun{f: f, r: bufio.NewReaderSize(f, 256<<10)}, nil
}

// read returns the run's next entry; ok is false at its end.
func (r *spillRun) read(spec *query.Sort) (sortEntry, bool, error) {
	var hdr [28]byte
	if _, err := io.ReadFull(r.r, hdr[:]); err != nil {
		if err == io.EOF {
			return sortEntry{}, false, nil
		}
		return sortEntry{}, false, fmt.Errorf("sort spill read: %w", err)
	}
	n := int(binary.LittleEndian.Uint32(hdr[24:]))
	if n < 5 {
		return sortEntry{}, false, fmt.Errorf("sort spill read: bad document length %d", n)
	}
	doc := make([]byte, n)
	copy(doc, hdr[24:])
	if _, err := io.ReadFull(r.r, doc[4:]); err != nil {
		return sortEntry{}, false, fmt.Errorf("sort spill read: %w", err)
	}
	d := bsoncore.Document(doc)
	m := Member{RID: binary.LittleEndian.Uint64(hdr[:8]), Pos: int(int64(binary.LittleEndian.Uint64(hdr[8:16]))), Doc: d,
		Score: math.Float64frombits(binary.LittleEndian.Uint64(hdr[16:24]))}
	return sortEntry{key: spec.KeyScore(d, m.Score), m: m}, true, nil
}

func (r *spillRun) close() { r.f.Close() }

// runMerger merges sorted runs and a sorted in-memory tail.
type runMerger struct {
	spec  *query.Sort
	runs  []*spillRun
	mem   []sortEntry
	heads mergeHeap
}

type mergeItem struct {
	e   sortEntry
	src int // run index, or -1 for memory
	seq int
}

type mergeHeap struct {
	items []mergeItem
	spec  *query.Sort
}

func (h mergeHeap) Len() int { return len(h.items) }
func (h mergeHeap) Less(i, j int) bool {
	c := h.spec.CompareKeys(h.items[i].e.key, h.items[j].e.key)
	if c != 0 {
		return c < 0
	}
	return h.items[i].seq < h.items[j].seq
}
func (h mergeHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *mergeHeap) Push(x any)   { h.items = append(h.items, x.(mergeItem)) }
func (h *mergeHeap) Pop() any {
	it := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return it
}

func newRunMerger(runs []*spillRun, mem []sortEntry, spec *query.Sort) (*runMerger, error) {
	m := &runMerger{spec: spec, runs: runs, mem: mem, heads: mergeHeap{spec: spec}}
	for i, r := range runs {
		e, ok, err := r.read(spec)
		if err != nil {
			return nil, err
		}
		if ok {
			m.heads.items = append(m.heads.items, mergeItem{e: e, src: i, seq: i})
		}
	}
	if len(mem) > 0 {
		m.heads.items = append(m.heads.items, mergeItem{e: mem[0], src: -1, seq: len(runs)})
		m.mem = mem[1:]
	}
	heap.Init(&m.heads)
	return m, nil
}

func (m *runMerger) next() (sortEntry, bool, error) {
	if m.heads.Len() == 0 {
		return sortEntry{}, false, nil
	}
	top := m.heads.items[0]
	var nextItem mergeItem
	ok := false
	if top.src < 0 {
		if len(m.mem) > 0 {
			nextItem, ok = mergeItem{e: m.mem[0], src: -1, seq: top.seq}, true
			m.mem = m.mem[1:]
		}
	} else {
		e, got, err := m.runs[top.src].read(m.spec)
		if err != nil {
			return sortEntry{}, false, err
		}
		nextItem, ok = mergeItem{e: e, src: top.src, seq: top.seq}, got
	}
	if ok {
		m.heads.items[0] = nextItem
		heap.Fix(&m.heads, 0)
	} else {
		heap.Pop(&m.heads)
	}
	return top.e, true, nil
}
