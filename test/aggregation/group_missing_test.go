package aggregation_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// TestGroupIDMissingField checks through the Go driver what mongod's
// $group does with a missing field in an _id document, as MongoDB's own
// groupMissing test records it: an _id of one field takes a missing value
// as null ({a: null} and {} share the group {a: null}), while with more
// fields the missing one is left out ({b: 1} is a group of its own).
func TestGroupIDMissingField(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	c := d.Collection("c")
	if _, err := c.InsertMany(ctx, []any{bson.D{{Key: "a", Value: nil}, {Key: "b", Value: 1}}, bson.D{{Key: "b", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	groups := func(id bson.D) []string {
		cur, err := c.Aggregate(ctx, bson.A{bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: id}}}}, bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}})
		if err != nil {
			t.Fatal(err)
		}
		var out []bson.Raw
		if err := cur.All(ctx, &out); err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, r := range out {
			s = append(s, r.Lookup("_id").String())
		}
		return s
	}
	if got := groups(bson.D{{Key: "a", Value: "$a"}}); len(got) != 1 || got[0] != `{"a": null}` {
		t.Errorf("_id {a: $a}: %v, want one group {a: null}", got)
	}
	if got := groups(bson.D{{Key: "a", Value: "$a"}, {Key: "b", Value: "$b"}}); len(got) != 2 {
		t.Errorf("_id {a: $a, b: $b}: %v, want two groups", got)
	}
}
