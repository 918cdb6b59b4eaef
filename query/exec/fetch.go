package exec

import (
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
		doc, found, err := storage.GetRecord(f.r, f.collID, in.RID, f.slab.tail())
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

// Close implements Stage.
func (f *Fetch) Close() { f.closeChildren() }

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
