package storage

import (
	"bufio"
	"bytes"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/lodedb/lode/internal/procs"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"unsafe"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// SortedLoad writes a set of new keys, given in any order, the way
// PostgreSQL's CREATE INDEX and MongoDB's index builds do: it sorts them
// (in memory up to a budget, spilling sorted runs to files beyond it) and
// then writes them in key order. A small load goes through one batch; a
// large one is written as sstables that Pebble ingests directly into the
// LSM, so its keys never pass through the WAL, the memtable or a flush.
//
// The keys must be new: no key of the load may exist in the database or
// be written by anyone else until Finish returns (an index build owns its
// fresh index id). Keys must be distinct.
type SortedLoad struct {
	db        *DB
	skip      int // bytes every key shares (the index prefix); not compared
	budget    int
	chunks    [][]byte // the arena: entries never straddle two chunks
	used      int      // bytes in chunks
	ents      []sortEntry
	first     []byte // the first key added, to measure lcp against
	lcp       int    // bytes after skip that every key added shares
	runs      []string
	dir       string
	keys      int64
	bytes     int64
	check     func(prev, cur []byte) error
	OnEmitted func(done, total int64) // progress while writing; may be nil
	// suffix is the length of the keys' rising suffix (SetRisingSuffix),
	// 0 when they have none.
	suffix int
	// heads[i] is the length of the first field of ents[i]'s key after
	// skip (AddHead; 0: not known), while ents are in the order added.
	heads []uint16
	// pages places each head's entries together (bulkpages.go).
	pages headPages
	// unordered: some key was added at or below the one before it.
	// stream writes the keys of a rising load straight into its tables
	// (bulkstream.go), streamLast the last key it took; streamed are the
	// tables of a stream that ended, to be merged at Finish.
	unordered  bool
	stream     *tableSink
	streamLast []byte
	streamed   []string
}

// sortEntry is one key/value in the arena, with sixteen bytes of the key
// (those after the prefix all keys share) as two big-endian integers: most
// comparisons end there (PostgreSQL's abbreviated keys; eight bytes are too
// few for compound index keys, whose first field repeats across many
// entries).
type sortEntry struct {
	abbrev uint64
	abbrv2 uint64 // the next eight bytes
	chunk  uint32
	off    uint32
	klen   uint32
	vlen   uint32
}

// chunkSize is the size of one arena chunk. Growing the arena by chunks
// copies nothing, where one growing slice would copy it again and again.
const chunkSize = 4 << 20

// DefaultSortBudget is the memory a SortedLoad sorts in before it spills a
// run, MongoDB's maxIndexBuildMemoryUsageMegabytes default.
const DefaultSortBudget = 200 << 20

// ingestThreshold is the smallest load written as sstables; below it one
// batch is cheaper than the fsyncs an ingestion costs.
const ingestThreshold = 4 << 20

// targetTableSize splits the ingested output into sstables of about this
// many uncompressed bytes, so later compactions of the range move moderate files.
const targetTableSize = 64 << 20

// NewSortedLoad starts a load. skip is the length of a prefix all keys
// share; check, when not nil, is called with each pair of neighbouring
// keys in sorted order and may refuse the load (a unique index's duplicate).
func (db *DB) NewSortedLoad(skip int, check func(prev, cur []byte) error) *SortedLoad {
	return &SortedLoad{db: db, skip: skip, budget: DefaultSortBudget, check: check}
}

// SetBudget changes the in-memory sort budget (tests use a small one to
// exercise spilled runs).
func (l *SortedLoad) SetBudget(n int) { l.budget = n }

// Keys returns the number of keys added so far.
func (l *SortedLoad) Keys() int64 { return l.keys }

// SizeHint says how many more keys are about to be added, so the entry
// table is allocated once.
func (l *SortedLoad) SizeHint(n int) {
	if l.stream != nil {
		return // streamed entries never fill the table
	}
	n = min(n, l.budget/2/entrySize)
	if n > cap(l.ents)-len(l.ents) {
		if len(l.ents) == 0 {
			if e := l.db.loadMem.takeEnts(n); e != nil {
				l.db.loadMem.give(l.ents, nil)
				l.ents = e
				return
			}
		}
		g := newEnts(len(l.ents), len(l.ents)+n)
		copy(g, l.ents)
		l.ents = g
	}
}

// newEnts allocates an entry table of length n and capacity c, backed
// by huge pages where the kernel gives them: a table of millions of
// entries otherwise faults in a 4 KiB page every 128 entries, about 90
// ns an entry on a virtual machine whose page faults trap to the
// hypervisor (docs/benchmarks.md, twenty-second session).
func newEnts(n, c int) []sortEntry {
	e := make([]sortEntry, n, c)
	if c > 0 {
		adviseHugePages(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(e[:c]))), c*entrySize))
	}
	return e
}

