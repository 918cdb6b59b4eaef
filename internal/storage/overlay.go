package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/cockroachdb/pebble/v2"
)

// Overlay is a transaction's view: a Pebble snapshot taken when the
// transaction began with the transaction's own (indexed) write batch
// applied on top. Pebble's indexed batches read over the latest committed
// state, so the overlay merges a batch-only iterator with a snapshot
// iterator itself. Every key the batch has written (set or deleted)
// shadows the snapshot's version of that key.
//
// The overlay learns which keys the batch has touched by reading the
// batch's representation incrementally (only entries appended since the
// last read are decoded). Range deletions are not supported inside an
// overlaid batch. An Overlay is not safe for concurrent use.
type Overlay struct {
	snap *pebble.Snapshot
	b    *pebble.Batch

	touched  map[string]touch
	consumed int    // bytes of the batch body already decoded
	n        uint32 // entries decoded
	err      error
}

// touch records a key written by the batch: the ordinal of its first
// entry in the batch and whether its latest entry deletes it.
type touch struct {
	first   uint32
	deleted bool
}

// NewOverlay returns the view of b over snap. b must be an indexed batch.
// The caller keeps ownership of both.
func NewOverlay(snap *Snapshot, b *Batch) *Overlay {
	return &Overlay{snap: snap.ps, b: b.pb, touched: map[string]touch{}}
}

// sync decodes the batch entries appended since the last call.
func (o *Overlay) sync() error {
	if o.err != nil {
		return o.err
	}
	if o.b.Empty() {
		return nil
	}
	r := o.b.Reader()
	if o.consumed >= len(r) {
		return nil
	}
	total := len(r)
	r = r[o.consumed:]
	for {
		kind, ukey, _, ok, err := r.Next()
		if err != nil {
			o.err = fmt.Errorf("storage: overlay: %w", err)
			return o.err
		}
		if !ok {
			break
		}
		var del bool
		switch kind {
		case pebble.InternalKeyKindSet, pebble.InternalKeyKindSetWithDelete:
		case pebble.InternalKeyKindDelete, pebble.InternalKeyKindSingleDelete, pebble.InternalKeyKindDeleteSized:
			del = true
		case pebble.InternalKeyKindLogData:
			continue
		default:
			o.err = fmt.Errorf("storage: overlay: unsupported batch entry kind %v", kind)
			return o.err
		}
		t, seen := o.touched[string(ukey)]
		if !seen {
			t.first = o.n
		}
		t.deleted = del
		o.touched[string(ukey)] = t
		o.n++
	}
	o.consumed = total
	return nil
}

// get reads key: the batch's version when the batch wrote it, else the
// snapshot's.
func (o *Overlay) get(key []byte) ([]byte, io.Closer, error) {
	if err := o.sync(); err != nil {
		return nil, nil, err
	}
	if t, ok := o.touched[string(key)]; ok {
		if t.deleted {
			return nil, nil, pebble.ErrNotFound
		}
		// The batch's newest entry for key is a set, so the indexed
		// batch answers from itself.
		return o.b.Get(key)
	}
	return o.snap.Get(key)
}

// newIter returns an iterator over the merged view. Like Pebble's batch
// iterators, it sees the batch as it was when the iterator was created.
func (o *Overlay) newIter(opts *pebble.IterOptions) (Iterator, error) {
	if err := o.sync(); err != nil {
		return nil, err
	}
	var bopts, sopts pebble.IterOptions
	if opts != nil {
		bopts, sopts = *opts, *opts
	}
	bi, err := o.b.NewBatchOnlyIter(context.Background(), &bopts)
	if err != nil {
		return nil, fmt.Errorf("storage: overlay batch iterator: %w", err)
	}
	si, err := o.snap.NewIter(&sopts)
	if err != nil {
		bi.Close()
		return nil, fmt.Errorf("storage: overlay snapshot iterator: %w", err)
	}
	return &overlayIter{o: o, bi: bi, si: si, upto: o.n}, nil
}

