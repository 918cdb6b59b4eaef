package storage

import (
	"bytes"
	"context"
	"fmt"

	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// A load whose keys arrive in strictly rising order has nothing to sort:
// an index on a field that rises with the records, as an event's time
// does. Such a load writes its keys straight into its sstables as they
// come, instead of copying each into the arena, checking the order at
// Finish (presorted) and reading them back out of the arena to write
// them: the event log's {time: 1} build cost 5% less (docs/benchmarks.md,
// "Issue 33", twelfth session).
//
// Streaming starts once the arena holds ingestThreshold bytes, all of
// them rising (a smaller load goes through one batch, see Finish), and
// only for a load without a neighbour check: a unique index's duplicate
// check stays with Finish's drain. The arena's entries are written
// first, then every key as it is added. A key at or below the last one
// ends the stream: its tables are closed and become one more sorted
// source of the merge (tableRun), read back at Finish with the arena and
// the spilled runs, so a load that stops rising costs one more read of
// what it streamed, as a spilled run does.

// streamPrefix names the tables a load streams, apart from the tables
// Finish writes (tableSink's default) in the same directory.
const streamPrefix = "stream"

// noteOrder records whether key keeps the keys added so far strictly
// rising; it is called before key is added to the arena. presorted then
// need not compare the entries again.
func (l *SortedLoad) noteOrder(key []byte) {
	if !l.unordered && len(l.ents) > 0 && bytes.Compare(key, l.key(l.ents[len(l.ents)-1])) <= 0 {
		l.unordered = true
	}
}

// maybeStream starts streaming when the arena's entries rise and are
// enough for ingestion (see above).
func (l *SortedLoad) maybeStream() error {
	if l.unordered || l.check != nil || len(l.runs) > 0 || len(l.streamed) > 0 || l.bytes < ingestThreshold || len(l.ents) == 0 {
		return nil
	}
	dir, err := l.tmpDir()
	if err != nil {
		return err
	}
	s := &tableSink{db: l.db, dir: dir, prefix: streamPrefix, wopts: l.db.popts.MakeWriterOptions(6, l.db.pdb.TableFormat())}
	for _, e := range l.ents {
		if err := s.add(l.key(e), l.value(e)); err != nil {
			s.abort()
			return err
		}
	}
	l.stream = s
	l.streamLast = append(l.streamLast[:0], l.key(l.ents[len(l.ents)-1])...)
	l.resetArena()
	return nil
}

// streamAdd writes key, above every key before it, to the stream.
func (l *SortedLoad) streamAdd(key, value []byte) error {
	if err := l.stream.add(key, value); err != nil {
		return err
	}
	l.streamLast = append(l.streamLast[:0], key...)
	l.keys++
	l.bytes += int64(len(key) + len(value))
	return nil
}

// endStream closes the stream's tables, which Finish will read back and
// merge (a key came out of order).
func (l *SortedLoad) endStream() error {
	s := l.stream
	l.stream, l.unordered = nil, true
	if s.w != nil {
		if err := s.closeTable(); err != nil {
			return err
		}
	}
	l.streamed = s.paths
	return nil
}

// finishStream ingests the stream's tables: every key of the load was
// streamed, in order.
func (l *SortedLoad) finishStream(ctx context.Context) (uint64, error) {
	s := l.stream
	l.stream = nil
	if l.OnEmitted != nil {
		l.OnEmitted(l.keys, l.keys)
	}
	seq, err := s.finish(ctx)
	if err != nil {
		s.abort()
	}
	return seq, err
}

// tableRun reads back, in order, the tables of a stream that ended.
type tableRun struct {
	paths []string
	ropts sstable.ReaderOptions
	r     *sstable.Reader
	it    sstable.Iterator
	// The entry is copied out of the iterator, into one of two buffers in
	// turn: mergeSources.next returns an entry's slices and then
	// advances its source, and the slices must outlive that advance.
	bufs [2][]byte
	cur  int
	klen int
}

func (t *tableRun) advance() (bool, error) {
	for {
		if t.it == nil {
			if len(t.paths) == 0 {
				return false, nil
			}
			if err := t.open(t.paths[0]); err != nil {
				return false, err
			}
			t.paths = t.paths[1:]
			kv := t.it.First()
			if kv != nil {
				return t.take(kv.K.UserKey, kv.InPlaceValue()), nil
			}
		} else if kv := t.it.Next(); kv != nil {
			return t.take(kv.K.UserKey, kv.InPlaceValue()), nil
		}
		if err := t.closeTable(); err != nil {
			return false, err
		}
	}
}

func (t *tableRun) take(k, v []byte) bool {
	t.cur ^= 1
	t.bufs[t.cur] = append(append(t.bufs[t.cur][:0], k...), v...)
	t.klen = len(k)
	return true
}

func (t *tableRun) key() []byte   { return t.bufs[t.cur][:t.klen:t.klen] }
func (t *tableRun) value() []byte { return t.bufs[t.cur][t.klen:] }

func (t *tableRun) open(path string) error {
	f, err := vfs.Default.Open(path)
	if err != nil {
		return fmt.Errorf("storage: sorted load: %w", err)
	}
	readable, err := objstorageprovider.NewFileReadable(f, vfs.Default, objstorageprovider.NewReadaheadConfig(), path)
	if err != nil {
		f.Close()
		return fmt.Errorf("storage: sorted load: %w", err)
	}
	r, err := sstable.NewReader(context.Background(), readable, t.ropts)
	if err != nil {
		readable.Close()
		return fmt.Errorf("storage: sorted load: read streamed table: %w", err)
	}
	it, err := r.NewIter(sstable.NoTransforms, nil, nil, sstable.AssertNoBlobHandles)
	if err != nil {
		r.Close()
		return fmt.Errorf("storage: sorted load: read streamed table: %w", err)
	}
	t.r, t.it = r, it
	return nil
}

func (t *tableRun) closeTable() error {
	if t.it == nil {
		return nil
	}
	err := t.it.Close()
	if cerr := t.r.Close(); err == nil {
		err = cerr
	}
	t.it, t.r = nil, nil
	if err != nil {
		return fmt.Errorf("storage: sorted load: read streamed table: %w", err)
	}
	return nil
}