// entrySize is the in-memory size of one sortEntry.
const entrySize = 32

// Add adds one key and value; both are copied.
func (l *SortedLoad) Add(key, value []byte) error { return l.AddHead(key, value, 0) }

// AddHead is Add for a key whose part after the shared prefix starts
// with a field of head bytes (an index key's first field; 0: not known),
// on which the sort may group the entries (bucketsort.go).
func (l *SortedLoad) AddHead(key, value []byte, head int) error {
	if l.stream != nil {
		if bytes.Compare(key, l.streamLast) > 0 {
			return l.streamAdd(key, value)
		}
		if err := l.endStream(); err != nil {
			return err
		}
	}
	n := len(key) + len(value)
	if l.used+n+len(l.ents)*entrySize+2*len(l.heads)+4*len(l.pages.gids) > l.budget && len(l.ents) > 0 {
		if err := l.spill(); err != nil {
			return err
		}
	}
	l.noteOrder(key)
	var ci, off int
	if p := l.page(key, head, n); p != nil {
		ci, off = p.chunk, p.off
		c := l.chunks[ci]
		copy(c[off:], key)
		copy(c[off+len(key):], value)
		p.off += n
	} else {
		l.room(n)
		ci = len(l.chunks) - 1
		c := l.chunks[ci]
		off = len(c)
		c = append(c, key...)
		c = append(c, value...)
		l.chunks[ci] = c
		l.used += n
	}
	if l.keys == 0 {
		l.first = append([]byte(nil), key[min(l.skip, len(key)):]...)
		l.lcp = len(l.first)
	} else if l.lcp > 0 {
		rest := key[min(l.skip, len(key)):]
		n := min(l.lcp, len(rest))
		i := 0
		for i < n && rest[i] == l.first[i] {
			i++
		}
		l.lcp = i
	}
	// The abbreviations are set by sort, once the shared prefix is known.
	l.ents = append(l.ents, sortEntry{chunk: uint32(ci), off: uint32(off), klen: uint32(len(key)), vlen: uint32(len(value))})
	if head > 0 && head <= math.MaxUint16 && len(l.heads) == len(l.ents)-1 {
		l.heads = append(l.heads, uint16(head))
	}
	l.keys++
	l.bytes += int64(n)
	return l.maybeStream()
}

// room makes sure the arena's last chunk has room for n more bytes.
func (l *SortedLoad) room(n int) {
	if len(l.chunks) == 0 || len(l.chunks[len(l.chunks)-1])+n > cap(l.chunks[len(l.chunks)-1]) {
		c := l.db.loadMem.takeChunk()
		if c == nil || n > cap(c) {
			c = make([]byte, 0, max(chunkSize, n))
			adviseHugePages(c)
		}
		l.chunks = append(l.chunks, c)
	}
}

// abbrev returns the eight bytes of key from skip as a big-endian
// number, padded with zeros past the key's end.
func abbrev(key []byte, skip int) uint64 {
	if len(key)-skip >= 8 {
		return binary.BigEndian.Uint64(key[skip:]) // no copy: a call to memmove per key
	}
	var b [8]byte
	if skip < len(key) {
		copy(b[:], key[skip:])
	}
	return binary.BigEndian.Uint64(b[:])
}

func (l *SortedLoad) key(e sortEntry) []byte { return l.chunks[e.chunk][e.off : e.off+e.klen] }

