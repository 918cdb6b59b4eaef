package exec

import (
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/storage"
)

// MaxFetchBatch is the most record ids a batched FETCH reads ahead of its
// consumer.
const MaxFetchBatch = 256

// maxFetchOutcomes bounds the child outcomes one refill buffers (its
// NEED_TIMEs included), so a child that mostly skips keys cannot make a
// refill unbounded.
const maxFetchOutcomes = 4 * MaxFetchBatch

// Fetch is FETCH: it reads the document of each record its input returns
// and applies the filter (the residual filter: the predicates the index
// bounds do not already guarantee).
//
// Batched (SetBatch), it works its child ahead for a run of record ids,
// reads their documents in record-id order through one record cursor
// (storage.RecordCursor.FetchAscending: the cursor decides how to reach
// each record, stepping when it is near), then
// replays the child's outcomes one per Work in the child's order. Its own
// counters (works, needTime, docsExamined) are those of the unbatched
// stage: a document counts as examined when the replay hands it on, not
// when it was read ahead. The run starts at one record and doubles per
// refill up to MaxFetchBatch, capped by the results still wanted (limit),
// so plans that stop early read little ahead.
type Fetch struct {
	base
	r         storage.Reader
	collID    uint64
	filter    *query.Filter
	filterDoc bsoncore.Document
	slab      slab
	m         Member
	cur       storage.RecordCursor // opened by the first read

	// Batching: maxBatch > 1 turns it on. want is the number of results
	// the consumer takes at most (0: unknown); returned counts results.
	maxBatch int
	batch    int
	want     int64
	returned int64
	q        []fetchSlot
	qi       int
	order    []int
	childEOF bool

	// clustered: records are reached by the cluster key of their index
	// entries (Member.RKey), held in keys while a run is read
	// (clustered.go).
	clustered bool
	keys      []byte

	docsExamined int64
}

// fetchSlot is one buffered child outcome.
type fetchSlot struct {
	st    State // Advanced or NeedTime (err set: the child failed)
	err   error
	rid   uint64
	doc   bsoncore.Document // the child's document, or the one read; nil: not found
	pos   int
	given bool // the child supplied doc (no read, not examined here)
	score float64
	// koff, kend locate the record's cluster key in Fetch.keys (a
	// clustered collection's records are reached by it).
	koff, kend int
}

// NewFetch returns a FETCH over child; filter may be nil.
func NewFetch(child Stage, r storage.Reader, collID uint64, filter *query.Filter, filterDoc bsoncore.Document, timing bool) *Fetch {
	f := &Fetch{r: r, collID: collID, filter: filter, filterDoc: filterDoc}
	f.children = []Stage{child}
	f.timing = timing
	return f
}

// SetBatch makes f read up to max records ahead (max <= 1: one at a time),
// want being the most results its consumer takes (0: unknown).
func (f *Fetch) SetBatch(max int, want int64) {
	f.maxBatch = min(max, MaxFetchBatch)
	f.batch = 1
	f.want = want
}

// Name implements Stage.
func (f *Fetch) Name() string { return "FETCH" }

// Work implements Stage.
func (f *Fetch) Work() (State, *Member, error) {
	start := f.now()
	var st State
	var m *Member
	var err error
	if f.maxBatch > 1 {
		st, m, err = f.workBatched()
	} else {
		st, m, err = f.work()
	}
	if st == Advanced {
		f.returned++
	}
	f.record(st, start)
	return st, m, err
}

func (f *Fetch) work() (State, *Member, error) {
	st, in, err := f.children[0].Work()
	if err != nil || st != Advanced {
		return st, nil, err
	}
	if in.Doc != nil {
		f.m = Member{RID: in.RID, Doc: in.Doc, Pos: in.Pos, Score: in.Score}
	} else {
		var doc bsoncore.Document
		var found bool
		var err error
		if f.clustered {
			doc, found, err = f.getByKey(in.RKey)
		} else {
			doc, found, err = f.get(in.RID)
		}
		if err != nil {
			return EOF, nil, err
		}
		f.docsExamined++
		if !found {
			return NeedTime, nil, nil
		}
		f.m = Member{RID: in.RID, Doc: doc, Pos: -1}
	}
	return f.match()
}

// match applies the filter to f.m.
func (f *Fetch) match() (State, *Member, error) {
	if f.filter != nil {
		ok, pos, err := f.filter.MatchChecked(f.m.Doc)
		if err != nil {
			return EOF, nil, err
		}
		if !ok {
			return NeedTime, nil, nil
		}
		f.m.Pos = pos
	}
	return Advanced, &f.m, nil
}