// overlayIter merges a batch-only iterator with a snapshot iterator whose
// keys written by the batch (before the iterator was created) are hidden.
// The two children never hold the same key.
type overlayIter struct {
	o      *Overlay
	bi, si *pebble.Iterator
	upto   uint32 // batch entries visible to this iterator
	bv, sv bool   // children positioned on an entry
	cur    *pebble.Iterator
	rev    bool
}

// hidden reports whether the snapshot's entry for k is shadowed.
func (it *overlayIter) hidden(k []byte) bool {
	t, ok := it.o.touched[string(k)]
	return ok && t.first < it.upto
}

func (it *overlayIter) skipForward() {
	for it.sv && it.hidden(it.si.Key()) {
		it.sv = it.si.Next()
	}
}

func (it *overlayIter) skipBackward() {
	for it.sv && it.hidden(it.si.Key()) {
		it.sv = it.si.Prev()
	}
}

// pick makes the child holding the next entry in the current direction
// current.
func (it *overlayIter) pick() bool {
	switch {
	case !it.bv && !it.sv:
		it.cur = nil
	case !it.sv:
		it.cur = it.bi
	case !it.bv:
		it.cur = it.si
	default:
		c := bytes.Compare(it.bi.Key(), it.si.Key())
		if (c < 0) != it.rev {
			it.cur = it.bi
		} else {
			it.cur = it.si
		}
	}
	return it.cur != nil
}

// First positions the iterator on the first entry.
func (it *overlayIter) First() bool {
	it.rev = false
	it.bv, it.sv = it.bi.First(), it.si.First()
	it.skipForward()
	return it.pick()
}

// Last positions the iterator on the last entry.
func (it *overlayIter) Last() bool {
	it.rev = true
	it.bv, it.sv = it.bi.Last(), it.si.Last()
	it.skipBackward()
	return it.pick()
}

// SeekGE positions the iterator on the first entry >= key.
func (it *overlayIter) SeekGE(key []byte) bool {
	it.rev = false
	it.bv, it.sv = it.bi.SeekGE(key), it.si.SeekGE(key)
	it.skipForward()
	return it.pick()
}

// SeekLT positions the iterator on the last entry < key.
func (it *overlayIter) SeekLT(key []byte) bool {
	it.rev = true
	it.bv, it.sv = it.bi.SeekLT(key), it.si.SeekLT(key)
	it.skipBackward()
	return it.pick()
}

// Next moves to the next entry.
func (it *overlayIter) Next() bool {
	if it.cur == nil {
		return false
	}
	if it.rev {
		// The entry after k is the first one >= k+0x00.
		return it.SeekGE(append(bytes.Clone(it.cur.Key()), 0))
	}
	if it.cur == it.bi {
		it.bv = it.bi.Next()
	} else {
		it.sv = it.si.Next()
		it.skipForward()
	}
	return it.pick()
}

// Prev moves to the previous entry.
func (it *overlayIter) Prev() bool {
	if it.cur == nil {
		return false
	}
	if !it.rev {
		return it.SeekLT(bytes.Clone(it.cur.Key()))
	}
	if it.cur == it.bi {
		it.bv = it.bi.Prev()
	} else {
		it.sv = it.si.Prev()
		it.skipBackward()
	}
	return it.pick()
}

// SetBounds replaces both children's bounds and unpositions the iterator.
func (it *overlayIter) SetBounds(lower, upper []byte) {
	it.bi.SetBounds(lower, upper)
	it.si.SetBounds(lower, upper)
	it.bv, it.sv, it.cur = false, false, nil
}

// Valid reports whether the iterator is positioned on an entry.
func (it *overlayIter) Valid() bool { return it.cur != nil }

// Key returns the current key.
func (it *overlayIter) Key() []byte { return it.cur.Key() }

// Value returns the current value.
func (it *overlayIter) Value() []byte { return it.cur.Value() }

// ValueAndErr returns the current value.
func (it *overlayIter) ValueAndErr() ([]byte, error) { return it.cur.ValueAndErr() }

// Error returns an error either child met.
func (it *overlayIter) Error() error {
	return errors.Join(it.bi.Error(), it.si.Error())
}

// Close releases both children.
func (it *overlayIter) Close() error {
	it.cur = nil
	return errors.Join(it.bi.Close(), it.si.Close())
}