func (l *SortedLoad) value(e sortEntry) []byte {
	s := e.off + e.klen
	return l.chunks[e.chunk][s : s+e.vlen]
}

func (l *SortedLoad) cmp(a, b sortEntry) int {
	// Keys agree on their first skip+lcp bytes, and on the next sixteen
	// when the abbreviations tie; compare after those when both are long
	// enough for the abbreviations to hold no padding.
	if c := cmpAbbrev(a, b); c != 0 {
		return c
	}
	ka, kb := l.key(a), l.key(b)
	if off := l.skip + l.lcp + 16; len(ka) >= off && len(kb) >= off {
		return bytes.Compare(ka[off:], kb[off:])
	}
	return bytes.Compare(ka[l.skip:], kb[l.skip:])
}

// presorted reports whether the entries were added in strictly rising
// key order, or strictly falling (then it reverses them), which leaves
// nothing to sort: an index on a field that rises with the records, as an
// event's time does, ascending or descending. It stops at the first key
// that breaks the order.
func (l *SortedLoad) presorted() bool {
	n := len(l.ents)
	if n < 2 || !l.unordered {
		return true // noteOrder saw every key rise
	}
	dir := bytes.Compare(l.key(l.ents[1]), l.key(l.ents[0]))
	if dir == 0 {
		return false
	}
	for i := 2; i < n; i++ {
		if bytes.Compare(l.key(l.ents[i]), l.key(l.ents[i-1])) != dir {
			return false
		}
	}
	if dir < 0 {
		slices.Reverse(l.ents)
	}
	return true
}

// sort orders the in-memory entries, on two goroutines when there are
// many: the entries are split around a sampled abbreviation, those below
// it first, and each part is sorted on its own goroutine, so that no
// merge compares the keys themselves (a merge of sorted halves compares
// the keys whole where their abbreviations tie, reading both from the
// arena: a fifth of the sort's work on an index whose keys share their
// first bytes). Entries that tie on their abbreviations fall on the same
// side.
func (l *SortedLoad) sort() {
	if l.presorted() || l.bucketSort() { // bucketsort.go
		return
	}
	// Abbreviate after the prefix every key shares: index keys of one
	// field often start alike (a type byte, then "/site/section..."), and
	// a tie on the abbreviations costs a full comparison.
	from := l.skip + l.lcp
	for i := range l.ents {
		k := l.key(l.ents[i])
		l.ents[i].abbrev, l.ents[i].abbrv2 = abbrev(k, from), abbrev(k, from+8)
	}
	n := len(l.ents)
	if n < 1<<16 {
		l.sortEnts(l.ents, from, true)
		return
	}
	i := splitEnts(l.ents)
	a, b := l.ents[:i], l.ents[i:]
	procs.Parallel() // a lone client's server may run on one processor
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); l.sortEnts(a, from, true) }()
	l.sortEnts(b, from, true)
	wg.Wait()
}

// splitEnts moves the entries below a pivot (the median abbreviation of
// an evenly spaced sample) to the front of ents and returns their
// number.
func splitEnts(ents []sortEntry) int {
	const samples = 255
	var sample [samples]sortEntry
	step := len(ents) / samples
	for i := range sample {
		sample[i] = ents[i*step]
	}
	slices.SortFunc(sample[:], cmpAbbrev)
	pivot := sample[samples/2]
	i := 0
	for j := range ents {
		if cmpAbbrev(ents[j], pivot) < 0 {
			ents[i], ents[j] = ents[j], ents[i]
			i++
		}
	}
	return i
}

