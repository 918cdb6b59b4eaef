package advise_test

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode"
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

// TestIndexStatsAcrossRestart: the access counters are saved with the
// query statistics when Lode closes and continue when it opens again,
// with the same accesses.since (mongod's restart from zero; Lode keeps
// them so that a stopped directory still tells which indexes were used).
func TestIndexStatsAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := testenv.Ctx(t)
	stats := func(db *lode.DB) map[string][2]int64 {
		t.Helper()
		cur, err := db.Client().Database("test").Collection("c").Aggregate(ctx, mongo.Pipeline{{{Key: "$indexStats", Value: bson.D{}}}})
		if err != nil {
			t.Fatal(err)
		}
		var docs []struct {
			Name     string `bson:"name"`
			Accesses struct {
				Ops   int64     `bson:"ops"`
				Since time.Time `bson:"since"`
			} `bson:"accesses"`
		}
		if err := cur.All(ctx, &docs); err != nil {
			t.Fatal(err)
		}
		out := map[string][2]int64{}
		for _, d := range docs {
			out[d.Name] = [2]int64{d.Accesses.Ops, d.Accesses.Since.UnixMilli()}
		}
		return out
	}
	db, err := lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := db.Client().Database("test").Collection("c")
	testenv.InsertBatches(t, c, 50, func(i int) any { return bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i % 5}, {Key: "b", Value: i}} })
	testenv.CreateIndex(t, c, bson.D{{Key: "a", Value: 1}})
	testenv.CreateIndex(t, c, bson.D{{Key: "b", Value: 1}})
	for i := 0; i < 4; i++ {
		if err := c.FindOne(ctx, bson.D{{Key: "a", Value: i}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	before := stats(db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	after := stats(db)
	if before["a_1"][0] != 4 || after["a_1"] != before["a_1"] || after["b_1"] != before["b_1"] {
		t.Errorf("$indexStats (ops, since) before the restart %v, after %v; want a_1 used 4 times, both kept", before, after)
	}
	if err := db.Client().Database("test").Collection("c").FindOne(ctx, bson.D{{Key: "a", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	if got := stats(db)["a_1"][0]; got != 5 {
		t.Errorf("a_1 ops after one more find: %d, want 5", got)
	}
}
