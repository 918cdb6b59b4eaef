package lode_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// sizes reads collStats' size figures.
type sizes struct {
	storage, total, totalIndex int64
	index                      map[string]int64
}

func collSizes(t *testing.T, d *mongo.Database, coll string) sizes {
	t.Helper()
	var cs bson.Raw
	if err := d.RunCommand(context.Background(), bson.D{{Key: "collStats", Value: coll}}).Decode(&cs); err != nil {
		t.Fatal(err)
	}
	s := sizes{
		storage:    cs.Lookup("storageSize").AsInt64(),
		total:      cs.Lookup("totalSize").AsInt64(),
		totalIndex: cs.Lookup("totalIndexSize").AsInt64(),
		index:      map[string]int64{},
	}
	els, _ := cs.Lookup("indexSizes").Document().Elements()
	for _, el := range els {
		s.index[el.Key()] = el.Value().AsInt64()
	}
	return s
}

// TestStatsSizesNotZero: storage and index sizes are plausible and never 0
// for non-empty data even before Pebble flushes its memtable (seed 003
// reads collStats indexSizes): the _id_ index grows with the count,
// totalIndexSize is the sum of indexSizes, and dbStats, $collStats and
// listDatabases (mongosh's `show dbs`) agree with collStats.
func TestStatsSizesNotZero(t *testing.T) {
	db, d := durOpen(t)
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
	small := collSizes(t, d, "orders")
	// Each document is 32 bytes of BSON; each index entry holds at least
	// an 8-byte index id and an 8-byte record id besides its key.
	if small.storage < 100*32 || small.storage > 100*1000 {
		t.Errorf("storageSize %d for 100 documents of 32 bytes", small.storage)
	}
	for _, name := range []string{"_id_", "s_1"} {
		if n := small.index[name]; n < 100*16 || n > 100*1000 {
			t.Errorf("indexSizes.%s = %d for 100 entries", name, n)
		}
	}
	if small.totalIndex != small.index["_id_"]+small.index["s_1"] || small.total != small.storage+small.totalIndex {
		t.Errorf("totals: %+v", small)
	}
	insert(100, 5000)
	big := collSizes(t, d, "orders")
	if big.index["_id_"] < 40*small.index["_id_"] || big.storage < 40*small.storage {
		t.Errorf("sizes did not grow with the count: 100 docs %+v, 5000 docs %+v", small, big)
	}
	if _, err := coll.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 100}}}}); err != nil {
		t.Fatal(err)
	}
	shrunk := collSizes(t, d, "orders")
	if shrunk.index["_id_"] >= big.index["_id_"] {
		t.Errorf("_id_ index did not shrink after deleting 4900 of 5000 documents: %d -> %d", big.index["_id_"], shrunk.index["_id_"])
	}

	var ds bson.Raw
	if err := d.RunCommand(ctx, bson.D{{Key: "dbStats", Value: 1}}).Decode(&ds); err != nil {
		t.Fatal(err)
	}
	if int64(ds.Lookup("indexSize").AsFloat64()) != shrunk.totalIndex || int64(ds.Lookup("storageSize").AsFloat64()) != shrunk.storage {
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
	if n := agg[0].Lookup("storageStats", "indexSizes", "_id_").AsInt64(); n != shrunk.index["_id_"] {
		t.Errorf("$collStats indexSizes._id_ %d, collStats %d", n, shrunk.index["_id_"])
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
			if n := v.Document().Lookup("sizeOnDisk").AsInt64(); n != shrunk.total {
				t.Errorf("listDatabases sizeOnDisk %d, collStats totalSize %d", n, shrunk.total)
			}
		}
	}
	if !found || ld.Lookup("totalSize").AsInt64() < shrunk.total {
		t.Errorf("listDatabases: %v", ld)
	}
}
