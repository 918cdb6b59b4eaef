package update

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/collation"
)

// collatedOp is an operator whose outcome depends on how strings compare;
// ParseCollated hands it the update's collation.
type collatedOp interface {
	collate(c *collation.Collator) error
}

func (o *compareOp) collate(c *collation.Collator) error { o.coll = c; return nil }

func (o *addToSetOp) collate(c *collation.Collator) error {
	o.coll = c
	// $each's values are deduplicated under the collation too.
	out := o.vals[:0:0]
	for _, v := range o.vals {
		dup := false
		for _, x := range out {
			if c.Compare(x, v) == 0 {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, v)
		}
	}
	o.vals = out
	return nil
}

func (o *pushOp) collate(c *collation.Collator) error {
	if o.sort != nil {
		o.sort.coll = c
	}
	return nil
}

func (o *pullOp) collate(c *collation.Collator) error {
	if o.name == "$pullAll" {
		vals := arrayValues(o.raw)
		o.match = func(e bsoncore.Value) bool {
			for _, x := range vals {
				if c.Compare(x, e) == 0 {
					return true
				}
			}
			return false
		}
		return nil
	}
	p, err := newPull(o.raw, c)
	if err != nil {
		return err
	}
	o.match = p.match
	return nil
}
