package crud_test

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestFindAndModifyPositionalProjection: a positional projection ("b.$")
// works with findAndModify's remove and new: false, which return the
// document the query matched, and is refused (BadValue) with new: true,
// since the new document may no longer match; an $elemMatch projection
// works with both. Cases from MongoDB's own find_and_modify_server6865
// test.
func TestFindAndModifyPositionalProjection(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("famproj")
	reset := func() {
		t.Helper()
		if err := coll.Drop(c); err != nil {
			t.Fatal(err)
		}
		if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 42}, {Key: "b", Value: bson.A{
			bson.D{{Key: "name", Value: "first"}, {Key: "value", Value: 1}},
			bson.D{{Key: "name", Value: "second"}, {Key: "value", Value: 2}},
			bson.D{{Key: "name", Value: "third"}, {Key: "value", Value: 3}},
		}}}); err != nil {
			t.Fatal(err)
		}
	}
	third := bson.D{{Key: "_id", Value: 42}, {Key: "b.name", Value: "third"}}
	positional := bson.D{{Key: "b.$", Value: 1}}
	setKind := bson.D{{Key: "$set", Value: bson.D{{Key: "b.$.kind", Value: "xyz"}}}}
	// want is the one array element returned under b, as extended JSON.
	check := func(name string, r *mongo.SingleResult, want string) {
		t.Helper()
		var got struct {
			ID int      `bson:"_id"`
			B  []bson.D `bson:"b"`
		}
		if err := r.Decode(&got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got.B) != 1 {
			t.Fatalf("%s: b %v, want one element", name, got.B)
		}
		js, _ := bson.MarshalExtJSON(got.B[0], false, false)
		if got.ID != 42 || string(js) != want {
			t.Errorf("%s: _id %d b.0 %s, want %s", name, got.ID, js, want)
		}
	}

	reset()
	check("remove", coll.FindOneAndDelete(c, third, options.FindOneAndDelete().SetProjection(positional)),
		`{"name":"third","value":3}`)
	reset()
	check("new: false", coll.FindOneAndUpdate(c, third, setKind, options.FindOneAndUpdate().SetProjection(positional)),
		`{"name":"third","value":3}`)
	reset()
	err := coll.FindOneAndUpdate(c, third, setKind,
		options.FindOneAndUpdate().SetProjection(positional).SetReturnDocument(options.After)).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 2 {
		t.Errorf("new: true with a positional projection: %v, want BadValue (2)", err)
	}
	// The refused command changed nothing.
	if n, err := coll.CountDocuments(c, bson.D{{Key: "b.kind", Value: "xyz"}}); err != nil || n != 0 {
		t.Errorf("after the refused command: %d documents with b.kind (%v), want 0", n, err)
	}
	elem := bson.D{{Key: "b", Value: bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "value", Value: 2}}}}}}
	check("new: true with $elemMatch", coll.FindOneAndUpdate(c, bson.D{{Key: "_id", Value: 42}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "b.1.name", Value: "2nd"}}}},
		options.FindOneAndUpdate().SetProjection(elem).SetReturnDocument(options.After)),
		`{"name":"2nd","value":2}`)
}
