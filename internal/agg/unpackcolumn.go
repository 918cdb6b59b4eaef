package agg

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsoncolumn"
)

// Version-2 buckets' columns are read with internal/bsoncolumn's
// iterator.
func init() {
	SetColumnDecoder(func(bin []byte) (ColumnIter, error) {
		c := &bsonColumnIter{}
		c.it.Reset(bin)
		return c, nil
	})
}

// bsonColumnIter adapts bsoncolumn.Iterator to ColumnIter.
type bsonColumnIter struct{ it bsoncolumn.Iterator }

func (c *bsonColumnIter) Reset(bin []byte) error {
	c.it.Reset(bin)
	return nil
}

func (c *bsonColumnIter) Next() (bsoncore.Value, bool, error) {
	v, ok := c.it.Next()
	if !ok {
		return v, false, c.it.Err()
	}
	return v, true, nil
}
