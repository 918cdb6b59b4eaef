package durability_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

func TestDataSurvivesReopen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := testenv.Ctx(t)
	db, err := lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	coll := db.Client().Database("p").Collection("c")
	for i := 0; i < 100; i++ {
		if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: i}, {Key: "v", Value: i * i}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := coll.UpdateOne(c, bson.D{{Key: "_id", Value: 7}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: "seven"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteOne(c, bson.D{{Key: "_id", Value: 8}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	coll = db.Client().Database("p").Collection("c")
	n := testenv.Count(t, coll, bson.D{})
	if n != 99 {
		t.Fatalf("after reopen: %d docs", n)
	}
	var doc struct {
		V any `bson:"v"`
	}
	if err := coll.FindOne(c, bson.D{{Key: "_id", Value: 7}}).Decode(&doc); err != nil || doc.V != "seven" {
		t.Fatalf("updated doc after reopen: %v %v", doc, err)
	}
	// New inserts get fresh record ids and do not collide with old ones.
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 1000}}); err != nil {
		t.Fatal(err)
	}
	if n := testenv.Count(t, coll, bson.D{}); n != 100 {
		t.Fatalf("after insert: %d", n)
	}
}
