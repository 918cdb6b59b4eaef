package exec

import (
	"bytes"
	"encoding/binary"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/storage"
)

// IxScan is IXSCAN: it walks an index within bounds and returns each
// entry's record id and key. On a multikey index it drops records already
// returned.
type IxScan struct {
	base
	r      storage.Reader
	ix     *plan.Index
	bounds []plan.FieldBounds
	dir    int
	dirs   []bool
	sp     scanPlan
	next   int // next range to open (in scan order)
	cur    *storage.IndexCursor
	dedup  bool
	seen   map[uint64]struct{}
	m      Member
	name   string

	// Known-empty ranges (see EmptyRanges); forward scans only.
	empty     EmptyRanges
	noting    bool   // the next entry read is the first of the range
	noteStart []byte // the range's start keystring
	noteEnd   []byte // the range's end keystring (nil: end of index)
	nbuf      []byte

	// DISTINCT_SCAN (distinctscan.go): skip past the keys sharing the
	// first distinctFields fields of the last key returned.
	distinctFields int
	curEnd         []byte // end of the open range
	resume         []byte // where the next Work reopens the range, or nil

	// keyRange is a find's min/max (minmax.go): one range of whole keys.
	keyRange *plan.KeyRange

	keysExamined int64
	seeks        int64
	dupsTested   int64
	dupsDropped  int64
}

// NewIxScan returns an IXSCAN over ix within bounds in direction dir.
func NewIxScan(r storage.Reader, ix *plan.Index, bounds []plan.FieldBounds, dir int, dedup, timing bool) *IxScan {
	s := &IxScan{r: r, ix: ix, bounds: bounds, dir: dir, dirs: ix.Directions(), dedup: dedup, name: plan.StageIxScan}
	s.timing = timing
	s.sp = buildScanPlan(bounds)
	if dedup {
		s.seen = make(map[uint64]struct{})
	}
	return s
}

// EmptyRanges lets a forward IXSCAN skip the head of a range that is
// known to hold no index entries (a queue's claimed jobs leave tombstones
// there). Keys are in the index's key space without the index prefix:
// keystring followed by the big-endian record id. Only scans run under the
// collection's writer lock may use one; see engine/scanhints.go.
type EmptyRanges interface {
	// Skip returns the key a scan of index id whose range starts at start
	// may begin at instead, or nil.
	Skip(id uint64, start []byte) []byte
	// Note records that index id holds no entries in [start, first).
	Note(id uint64, start, first []byte)
}

// SetEmptyRanges makes a forward scan use and maintain er (nil: none).
func (s *IxScan) SetEmptyRanges(er EmptyRanges) {
	if s.dir > 0 {
		s.empty = er
	}
}

// Name implements Stage.
func (s *IxScan) Name() string { return s.name }

// KeysExamined returns the number of index keys read.
func (s *IxScan) KeysExamined() int64 { return s.keysExamined }

// Work implements Stage.
func (s *IxScan) Work() (State, *Member, error) {
	start := s.now()
	st, m, err := s.work()
	s.record(st, start)
	return st, m, err
}

