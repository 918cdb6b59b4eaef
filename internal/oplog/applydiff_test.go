package oplog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// TestApplyDiffRoundTrip: applying UpdateO's diff to the pre-image gives
// the post-image, for the changes operator updates make (fields set in
// place, removed, appended; nested documents and arrays changed, grown
// and shrunk).
func TestApplyDiffRoundTrip(t *testing.T) {
	cases := []struct{ pre, post bson.D }{
		{bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}}, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 2}}},
		{bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}, {Key: "b", Value: "x"}}, bson.D{{Key: "_id", Value: 1}, {Key: "b", Value: "x"}, {Key: "c", Value: true}}},
		{bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: bson.D{{Key: "x", Value: 1}, {Key: "y", Value: 2}}}},
			bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: bson.D{{Key: "x", Value: 5}, {Key: "z", Value: bson.A{1}}}}}},
		{bson.D{{Key: "_id", Value: 1}, {Key: "arr", Value: bson.A{1, 2, 3}}}, bson.D{{Key: "_id", Value: 1}, {Key: "arr", Value: bson.A{1, 9}}}},
		{bson.D{{Key: "_id", Value: 1}, {Key: "arr", Value: bson.A{1}}}, bson.D{{Key: "_id", Value: 1}, {Key: "arr", Value: bson.A{1, 2, bson.D{{Key: "k", Value: 1}}}}}},
		{bson.D{{Key: "_id", Value: 1}, {Key: "arr", Value: bson.A{bson.D{{Key: "k", Value: 1}}, bson.A{1, 2}}}},
			bson.D{{Key: "_id", Value: 1}, {Key: "arr", Value: bson.A{bson.D{{Key: "k", Value: 2}, {Key: "j", Value: 0}}, bson.A{2}}}}},
		{bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: bson.D{{Key: "a", Value: 1}}}}, bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: "scalar"}}},
		{bson.D{{Key: "_id", Value: 1}, {Key: "i", Value: int32(1)}}, bson.D{{Key: "_id", Value: 1}, {Key: "i", Value: 1.0}}},
	}
	for _, c := range cases {
		pre, post := doc(t, c.pre), doc(t, c.post)
		o := UpdateO(pre, post)
		diff, ok := o.Lookup("diff").DocumentOK()
		if !ok {
			t.Fatalf("UpdateO = %v", o)
		}
		got, err := ApplyDiff(pre, diff)
		if err != nil {
			t.Fatalf("ApplyDiff(%v, %v): %v", pre, diff, err)
		}
		if !bsonEqual(got, post) {
			t.Fatalf("ApplyDiff(%v, %v) =\n %v\nwant\n %v", pre, diff, got, post)
		}
	}
}

// TestApplyDiffMongodForms: u of an absent field appends it, i moves an
// existing field to the end, l pads an array with nulls.
func TestApplyDiffMongodForms(t *testing.T) {
	pre := doc(t, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}, {Key: "b", Value: bson.A{1}}})
	diff := doc(t, bson.D{
		{Key: "u", Value: bson.D{{Key: "z", Value: 3}}},
		{Key: "i", Value: bson.D{{Key: "a", Value: 2}}},
		{Key: "sb", Value: bson.D{{Key: "a", Value: true}, {Key: "l", Value: 3}}},
	})
	got, err := ApplyDiff(pre, diff)
	if err != nil {
		t.Fatal(err)
	}
	want := doc(t, bson.D{{Key: "_id", Value: 1}, {Key: "b", Value: bson.A{1, nil, nil}}, {Key: "z", Value: 3}, {Key: "a", Value: 2}})
	if !bsonEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if _, err := ApplyDiff(pre, doc(t, bson.D{{Key: "x", Value: 1}})); err == nil {
		t.Fatal("unknown diff field accepted")
	}
}

func bsonEqual(a, b bsoncore.Document) bool { return string(a) == string(b) }