func (f *Fetch) workBatched() (State, *Member, error) {
	if f.qi == len(f.q) {
		if f.childEOF {
			return EOF, nil, nil
		}
		f.refill()
		if len(f.q) == 0 {
			return EOF, nil, nil
		}
	}
	s := &f.q[f.qi]
	f.qi++
	switch {
	case s.err != nil:
		return EOF, nil, s.err
	case s.st != Advanced:
		return s.st, nil, nil
	}
	if !s.given {
		f.docsExamined++
		if s.doc == nil {
			return NeedTime, nil, nil
		}
	}
	f.m = Member{RID: s.rid, Doc: s.doc, Pos: s.pos, Score: s.score}
	return f.match()
}

// refill works the child for the next run of records and reads their
// documents in record-id order.
func (f *Fetch) refill() {
	n := f.batch
	if f.want > 0 {
		n = int(min(int64(n), max(f.want-f.returned, 1)))
	}
	f.batch = min(f.batch*2, f.maxBatch)
	f.q, f.qi, f.order = f.q[:0], 0, f.order[:0]
	f.keys = f.keys[:0]
	adv := 0
	for adv < n && len(f.q) < maxFetchOutcomes {
		st, in, err := f.children[0].Work()
		if err != nil {
			f.q = append(f.q, fetchSlot{err: err})
			f.childEOF = true
			break
		}
		if st == EOF {
			f.childEOF = true
			break
		}
		if st != Advanced {
			f.q = append(f.q, fetchSlot{st: st})
			continue
		}
		adv++
		s := fetchSlot{st: Advanced, rid: in.RID, pos: -1, score: in.Score}
		if in.Doc != nil {
			// Documents are stable (Member), index keys are not: keep
			// only the document.
			s.doc, s.pos, s.given = in.Doc, in.Pos, true
		} else {
			if f.clustered {
				s.koff = len(f.keys)
				f.keys = append(f.keys, in.RKey...)
				s.kend = len(f.keys)
			}
			f.order = append(f.order, len(f.q))
		}
		f.q = append(f.q, s)
	}
	f.readRun()
}

// readRun reads the documents of the buffered records that need one, in
// ascending record id order through the record cursor.
func (f *Fetch) readRun() {
	if len(f.order) == 0 {
		return
	}
	if f.clustered {
		f.readRunByKey()
		return
	}
	slices.SortFunc(f.order, func(a, b int) int {
		ra, rb := f.q[a].rid, f.q[b].rid
		switch {
		case ra < rb:
			return -1
		case ra > rb:
			return 1
		}
		return 0
	})
	n, err := 0, f.open()
	if err == nil {
		var prev *fetchSlot
		rid := func(k int) storage.RecordID { return storage.RecordID(f.q[f.order[k]].rid) }
		n, err = f.cur.FetchAscending(len(f.order), rid, func(k int, doc []byte, found bool) {
			s := &f.q[f.order[k]]
			if prev != nil && prev.rid == s.rid {
				s.doc = prev.doc
				return
			}
			if found {
				s.doc = f.slab.copy(doc)
			}
			prev = s
		})
	}
	if err != nil {
		// Hand the error on at the turn of the first record not read.
		for _, j := range f.order[n:] {
			f.q[j].err = err
		}
	}
}

// open opens the record cursor on first use.
func (f *Fetch) open() error {
	if f.cur.IsOpen() {
		return nil
	}
	if err := f.cur.Open(f.r, f.collID, false); err != nil {
		return fmt.Errorf("fetch: %w", err)
	}
	return nil
}

// get reads record rid through the record cursor.
func (f *Fetch) get(rid uint64) (bsoncore.Document, bool, error) {
	if err := f.open(); err != nil {
		return nil, false, err
	}
	doc, found, err := f.cur.SeekExact(storage.RecordID(rid))
	if err != nil || !found {
		return nil, false, err
	}
	return f.slab.copy(doc), true, nil
}

// Close implements Stage.
func (f *Fetch) Close() {
	f.cur.Close()
	f.closeChildren()
}

func (f *Fetch) explain(b *bsoncore.DocumentBuilder, execStats bool) {
	if execStats {
		b.AppendInt64("docsExamined", f.docsExamined)
		b.AppendInt64("alreadyHasObj", 0)
	}
}

// filterShown returns the filter to show in explain, nil for none.
func (f *Fetch) filterShown() bsoncore.Document {
	if f.filter == nil {
		return nil
	}
	return f.filterDoc
}
