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
	queue   []int // the children with a head, a binary heap by head (less)
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
			s.push(i)
		case EOF:
			s.eof[i] = true
		}
		return NeedTime, nil, nil
	}
	if len(s.queue) == 0 {
		return EOF, nil, nil
	}
	best := s.pop()
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

// less orders children by their heads' keys in the merge's direction,
// the lower index first among equal keys.
func (s *SortMerge) less(a, b int) bool {
	c := bytes.Compare(s.heads[a].Key[s.skip[a]:], s.heads[b].Key[s.skip[b]:])
	if s.reverse {
		c = -c
	}
	if c != 0 {
		return c < 0
	}
	return a < b
}

// push adds child i, whose head is set, to the queue.
func (s *SortMerge) push(i int) {
	q := append(s.queue, i)
	for j := len(q) - 1; j > 0; {
		p := (j - 1) / 2
		if !s.less(q[j], q[p]) {
			break
		}
		q[j], q[p] = q[p], q[j]
		j = p
	}
	s.queue = q
}

// pop removes and returns the child with the least head.
func (s *SortMerge) pop() int {
	q := s.queue
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q = q[:n]
	for j := 0; ; {
		l, m := 2*j+1, j
		if l < n && s.less(q[l], q[m]) {
			m = l
		}
		if r := l + 1; r < n && s.less(q[r], q[m]) {
			m = r
		}
		if m == j {
			break
		}
		q[j], q[m] = q[m], q[j]
		j = m
	}
	s.queue = q
	return top
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