// sortEnts orders ents, whose abbreviations hold the sixteen key bytes
// from offset from, by key. It sorts on the abbreviations alone, then
// orders each run of entries that tie on them by the next sixteen bytes,
// abbreviated afresh, and so on: one read of a tied key's bytes per
// sixteen, where a comparison sort that compares tied keys whole reads
// both keys, wherever they lie in the arena, at each of its twenty-odd
// comparisons (an index on {metadata.key, metadata.value}, whose keys tie
// on a key name and a value's first bytes: BenchmarkSortedLoad's
// "compound"). top says to leave the abbreviations at from afterwards,
// as the merge of sort's halves compares them.
func (l *SortedLoad) sortEnts(ents []sortEntry, from int, top bool) {
	slices.SortFunc(ents, cmpAbbrev)
	for i := 0; i < len(ents); {
		j := i + 1
		for j < len(ents) && ents[j].abbrev == ents[i].abbrev && ents[j].abbrv2 == ents[i].abbrv2 {
			j++
		}
		if j-i > 1 {
			l.sortTied(ents[i:j], from, top)
		}
		i = j
	}
}

// sortTied orders entries whose keys agree on their bytes up to from+16.
func (l *SortedLoad) sortTied(run []sortEntry, from int, top bool) {
	next := from + 16
	for _, e := range run {
		if int(e.klen) <= next {
			// A key that ends within the abbreviations was padded with
			// zeros there: compare the run's keys whole.
			slices.SortFunc(run, func(a, b sortEntry) int {
				return bytes.Compare(l.key(a)[from:], l.key(b)[from:])
			})
			return
		}
	}
	for i := range run {
		k := l.key(run[i])
		run[i].abbrev, run[i].abbrv2 = abbrev(k, next), abbrev(k, next+8)
	}
	l.sortEnts(run, next, false)
	if top {
		for i := range run {
			k := l.key(run[i])
			run[i].abbrev, run[i].abbrv2 = abbrev(k, from), abbrev(k, from+8)
		}
	}
}

func cmpAbbrev(a, b sortEntry) int {
	if a.abbrev != b.abbrev {
		if a.abbrev < b.abbrev {
			return -1
		}
		return 1
	}
	if a.abbrv2 != b.abbrv2 {
		if a.abbrv2 < b.abbrv2 {
			return -1
		}
		return 1
	}
	return 0
}

// tmpDir returns (creating it) the directory for runs and sstables, inside
// the data directory so that ingestion can hard-link its files.
func (l *SortedLoad) tmpDir() (string, error) {
	if l.dir != "" {
		return l.dir, nil
	}
	d, err := os.MkdirTemp(l.db.dir, "bulk-")
	if err != nil {
		return "", fmt.Errorf("storage: sorted load: %w", err)
	}
	l.dir = d
	return d, nil
}

