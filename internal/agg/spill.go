package agg

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"sync/atomic"
)

// spiller writes sorted runs of opaque records to temporary files in dir
// (created when first needed) and merges them back in order. Each run file
// is unlinked as soon as it is created, so its space is freed when the
// stage closes it and nothing is left behind if the process dies.
type spiller struct {
	dir   string
	runs  []*os.File
	bytes int64
	// stats, when set, also counts what this spiller writes (explain).
	stats *spillStats
	// runsWritten counts the runs written, for the instance's
	// Stats.SpilledRuns (nil: not counted).
	runsWritten *atomic.Int64
}

// spillStats are the figures of a stage's spills that explain reports.
type spillStats struct {
	runs, records, bytes int64
}

// newSpiller returns a spiller writing under the pipeline's temporary
// directory and counting into the stage's explain figures, if any.
func (rc *runCtx) newSpiller() *spiller {
	sp := rc.pc.newSpiller()
	sp.stats = rc.spill
	return sp
}

// newSpiller returns a spiller writing under the pipeline's temporary
// directory and counting its runs in the instance's Stats.
func (pc *ParseContext) newSpiller() *spiller {
	return &spiller{dir: pc.tempDir(), runsWritten: &pc.params().Stats.SpilledRuns}
}

// writeRun writes one run of already-sorted records.
func (s *spiller) writeRun(records [][]byte) error {
	return s.writeRunFunc(len(records), func(i int) ([]byte, error) { return records[i], nil })
}

// writeRunFunc writes one run of n records produced in order by rec, so a
// caller can encode them one at a time instead of holding them all.
func (s *spiller) writeRunFunc(n int, rec func(i int) ([]byte, error)) error {
	if s.dir != "" {
		if err := os.MkdirAll(s.dir, 0o700); err != nil {
			return fmt.Errorf("agg: create spill directory: %w", err)
		}
	}
	f, err := os.CreateTemp(s.dir, "lode-agg-spill-*")
	if err != nil {
		return fmt.Errorf("agg: create spill file: %w", err)
	}
	os.Remove(f.Name())
	w := bufio.NewWriterSize(f, 64<<10)
	var hdr [binary.MaxVarintLen64]byte
	before := s.bytes
	for i := 0; i < n; i++ {
		r, err := rec(i)
		if err != nil {
			f.Close()
			return err
		}
		n := binary.PutUvarint(hdr[:], uint64(len(r)))
		if _, err := w.Write(hdr[:n]); err != nil {
			f.Close()
			return fmt.Errorf("agg: write spill file: %w", err)
		}
		if _, err := w.Write(r); err != nil {
			f.Close()
			return fmt.Errorf("agg: write spill file: %w", err)
		}
		s.bytes += int64(n + len(r))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("agg: write spill file: %w", err)
	}
	s.runs = append(s.runs, f)
	if s.runsWritten != nil {
		s.runsWritten.Add(1)
	}
	if s.stats != nil {
		s.stats.runs++
		s.stats.records += int64(n)
		s.stats.bytes += s.bytes - before
	}
	return nil
}

// close releases every run file.
func (s *spiller) close() {
	for _, f := range s.runs {
		f.Close()
	}
	s.runs = nil
}

// runReader reads the records of one run.
type runReader struct {
	r   *bufio.Reader
	cur []byte
	idx int
}

func (rr *runReader) advance() (bool, error) {
	n, err := binary.ReadUvarint(rr.r)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("agg: read spill file: %w", err)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(rr.r, buf); err != nil {
		return false, fmt.Errorf("agg: read spill file: %w", err)
	}
	rr.cur = buf
	return true, nil
}

// merger yields the records of all runs (plus an optional in-memory run,
// which counts as the last run) in the order of cmp; ties go to the
// earlier run, which keeps the merge stable.
type merger struct {
	h   mergeHeap
	mem [][]byte
	mi  int
}

type mergeHeap struct {
	items []*runReader
	cmp   func(a, b []byte) int
}

func (h mergeHeap) Len() int { return len(h.items) }
func (h mergeHeap) Less(i, j int) bool {
	c := h.cmp(h.items[i].cur, h.items[j].cur)
	if c != 0 {
		return c < 0
	}
	return h.items[i].idx < h.items[j].idx
}
func (h mergeHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *mergeHeap) Push(x any)   { h.items = append(h.items, x.(*runReader)) }
func (h *mergeHeap) Pop() any {
	n := len(h.items)
	x := h.items[n-1]
	h.items = h.items[:n-1]
	return x
}
func (h *mergeHeap) top() *runReader   { return h.items[0] }
func (h *mergeHeap) fix()              { heap.Fix(h, 0) }
func (h *mergeHeap) drop()             { heap.Pop(h) }
func (h *mergeHeap) init()             { heap.Init(h) }
func (h *mergeHeap) add(rr *runReader) { h.items = append(h.items, rr) }
func (h *mergeHeap) empty() bool       { return len(h.items) == 0 }

// merge starts merging the spilled runs and mem (sorted).
func (s *spiller) merge(mem [][]byte, cmp func(a, b []byte) int) (*merger, error) {
	m := &merger{h: mergeHeap{cmp: cmp}}
	for i, f := range s.runs {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("agg: rewind spill file: %w", err)
		}
		rr := &runReader{r: bufio.NewReaderSize(f, 64<<10), idx: i}
		ok, err := rr.advance()
		if err != nil {
			return nil, err
		}
		if ok {
			m.h.add(rr)
		}
	}
	if len(mem) > 0 {
		m.mem = mem
		m.h.add(&runReader{cur: mem[0], idx: len(s.runs)})
		m.mi = 1
	}
	m.h.init()
	return m, nil
}

// next returns the next record, or nil at the end.
func (m *merger) next() ([]byte, error) {
	r, err := m.peek()
	if r == nil || err != nil {
		return nil, err
	}
	return r, m.pop()
}

// peek returns the next record without consuming it.
func (m *merger) peek() ([]byte, error) {
	if m.h.empty() {
		return nil, nil
	}
	return m.h.top().cur, nil
}

// pop consumes the record peek returned.
func (m *merger) pop() error {
	if m.h.empty() {
		return nil
	}
	t := m.h.top()
	var ok bool
	if t.r == nil {
		if m.mi < len(m.mem) {
			t.cur, ok = m.mem[m.mi], true
			m.mem[m.mi-1] = nil
			m.mi++
		}
	} else {
		var err error
		ok, err = t.advance()
		if err != nil {
			return err
		}
	}
	if ok {
		m.h.fix()
	} else {
		m.h.drop()
	}
	return nil
}

func compareBytes(a, b []byte) int { return bytes.Compare(a, b) }

func sortSlice(recs [][]byte, cmp func(a, b []byte) int) {
	slices.SortStableFunc(recs, cmp)
}
