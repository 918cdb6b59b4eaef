package exec

import (
	"bytes"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/query"
	"github.com/lodedb/lode/storage"
)

// Fetch is FETCH: it reads the document of each record its input returns
// and applies the filter.
type Fetch struct {
	base
	r         storage.Reader
	collID    uint64
	filter    *query.Filter
	filterDoc bsoncore.Document
	slab      slab
	m         Member
	it        storage.Iterator
	key       []byte

	docsExamined int64
}

// NewFetch returns a FETCH over child; filter may be nil.
func NewFetch(child Stage, r storage.Reader, collID uint64, filter *query.Filter, filterDoc bsoncore.Document, timing bool) *Fetch {
	f := &Fetch{r: r, collID: collID, filter: filter, filterDoc: filterDoc}
	f.children = []Stage{child}
	f.timing = timing
	return f
}

// Name implements Stage.
func (f *Fetch) Name() string { return "FETCH" }

// Work implements Stage.
func (f *Fetch) Work() (State, *Member, error) {
	start := f.now()
	st, m, err := f.work()
	f.record(st, start)
	return st, m, err
}

func (f *Fetch) work() (State, *Member, error) {
	st, in, err := f.children[0].Work()
	if err != nil || st != Advanced {
		return st, nil, err
	}
	if in.Doc != nil {
		f.m = *in
	} else {
		doc, found, err := f.get(in.RID)
		if err != nil {
			return EOF, nil, err
		}
		f.docsExamined++
		if !found {
			return NeedTime, nil, nil
		}
		f.m = Member{RID: in.RID, Doc: f.slab.claim(doc), Pos: -1}
	}
	if f.filter != nil {
		ok, pos := f.filter.MatchPositional(f.m.Doc)
		if !ok {
			return NeedTime, nil, nil
		}
		f.m.Pos = pos
	}
	return Advanced, &f.m, nil
}

// get reads record rid with a reused iterator: a seek on an open
// iterator costs much less than a point Get, which opens one per call.
func (f *Fetch) get(rid uint64) ([]byte, bool, error) {
	if f.it == nil {
		lo, hi := storage.RecordRange(f.collID)
		it, err := f.r.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
		if err != nil {
			return nil, false, fmt.Errorf("fetch: record iterator: %w", err)
		}
		f.it = it
	}
	f.key = storage.AppendRecordKey(f.key[:0], f.collID, rid)
	if !f.it.SeekGE(f.key) || !bytes.Equal(f.it.Key(), f.key) {
		return nil, false, f.it.Error()
	}
	v, err := f.it.ValueAndErr()
	if err != nil {
		return nil, false, fmt.Errorf("fetch: record value: %w", err)
	}
	return append(f.slab.tail(), v...), true, nil
}

// Close implements Stage.
func (f *Fetch) Close() {
	if f.it != nil {
		f.it.Close()
		f.it = nil
	}
	f.closeChildren()
}

func (f *Fetch) explain(b *bsoncore.DocumentBuilder, execStats bool) {
	if execStats {
		b.AppendInt64("docsExamined", f.docsExamined)
		b.AppendInt64("alreadyHasObj", 0)
	}
}

// filterFor returns the filter to show in explain, nil for none.
func (f *Fetch) filterShown() bsoncore.Document {
	if f.filter == nil {
		return nil
	}
	return f.filterDoc
}