func (s *IxScan) work() (State, *Member, error) {
	if s.resume != nil {
		if err := s.skipAhead(); err != nil {
			return EOF, nil, err
		}
	}
	if s.cur == nil {
		if s.next >= len(s.sp.ranges) {
			return EOF, nil, nil
		}
		i := s.next
		if s.dir < 0 {
			i = len(s.sp.ranges) - 1 - s.next
		}
		s.next++
		kr := s.sp.ranges[i]
		lo, skipped := kr.start, false
		if s.empty != nil {
			s.noting, s.noteStart, s.noteEnd = true, kr.start, kr.end
			if to := s.empty.Skip(s.ix.ID, kr.start); to != nil {
				if kr.end != nil && bytes.Compare(to, kr.end) >= 0 {
					// The whole range is known to be empty.
					s.noting = false
					if s.next >= len(s.sp.ranges) {
						return EOF, nil, nil
					}
					return NeedTime, nil, nil
				}
				lo, skipped = to, true
			}
		}
		cur, err := openIndexCursor(s.r, s.ix, lo, kr.end, s.dir < 0)
		if err != nil {
			return EOF, nil, err
		}
		if skipped && !bytes.Equal(s.empty.Skip(s.ix.ID, kr.start), lo) {
			// The hint went stale before the iterator was opened (a
			// transaction committed): scan the whole range.
			cur.Close()
			if cur, err = openIndexCursor(s.r, s.ix, kr.start, kr.end, s.dir < 0); err != nil {
				return EOF, nil, err
			}
		}
		s.cur = cur
		s.curEnd = kr.end
		s.seeks++
	}
	ks, rid, tb, ok := s.cur.Next()
	if s.noting {
		s.noting = false
		switch {
		case ok:
			s.nbuf = binary.BigEndian.AppendUint64(append(s.nbuf[:0], ks...), rid)
			s.empty.Note(s.ix.ID, s.noteStart, s.nbuf)
		case s.cur.Err() == nil && s.noteEnd != nil:
			s.empty.Note(s.ix.ID, s.noteStart, s.noteEnd)
		}
	}
	if !ok {
		err := s.cur.Err()
		s.cur.Close()
		s.cur = nil
		if err != nil {
			return EOF, nil, err
		}
		if s.next >= len(s.sp.ranges) {
			return EOF, nil, nil
		}
		return NeedTime, nil, nil
	}
	s.keysExamined++
	if !s.sp.passes(ks, s.dirs) {
		return NeedTime, nil, nil
	}
	if s.dedup {
		s.dupsTested++
		if _, dup := s.seen[rid]; dup {
			s.dupsDropped++
			return NeedTime, nil, nil
		}
		s.seen[rid] = struct{}{}
	}
	if s.distinctFields > 0 {
		if err := s.noteDistinct(ks); err != nil {
			return EOF, nil, err
		}
	}
	s.m = Member{RID: rid, Key: ks, TypeBits: tb, RKey: s.cur.RecordKey(), Pos: -1}
	return Advanced, &s.m, nil
}

// Close implements Stage.
func (s *IxScan) Close() {
	if s.cur != nil {
		s.cur.Close()
		s.cur = nil
	}
}

func (s *IxScan) explain(b *bsoncore.DocumentBuilder, execStats bool) {
	appendIndexInfo(b, s.ix)
	if s.name == plan.StageDistinctScan {
		s.explainDistinct(b, execStats)
		return
	}
	if s.name == plan.StageIxScan {
		if s.dir < 0 {
			b.AppendString("direction", "backward")
		} else {
			b.AppendString("direction", "forward")
		}
		if s.keyRange != nil {
			b.AppendDocument("indexBounds", keyRangeBounds(s.ix, s.keyRange))
		} else {
			b.AppendDocument("indexBounds", plan.BoundsDoc(s.bounds, s.dir))
		}
	}
	if execStats {
		b.AppendInt64("keysExamined", s.keysExamined)
		b.AppendInt64("seeks", s.seeks)
		b.AppendInt64("dupsTested", s.dupsTested)
		b.AppendInt64("dupsDropped", s.dupsDropped)
	}
}

// appendIndexInfo adds the index description fields of IXSCAN and
// COUNT_SCAN.
func appendIndexInfo(b *bsoncore.DocumentBuilder, ix *plan.Index) {
	b.AppendDocument("keyPattern", ix.KeyPattern).
		AppendString("indexName", ix.Name)
	if ix.Collation != nil {
		b.AppendDocument("collation", ix.Collation)
	}
	b.AppendBoolean("isMultiKey", ix.Multikey)
	if ix.Text == nil {
		// Text indexes track no path-level multikeyness (mongod prints none).
		b.AppendDocument("multiKeyPaths", ix.MultikeyPathsDoc())
	}
	b.AppendBoolean("isUnique", ix.Unique).
		AppendBoolean("isSparse", ix.Sparse).
		AppendBoolean("isPartial", ix.Partial != nil).
		AppendInt32("indexVersion", 2)
}
