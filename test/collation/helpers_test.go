// Package collation_test checks collations end to end through the Go
// driver: the examples of MongoDB's collation reference pages with their
// documented results, collated indexes, collection default collations and
// the errors of invalid collation documents.
package collation_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// coll builds a collation option from a document.
func coll(d bson.D) *options.Collation {
	c := &options.Collation{}
	for _, e := range d {
		switch e.Key {
		case "locale":
			c.Locale = e.Value.(string)
		case "strength":
			c.Strength = e.Value.(int)
		case "caseLevel":
			c.CaseLevel = e.Value.(bool)
		case "caseFirst":
			c.CaseFirst = e.Value.(string)
		case "numericOrdering":
			c.NumericOrdering = e.Value.(bool)
		case "alternate":
			c.Alternate = e.Value.(string)
		case "maxVariable":
			c.MaxVariable = e.Value.(string)
		case "backwards":
			c.Backwards = e.Value.(bool)
		}
	}
	return c
}

// insert inserts docs into a fresh collection name of d.
func insert(t *testing.T, c *mongo.Collection, docs ...bson.D) {
	t.Helper()
	var in []any
	for _, d := range docs {
		in = append(in, d)
	}
	if _, err := c.InsertMany(testenv.Ctx(t), in); err != nil {
		t.Fatal(err)
	}
}

// ids runs a find and returns the _id values in result order.
func ids(t *testing.T, c *mongo.Collection, filter bson.D, opts *options.FindOptionsBuilder) []int32 {
	t.Helper()
	ctx := testenv.Ctx(t)
	cur, err := c.Find(ctx, filter, opts)
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	out := []int32{}
	for _, d := range docs {
		out = append(out, d.Lookup("_id").Int32())
	}
	return out
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
