package exec

import (
	"bytes"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/storage"
)

// NewDistinctScan returns DISTINCT_SCAN: a forward IXSCAN over ix within
// bounds that, after each key it returns, seeks past every key sharing its
// first field+1 fields, so it reads one key per distinct value of field
// (the planner makes sure the fields before it are single points). A null
// value is not skipped: null keys also stand for missing fields, so each
// is returned for the caller to look at its document.
func NewDistinctScan(r storage.Reader, ix *plan.Index, bounds []plan.FieldBounds, field int, timing bool) *IxScan {
	s := NewIxScan(r, ix, bounds, 1, false, timing)
	s.name = plan.StageDistinctScan
	s.distinctFields = field + 1
	return s
}

// noteDistinct records where the scan resumes after returning ks: the end
// of the keys that start with ks's first distinctFields fields.
func (s *IxScan) noteDistinct(ks []byte) error {
	vals, rest, err := keystring.DecodePrefix(ks, s.dirs[:s.distinctFields], nil)
	if err != nil {
		return fmt.Errorf("distinct scan of index %s: %w", s.ix.Name, err)
	}
	if vals[s.distinctFields-1].Type == bsoncore.TypeNull {
		return nil
	}
	s.resume = keystring.PrefixEnd(ks[:len(ks)-len(rest)])
	return nil
}

// skipAhead reopens the current range at s.resume, or moves on to the next
// range when s.resume is past its end.
func (s *IxScan) skipAhead() error {
	to := s.resume
	s.resume = nil
	if s.cur == nil {
		return nil
	}
	s.cur.Close()
	s.cur = nil
	if to == nil || (s.curEnd != nil && bytes.Compare(to, s.curEnd) >= 0) {
		return nil
	}
	cur, err := openIndexCursor(s.r, s.ix, to, s.curEnd, false)
	if err != nil {
		return fmt.Errorf("distinct scan of index %s: %w", s.ix.Name, err)
	}
	s.cur = cur
	s.seeks++
	return nil
}

// explainDistinct adds DISTINCT_SCAN's fields after the index description:
// direction and indexBounds, and keysExamined with execution stats.
func (s *IxScan) explainDistinct(b *bsoncore.DocumentBuilder, execStats bool) {
	b.AppendString("direction", "forward")
	b.AppendDocument("indexBounds", plan.BoundsDoc(s.bounds, 1))
	if execStats {
		b.AppendInt64("keysExamined", s.keysExamined)
	}
}
