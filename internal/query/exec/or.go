package exec

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query"
)

// Or is OR: it returns the results of each input in turn, dropping records
// already returned.
type Or struct {
	base
	cur         int
	seen        map[uint64]struct{}
	dupsTested  int64
	dupsDropped int64
	// scored, when set, marks the children that give a text score; the
	// others' members get NoScore.
	scored []bool
}

// NewOr returns an OR over children.
func NewOr(children []Stage, timing bool) *Or {
	o := &Or{seen: make(map[uint64]struct{})}
	o.children = children
	o.timing = timing
	return o
}

// Name implements Stage.
func (o *Or) Name() string { return "OR" }

// Work implements Stage.
func (o *Or) Work() (State, *Member, error) {
	start := o.now()
	st, m, err := o.work()
	o.record(st, start)
	return st, m, err
}

func (o *Or) work() (State, *Member, error) {
	if o.cur >= len(o.children) {
		return EOF, nil, nil
	}
	st, m, err := o.children[o.cur].Work()
	if err != nil {
		return EOF, nil, err
	}
	switch st {
	case EOF:
		o.cur++
		if o.cur >= len(o.children) {
			return EOF, nil, nil
		}
		return NeedTime, nil, nil
	case NeedTime:
		return NeedTime, nil, nil
	}
	o.dupsTested++
	if _, dup := o.seen[m.RID]; dup {
		o.dupsDropped++
		return NeedTime, nil, nil
	}
	o.seen[m.RID] = struct{}{}
	if o.scored != nil && !o.scored[o.cur] {
		m.Score = query.NoScore
	}
	return Advanced, m, nil
}

// Close implements Stage.
func (o *Or) Close() { o.closeChildren() }

func (o *Or) explain(b *bsoncore.DocumentBuilder, execStats bool) {
	if execStats {
		b.AppendInt64("dupsTested", o.dupsTested)
		b.AppendInt64("dupsDropped", o.dupsDropped)
	}
}