// spill sorts the in-memory entries and writes them as one run file.
func (l *SortedLoad) spill() error {
	l.sort()
	dir, err := l.tmpDir()
	if err != nil {
		return err
	}
	path := filepath.Join(dir, fmt.Sprintf("run-%06d", len(l.runs)))
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("storage: sorted load: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var hdr [2 * binary.MaxVarintLen32]byte
	for _, e := range l.ents {
		n := binary.PutUvarint(hdr[:], uint64(e.klen))
		n += binary.PutUvarint(hdr[n:], uint64(e.vlen))
		w.Write(hdr[:n])
		w.Write(l.chunks[e.chunk][e.off : e.off+e.klen+e.vlen])
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("storage: sorted load: write run: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("storage: sorted load: write run: %w", err)
	}
	l.runs = append(l.runs, path)
	l.resetArena()
	return nil
}

// resetArena empties the arena, keeping its first chunk, once its
// entries are in a run or a stream.
func (l *SortedLoad) resetArena() {
	for i := range l.chunks {
		l.chunks[i] = l.chunks[i][:0]
	}
	l.chunks, l.ents, l.used, l.heads = l.chunks[:1], l.ents[:0], 0, l.heads[:0]
	l.pages.reset()
}

// Abort removes the load's temporary files; nothing was written to the
// database unless Finish ran.
func (l *SortedLoad) Abort() {
	if l.stream != nil {
		l.stream.abort()
		l.stream = nil
	}
	if l.dir != "" {
		os.RemoveAll(l.dir)
		l.dir = ""
	}
	l.db.loadMem.give(l.ents, l.chunks)
	l.chunks, l.ents, l.runs, l.used = nil, nil, nil, 0
	l.pages = headPages{}
}

// Finish writes every key in order and returns the commit sequence of the
// batch (zero when the keys were ingested: ingestion is durable on return).
func (l *SortedLoad) Finish(ctx context.Context) (uint64, error) {
	defer l.Abort()
	if l.stream != nil {
		return l.finishStream(ctx)
	}
	src, err := l.sources()
	if err != nil {
		return 0, err
	}
	defer src.close()
	return l.finishFrom(ctx, src, l.bytes)
}

// keySource yields a load's keys in order; the slices stay valid until
// the next call.
type keySource interface {
	next() (k, v []byte, ok bool, err error)
}

// finishFrom writes the keys of src, size bytes of them, in order, through
// one batch or ingested tables. The caller removes the load's temporary
// files (Abort) once src is closed.
func (l *SortedLoad) finishFrom(ctx context.Context, src keySource, size int64) (uint64, error) {
	var sink loadSink
	if len(l.runs) == 0 && size < ingestThreshold {
		sink = &batchSink{db: l.db, b: l.db.NewBatch()}
	} else {
		dir, err := l.tmpDir()
		if err != nil {
			return 0, err
		}
		sink = &tableSink{db: l.db, dir: dir, wopts: l.db.popts.MakeWriterOptions(6, l.db.pdb.TableFormat())}
	}
	if err := l.drain(ctx, src, sink); err != nil {
		sink.abort()
		return 0, err
	}
	return sink.finish(ctx)
}

// drain hands the merged, sorted keys to sink, checking neighbours and
// reporting progress (and honouring ctx) every 65,536 keys.
func (l *SortedLoad) drain(ctx context.Context, src keySource, sink loadSink) error {
	var prev []byte
	var n int64
	for {
		k, v, ok, err := src.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if l.check != nil && n > 0 {
			if err := l.check(prev, k); err != nil {
				return err
			}
		}
		if err := sink.add(k, v); err != nil {
			return err
		}
		if l.check != nil {
			prev = append(prev[:0], k...)
		}
		n++
		if n&0xffff == 0 {
			if l.OnEmitted != nil {
				l.OnEmitted(n, l.keys)
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	if l.OnEmitted != nil {
		l.OnEmitted(n, l.keys)
	}
	return nil
}

// loadSink receives a load's keys in order: one batch (batchSink) or
// ingested sstables (tableSink).
type loadSink interface {
	add(k, v []byte) error
	// finish makes the keys part of the database; abort drops them.
	finish(ctx context.Context) (uint64, error)
	abort()
}

// batchSink writes a small load through one batch.
type batchSink struct {
	db *DB
	b  *Batch
}

func (s *batchSink) add(k, v []byte) error {
	if err := s.b.set(k, v); err != nil {
		return fmt.Errorf("storage: sorted load: %w", err)
	}
	return nil
}

func (s *batchSink) finish(context.Context) (uint64, error) {
	if s.b.Empty() {
		s.b.Close()
		return 0, nil
	}
	return s.db.Commit(s.b)
}

func (s *batchSink) abort() { s.b.Close() }

// tableSink writes sstables of about targetTableSize uncompressed bytes
// into dir and ingests them.
type tableSink struct {
	db  *DB
	dir string
	// prefix names the tables (prefix-NNNNNN.sst; "table" when empty).
	prefix string
	wopts  sstable.WriterOptions
	w      *sstable.Writer
	paths  []string
	bytes  int // uncompressed bytes in the current table
}

func (s *tableSink) add(k, v []byte) error {
	if s.w != nil && s.bytes >= targetTableSize {
		if err := s.closeTable(); err != nil {
			return err
		}
	}
	if s.w == nil {
		prefix := s.prefix
		if prefix == "" {
			prefix = "table"
		}
		path := filepath.Join(s.dir, fmt.Sprintf("%s-%06d.sst", prefix, len(s.paths)))
		f, err := vfs.Default.Create(path, vfs.WriteCategoryUnspecified)
		if err != nil {
			return fmt.Errorf("storage: sorted load: %w", err)
		}
		s.w = sstable.NewWriter(newTableWritable(f, path, true), s.wopts) // vfs.Default's
		s.paths = append(s.paths, path)
	}
	if err := s.w.Set(k, v); err != nil {
		return fmt.Errorf("storage: sorted load: write sstable: %w", err)
	}
	s.bytes += len(k) + len(v)
	return nil
}

func (s *tableSink) closeTable() error {
	w := s.w
	s.w, s.bytes = nil, 0
	if err := w.Close(); err != nil {
		return fmt.Errorf("storage: sorted load: write sstable: %w", err)
	}
	return nil
}

func (s *tableSink) finish(ctx context.Context) (uint64, error) {
	if s.w != nil {
		if err := s.closeTable(); err != nil {
			return 0, err
		}
	}
	if len(s.paths) == 0 {
		return 0, nil
	}
	if err := s.db.ingest(ctx, s.paths); err != nil {
		return 0, fmt.Errorf("storage: sorted load: ingest: %w", err)
	}
	return 0, nil
}

// ingest ingests sstables, as Commit commits: not on a failed DB, and a
// failed write fails the DB.
func (db *DB) ingest(ctx context.Context, paths []string) (err error) {
	if !db.enter() {
		return db.failure.Load()
	}
	defer db.leave()
	defer db.recoverFatal(&err)
	err = db.pdb.Ingest(ctx, paths)
	if err != nil && isIOFailure(err) {
		err = db.fail(err)
	}
	return err
}

// abort closes the open table; Abort removes the files.
func (s *tableSink) abort() {
	if s.w != nil {
		_ = s.w.Close()
		s.w = nil
	}
}

// mergeSources yields the keys of the in-memory entries and the spilled
// runs in order.
type mergeSources struct {
	h      runHeap
	mem    *memRun
	runs   []*fileRun
	tables *tableRun
}

type source interface {
	// advance moves to the next entry; it reports false at the end.
	advance() (bool, error)
	key() []byte
	value() []byte
}

type runHeap []source

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return bytes.Compare(h[i].key(), h[j].key()) < 0 }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(source)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (l *SortedLoad) sources() (*mergeSources, error) {
	l.sort()
	m := &mergeSources{mem: &memRun{l: l, i: -1}}
	all := []source{m.mem}
	for _, p := range l.runs {
		f, err := os.Open(p)
		if err != nil {
			m.close()
			return nil, fmt.Errorf("storage: sorted load: %w", err)
		}
		r := &fileRun{f: f, r: bufio.NewReaderSize(f, 1<<20)}
		m.runs = append(m.runs, r)
		all = append(all, r)
	}
	if len(l.streamed) > 0 {
		m.tables = &tableRun{paths: l.streamed, ropts: l.db.popts.MakeReaderOptions()}
		all = append(all, m.tables)
	}
	for _, s := range all {
		ok, err := s.advance()
		if err != nil {
			m.close()
			return nil, err
		}
		if ok {
			m.h = append(m.h, s)
		}
	}
	heap.Init(&m.h)
	return m, nil
}

// next returns the smallest remaining entry. The slices stay valid until
// the following call.
func (m *mergeSources) next() (k, v []byte, ok bool, err error) {
	if len(m.h) == 0 {
		return nil, nil, false, nil
	}
	top := m.h[0]
	// Copy out before advancing: a file run reuses its buffers.
	k, v = top.key(), top.value()
	if fr, isFile := top.(*fileRun); isFile {
		k = append(fr.outK[:0], k...)
		v = append(fr.outV[:0], v...)
		fr.outK, fr.outV = k, v
	}
	more, err := top.advance()
	if err != nil {
		return nil, nil, false, err
	}
	if more {
		heap.Fix(&m.h, 0)
	} else {
		heap.Pop(&m.h)
	}
	return k, v, true, nil
}

func (m *mergeSources) close() {
	for _, r := range m.runs {
		r.f.Close()
	}
	if m.tables != nil {
		_ = m.tables.closeTable()
	}
}

// memRun walks the sorted in-memory entries. Sorted, they point all
// over the arena, and a walk that read each where it lies would wait on
// a cache miss per entry inside the sstable writer, whose work between
// two reads is too long for the processor to overlap them. So memRun
// copies the next gatherWindow entries, in order, into a small buffer
// first: a tight loop of independent loads that keeps many misses in
// flight at once (a 1M-key index build: BenchmarkSortedLoad).
type memRun struct {
	l    *SortedLoad
	i    int
	buf  []byte   // the window's keys and values, in order
	prev []byte   // the window before, which the last key returned may be in
	offs []uint32 // entry i-base's key starts at offs[i-base] in buf
	base int      // the window's first entry
	end  int      // the entry after the window
}

// gatherWindow is how many entries memRun copies at a time.
const gatherWindow = 4096

func (r *memRun) advance() (bool, error) {
	r.i++
	if r.i >= len(r.l.ents) {
		return false, nil
	}
	if r.i >= r.end {
		r.gather()
	}
	return true, nil
}

// gather copies the entries from r.i on into the window.
func (r *memRun) gather() {
	ents := r.l.ents[r.i:min(r.i+gatherWindow, len(r.l.ents))]
	r.base, r.end = r.i, r.i+len(ents)
	// mergeSources.next returns an entry's slices and then advances: the
	// window they are in must outlive the gather.
	r.buf, r.prev = r.prev[:0], r.buf
	r.offs = r.offs[:0]
	for _, e := range ents {
		r.offs = append(r.offs, uint32(len(r.buf)))
		r.buf = append(r.buf, r.l.chunks[e.chunk][e.off:e.off+e.klen+e.vlen]...)
	}
}

func (r *memRun) key() []byte {
	e, o := r.l.ents[r.i], r.offs[r.i-r.base]
	return r.buf[o : o+e.klen : o+e.klen]
}

func (r *memRun) value() []byte {
	e, o := r.l.ents[r.i], r.offs[r.i-r.base]+r.l.ents[r.i].klen
	return r.buf[o : o+e.vlen : o+e.vlen]
}

// fileRun reads one spilled run.
type fileRun struct {
	f          *os.File
	r          *bufio.Reader
	k, v       []byte
	outK, outV []byte
}

func (r *fileRun) advance() (bool, error) {
	kl, err := binary.ReadUvarint(r.r)
	if errors.Is(err, io.EOF) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("storage: sorted load: read run: %w", err)
	}
	vl, err := binary.ReadUvarint(r.r)
	if err != nil {
		return false, fmt.Errorf("storage: sorted load: read run: %w", err)
	}
	r.k = slices.Grow(r.k[:0], int(kl))[:kl]
	r.v = slices.Grow(r.v[:0], int(vl))[:vl]
	if _, err := io.ReadFull(r.r, r.k); err != nil {
		return false, fmt.Errorf("storage: sorted load: read run: %w", err)
	}
	if _, err := io.ReadFull(r.r, r.v); err != nil {
		return false, fmt.Errorf("storage: sorted load: read run: %w", err)
	}
	return true, nil
}
func (r *fileRun) key() []byte   { return r.k }
func (r *fileRun) value() []byte { return r.v }

// ClearIndexesAbove range-deletes the entries of every index id above id,
// if there are any. Open uses it to drop what an index build interrupted
// by a crash left behind before its index was in the catalog.
func (db *DB) ClearIndexesAbove(id uint64) error {
	if id == ^uint64(0) {
		return nil
	}
	lo := appendIndexPrefix(nil, id+1)
	hi := []byte{kindIndex + 1}
	it, err := db.pdb.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return fmt.Errorf("storage: orphaned index entries: %w", err)
	}
	found := it.First()
	if err := it.Close(); err != nil {
		return fmt.Errorf("storage: orphaned index entries: %w", err)
	}
	if !found {
		return nil
	}
	db.log.Warn("removing index entries of an index build interrupted by a crash", "above_id", id)
	b := db.NewBatch()
	if err := b.deleteRange(lo, hi); err != nil {
		b.Close()
		return fmt.Errorf("storage: orphaned index entries: %w", err)
	}
	_, err = db.Commit(b)
	return err
}
