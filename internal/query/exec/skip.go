package exec

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// Skip is SKIP: it drops the first n results.
type Skip struct {
	base
	n, skipped int64
}

// NewSkip returns a SKIP of n over child.
func NewSkip(child Stage, n int64, timing bool) *Skip {
	s := &Skip{n: n}
	s.children = []Stage{child}
	s.timing = timing
	return s
}

// Name implements Stage.
func (s *Skip) Name() string { return "SKIP" }

// Work implements Stage.
func (s *Skip) Work() (State, *Member, error) {
	start := s.now()
	st, m, err := s.children[0].Work()
	if st == Advanced && s.skipped < s.n {
		s.skipped++
		st, m = NeedTime, nil
	}
	s.record(st, start)
	return st, m, err
}

// Close implements Stage.
func (s *Skip) Close() { s.closeChildren() }

func (s *Skip) explain(b *bsoncore.DocumentBuilder, _ bool) {
	b.AppendInt64("skipAmount", s.n)
}
