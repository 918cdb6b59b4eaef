package exec

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// Limit is LIMIT: it returns at most n results.
type Limit struct {
	base
	n, returned int64
}

// NewLimit returns a LIMIT of n over child.
func NewLimit(child Stage, n int64, timing bool) *Limit {
	l := &Limit{n: n}
	l.children = []Stage{child}
	l.timing = timing
	return l
}

// Name implements Stage.
func (l *Limit) Name() string { return "LIMIT" }

// Work implements Stage.
func (l *Limit) Work() (State, *Member, error) {
	start := l.now()
	var st State
	var m *Member
	var err error
	if l.returned >= l.n {
		st = EOF
	} else if st, m, err = l.children[0].Work(); st == Advanced {
		l.returned++
	}
	l.record(st, start)
	return st, m, err
}

// Close implements Stage.
func (l *Limit) Close() { l.closeChildren() }

func (l *Limit) explain(b *bsoncore.DocumentBuilder, _ bool) {
	b.AppendInt64("limitAmount", l.n)
}
