package exec

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// Count is COUNT: it counts its input's results after skip, up to limit
// (0 = none), and returns no results itself.
type Count struct {
	base
	skip, limit int64
	n, skipped  int64
}

// NewCount returns a COUNT over child.
func NewCount(child Stage, skip, limit int64, timing bool) *Count {
	c := &Count{skip: skip, limit: limit}
	c.children = []Stage{child}
	c.timing = timing
	return c
}

// Name implements Stage.
func (c *Count) Name() string { return "COUNT" }

// N returns the count so far.
func (c *Count) N() int64 { return c.n }

// Work implements Stage.
func (c *Count) Work() (State, *Member, error) {
	start := c.now()
	st := NeedTime
	var err error
	if c.limit > 0 && c.n >= c.limit {
		st = EOF
	} else {
		var in State
		in, _, err = c.children[0].Work()
		switch {
		case err != nil || in == EOF:
			st = EOF
		case in == Advanced:
			if c.skipped < c.skip {
				c.skipped++
			} else {
				c.n++
			}
		}
	}
	c.record(st, start)
	return st, nil, err
}

// Close implements Stage.
func (c *Count) Close() { c.closeChildren() }

func (c *Count) explain(b *bsoncore.DocumentBuilder, execStats bool) {
	if execStats {
		b.AppendInt64("nCounted", c.n)
		b.AppendInt64("nSkipped", c.skipped)
	}
}
