package exec

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/storage"
)

// CollScan is COLLSCAN: every record of a record source (a collection's
// record store, or the oplog's entries) in record order (insertion
// order), forward or backward, filtered.
type CollScan struct {
	base
	r         storage.Reader
	src       storage.RecordSource
	dir       int
	filter    *query.Filter
	filterDoc bsoncore.Document
	cur       storage.RecordIterator
	// rc is cur when it is a collection's record cursor: Next is called
	// on it directly, without the interface's dispatch per record.
	rc   *storage.RecordCursor
	slab slab
	m    Member
	done bool

	// A clustered collection's scan bounded on its cluster key
	// (clustered.go): explain's CLUSTERED_IXSCAN with minRecord and
	// maxRecord. Nil: unbounded (COLLSCAN).
	clusterBounds []plan.FieldBounds
	// clusterRange is, instead, a find's min/max on the clustered index.
	clusterRange *plan.KeyRange

	docsExamined int64
}

// NewCollScan returns a COLLSCAN of collection collID's records; filter
// may be nil.
func NewCollScan(r storage.Reader, collID uint64, dir int, filter *query.Filter, filterDoc bsoncore.Document, timing bool) *CollScan {
	return NewSourceScan(r, storage.CollectionRecords(collID), dir, filter, filterDoc, timing)
}

// NewSourceScan returns a COLLSCAN of the records of src; filter may be
// nil.
func NewSourceScan(r storage.Reader, src storage.RecordSource, dir int, filter *query.Filter, filterDoc bsoncore.Document, timing bool) *CollScan {
	s := &CollScan{r: r, src: src, dir: dir, filter: filter, filterDoc: filterDoc}
	s.timing = timing
	return s
}

// Name implements Stage.
func (s *CollScan) Name() string {
	if s.clusterBounds != nil || s.clusterRange != nil {
		return "CLUSTERED_IXSCAN"
	}
	return "COLLSCAN"
}

// Work implements Stage.
func (s *CollScan) Work() (State, *Member, error) {
	start := s.now()
	st, m, err := s.work()
	s.record(st, start)
	return st, m, err
}

func (s *CollScan) work() (State, *Member, error) {
	if s.done {
		return EOF, nil, nil
	}
	if s.cur == nil {
		cur, err := s.src.OpenRecords(s.r, s.dir < 0)
		if err != nil {
			return EOF, nil, err
		}
		s.cur = cur
		s.rc, _ = cur.(*storage.RecordCursor)
	}
	var rid storage.RecordID
	var doc []byte
	var ok bool
	if s.rc != nil {
		rid, doc, ok = s.rc.Next()
	} else {
		rid, doc, ok = s.cur.Next()
	}
	if !ok {
		s.done = true
		err := s.cur.Err()
		s.Close()
		return EOF, nil, err
	}
	s.docsExamined++
	pos := -1
	if s.filter != nil {
		var matched bool
		var err error
		if matched, pos, err = s.filter.MatchChecked(doc); err != nil {
			return EOF, nil, err
		}
		if !matched {
			return NeedTime, nil, nil
		}
	}
	s.m = Member{RID: uint64(rid), Doc: s.slab.copy(doc), Pos: pos}
	return Advanced, &s.m, nil
}

// Close implements Stage.
func (s *CollScan) Close() {
	if s.cur != nil {
		s.cur.Close()
		s.cur, s.rc = nil, nil
	}
}

func (s *CollScan) explain(b *bsoncore.DocumentBuilder, execStats bool) {
	if s.dir < 0 {
		b.AppendString("direction", "backward")
	} else {
		b.AppendString("direction", "forward")
	}
	if s.clusterBounds != nil {
		appendClusterRecords(b, s.clusterBounds)
	}
	if s.clusterRange != nil {
		appendRangeRecords(b, s.clusterRange)
	}
	if execStats {
		b.AppendInt64("docsExamined", s.docsExamined)
	}
}
