package exec

import (
	"bytes"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/query/plan"
)

// SortMerge is SORT_MERGE: it merges index scans that each return keys in
// sort order (one scan per combination of $in points ahead of the sort
// fields) into one stream in sort order, without buffering. Keys compare
// by their bytes after each scan's fixed point prefix, which orders them by
// the sort fields in index order.
type SortMerge struct {
	base
	pattern bsoncore.Document
	reverse bool
	skip    []int // per child: bytes of the point prefix
	heads   []*Member
	eof     []bool
	dedup   bool
	seen    map[uint64]struct{}
	m       Member

	dupsTested  int64
	dupsDropped int64
}

// NewSortMerge returns a SORT_MERGE over index scans. prefixFields is the
// number of leading point fields of each child's bounds; reverse is set
// when the scans run backward.
func NewSortMerge(children []*IxScan, bounds [][]plan.FieldBounds, prefixFields int, pattern bsoncore.Document, reverse, dedup, timing bool) *SortMerge {
	s := &SortMerge{pattern: pattern, reverse: reverse, dedup: dedup}
	s.timing = timing
	for i, c := range children {
		s.children = append(s.children, c)
		var p []byte
		for f := 0; f < prefixFields; f++ {
			fb := bounds[i][f]
			p = keystring.AppendValue(p, fb.OIL[0].Lo, fb.Desc)
		}
		s.skip = append(s.skip, len(p))
	}
	s.heads = make([]*Member, len(children))
	s.eof = make([]bool, len(children))
	if dedup {
		s.seen = make(map[uint64]struct{})
	}
	return s
}

// Name implements Stage.
func (s *SortMerge) Name() string { return plan.StageSortMerge }

// Work implements Stage.
func (s *SortMerge) Work() (State, *Member, error) {
	start := s.now()
	st, m, err := s.work()
	s.record(st, start)
	return st, m, err
}

func (s *SortMerge) work() (State, *Member, error) {
	// Fill one missing head per call.
	for i, c := range s.children {
		if s.heads[i] != nil || s.eof[i] {
			continue
		}
		st, m, err := c.Work()
		if err != nil {
			return EOF, nil, err
		}
		switch st {
		case Advanced:
			s.heads[i] = m
		case EOF:
			s.eof[i] = true
		}
		return NeedTime, nil, nil
	}
	best := -1
	for i, h := range s.heads {
		if h == nil {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		c := bytes.Compare(h.Key[s.skip[i]:], s.heads[best].Key[s.skip[best]:])
		if (c < 0 && !s.reverse) || (c > 0 && s.reverse) {
			best = i
		}
	}
	if best < 0 {
		return EOF, nil, nil
	}
	h := s.heads[best]
	s.heads[best] = nil
	if s.dedup {
		s.dupsTested++
		if _, dup := s.seen[h.RID]; dup {
			s.dupsDropped++
			return NeedTime, nil, nil
		}
		s.seen[h.RID] = struct{}{}
	}
	s.m = *h
	return Advanced, &s.m, nil
}

// Close implements Stage.
func (s *SortMerge) Close() { s.closeChildren() }

func (s *SortMerge) explain(b *bsoncore.DocumentBuilder, execStats bool) {
	b.AppendDocument("sortPattern", s.pattern)
	if execStats {
		b.AppendInt64("dupsTested", s.dupsTested)
		b.AppendInt64("dupsDropped", s.dupsDropped)
	}
}
