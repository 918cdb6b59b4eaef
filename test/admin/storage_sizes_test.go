package admin_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// TestStatsSizesNotZero: storage and index sizes are plausible and never 0
// for non-empty data even before Pebble flushes its memtable (the event log pattern
// reads collStats indexSizes): the _id_ index grows with the count,
// totalIndexSize is the sum of indexSizes, and dbStats, $collStats and
// listDatabases (mongosh's `show dbs`) agree with collStats.
func TestStatsSizesNotZero(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	ctx := context.Background()
	coll := d.Collection("orders")
	insert := func(from, to int) {
		var docs []any
		for i := from; i < to; i++ {
			docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "s", Value: "0123456789"}})
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	insert(0, 100)
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "s", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	small := testenv.ReadCollSizes(t, d, "orders")
	// Each document is 32 bytes of BSON; each index entry holds at least
	// an 8-byte index id and an 8-byte record id besides its key.
	if small.Storage < 100*32 || small.Storage > 100*1000 {
		t.Errorf("storageSize %d for 100 documents of 32 bytes", small.Storage)
	}
	for _, name := range []string{"_id_", "s_1"} {
		if n := small.Index[name]; n < 100*16 || n > 100*1000 {
			t.Errorf("indexSizes.%s = %d for 100 entries", name, n)
		}
	}
	if small.TotalIndex != small.Index["_id_"]+small.Index["s_1"] || small.Total != small.Storage+small.TotalIndex {
		t.Errorf("totals: %+v", small)
	}
	insert(100, 5000)
	big := testenv.ReadCollSizes(t, d, "orders")
	if big.Index["_id_"] < 40*small.Index["_id_"] || big.Storage < 40*small.Storage {
		t.Errorf("sizes did not grow with the count: 100 docs %+v, 5000 docs %+v", small, big)
	}
	if _, err := coll.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 100}}}}); err != nil {
		t.Fatal(err)
	}
	shrunk := testenv.ReadCollSizes(t, d, "orders")
	if shrunk.Index["_id_"] >= big.Index["_id_"] {
		t.Errorf("_id_ index did not shrink after deleting 4900 of 5000 documents: %d -> %d", big.Index["_id_"], shrunk.Index["_id_"])
	}

	var ds bson.Raw
	if err := d.RunCommand(ctx, bson.D{{Key: "dbStats", Value: 1}}).Decode(&ds); err != nil {
		t.Fatal(err)
	}
	if int64(ds.Lookup("indexSize").AsFloat64()) != shrunk.TotalIndex || int64(ds.Lookup("storageSize").AsFloat64()) != shrunk.Storage {
		t.Errorf("dbStats %v, collStats %+v", ds, shrunk)
	}
	cur, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$collStats", Value: bson.D{{Key: "storageStats", Value: bson.D{}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var agg []bson.Raw
	if err := cur.All(ctx, &agg); err != nil || len(agg) != 1 {
		t.Fatalf("$collStats: %v %v", agg, err)
	}
	if n := agg[0].Lookup("storageStats", "indexSizes", "_id_").AsInt64(); n != shrunk.Index["_id_"] {
		t.Errorf("$collStats indexSizes._id_ %d, collStats %d", n, shrunk.Index["_id_"])
	}
	var ld bson.Raw
	if err := db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "listDatabases", Value: 1}}).Decode(&ld); err != nil {
		t.Fatal(err)
	}
	vals, _ := ld.Lookup("databases").Array().Values()
	found := false
	for _, v := range vals {
		if v.Document().Lookup("name").StringValue() == "test" {
			found = true
			if n := v.Document().Lookup("sizeOnDisk").AsInt64(); n != shrunk.Total {
				t.Errorf("listDatabases sizeOnDisk %d, collStats totalSize %d", n, shrunk.Total)
			}
		}
	}
	if !found || ld.Lookup("totalSize").AsInt64() < shrunk.Total {
		t.Errorf("listDatabases: %v", ld)
	}
}
