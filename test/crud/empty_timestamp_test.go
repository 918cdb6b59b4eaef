package crud_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// An insert through a driver fills each top-level Timestamp(0, 0) (not
// _id's, not nested ones) with the time, as mongod does, whether the
// document comes alone or in a bulk insert beside documents without one;
// documents without one are stored as sent.
func TestInsertFillsEmptyTimestamps(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("ts")
	empty := bson.Timestamp{}
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 0}, {Key: "a", Value: empty}}); err != nil {
		t.Fatal(err)
	}
	docs := []any{}
	for i := 1; i <= 1500; i++ {
		if i == 1200 {
			docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: empty}, {Key: "n", Value: bson.D{{Key: "b", Value: empty}}}})
			continue
		}
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: bson.Timestamp{T: 7, I: uint32(i)}}})
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: empty}}); err != nil {
		t.Fatal(err)
	}
	get := func(id any) bson.Raw {
		t.Helper()
		raw, err := coll.FindOne(c, bson.D{{Key: "_id", Value: id}}).Raw()
		if err != nil {
			t.Fatalf("find %v: %v", id, err)
		}
		return raw
	}
	for _, id := range []int{0, 1200} {
		if ts, _ := get(id).Lookup("a").Timestamp(); ts == 0 {
			t.Errorf("_id %d: a was not filled: %v", id, get(id))
		}
	}
	if tt, i := get(1200).Lookup("n", "b").Timestamp(); tt != 0 || i != 0 {
		t.Errorf("nested timestamp filled: %v", get(1200))
	}
	if tt, i := get(7).Lookup("a").Timestamp(); tt != 7 || i != 7 {
		t.Errorf("_id 7 stored %v, want a: Timestamp(7, 7)", get(7))
	}
	if n, err := coll.CountDocuments(c, bson.D{{Key: "_id", Value: empty}}); err != nil || n != 1 {
		t.Errorf("_id Timestamp(0, 0): %d documents (%v), want 1 kept as sent", n, err)
	}
}
