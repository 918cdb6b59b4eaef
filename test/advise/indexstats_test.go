package advise_test

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// TestIndexStatsCountsAccesses: $indexStats reports mongod's shape
// ({name, key, host, accesses: {ops, since}, spec}) and accesses.ops
// counts the operations whose plan used the index: finds, counts and
// updates, not explain.
func TestIndexStatsCountsAccesses(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	c := db.Collection("c")
	testenv.InsertBatches(t, c, 100, func(i int) any {
		return bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i % 10}, {Key: "b", Value: i}}
	})
	testenv.CreateIndex(t, c, bson.D{{Key: "a", Value: 1}})
	testenv.CreateIndex(t, c, bson.D{{Key: "b", Value: 1}})
	start := time.Now().Add(-time.Second)
	if err := c.FindOne(ctx, bson.D{{Key: "a", Value: 3}}).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CountDocuments(ctx, bson.D{{Key: "a", Value: 4}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateOne(ctx, bson.D{{Key: "a", Value: 5}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	testenv.Explain(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "a", Value: 1}}}}, "executionStats")
	cur, err := c.Aggregate(ctx, mongo.Pipeline{{{Key: "$indexStats", Value: bson.D{}}}})
	if err != nil {
		t.Fatal(err)
	}
	var stats []struct {
		Name     string `bson:"name"`
		Key      bson.D `bson:"key"`
		Host     string `bson:"host"`
		Accesses struct {
			Ops   int64     `bson:"ops"`
			Since time.Time `bson:"since"`
		} `bson:"accesses"`
		Spec bson.D `bson:"spec"`
	}
	if err := cur.All(ctx, &stats); err != nil {
		t.Fatal(err)
	}
	ops := map[string]int64{}
	for _, s := range stats {
		ops[s.Name] = s.Accesses.Ops
		if s.Host == "" || len(s.Key) == 0 || len(s.Spec) == 0 {
			t.Errorf("%s: host %q key %v spec %v", s.Name, s.Host, s.Key, s.Spec)
		}
		if s.Accesses.Since.Before(start.Add(-time.Minute)) || s.Accesses.Since.After(time.Now().Add(time.Second)) {
			t.Errorf("%s: accesses.since %v", s.Name, s.Accesses.Since)
		}
	}
	if ops["a_1"] != 3 || ops["b_1"] != 0 || len(stats) != 3 {
		t.Errorf("accesses.ops %v, want a_1: 3 (find, count, update; explain not counted), b_1: 0", ops)
	}
}
