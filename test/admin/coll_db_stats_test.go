package admin_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

func TestCollStatsAndDBStats(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	ctx := context.Background()
	coll := d.Collection("orders")
	var docs []any
	for i := 0; i < 100; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "s", Value: "0123456789"}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "s", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	// Each document: 4 + (1+4+4) + (1+2+4+11) + 1 = 32 bytes.
	var cs bson.Raw
	if err := d.RunCommand(ctx, bson.D{{Key: "collStats", Value: "orders"}}).Decode(&cs); err != nil {
		t.Fatal(err)
	}
	if got := cs.Lookup("count").AsInt64(); got != 100 {
		t.Errorf("count %d", got)
	}
	if got := cs.Lookup("size").AsInt64(); got != 3200 {
		t.Errorf("size %d", got)
	}
	if got := cs.Lookup("avgObjSize").AsInt64(); got != 32 {
		t.Errorf("avgObjSize %d", got)
	}
	if got := cs.Lookup("nindexes").AsInt64(); got != 2 {
		t.Errorf("nindexes %d", got)
	}
	if cs.Lookup("ns").StringValue() != "test.orders" || cs.Lookup("capped").Boolean() {
		t.Errorf("ns/capped: %v", cs)
	}
	if _, err := cs.LookupErr("indexSizes", "s_1"); err != nil {
		t.Errorf("indexSizes.s_1 missing: %v", cs)
	}
	var ds bson.Raw
	if err := d.RunCommand(ctx, bson.D{{Key: "dbStats", Value: 1}}).Decode(&ds); err != nil {
		t.Fatal(err)
	}
	if ds.Lookup("objects").AsInt64() != 100 || ds.Lookup("collections").AsInt64() != 1 || ds.Lookup("indexes").AsInt64() != 2 {
		t.Errorf("dbStats: %v", ds)
	}
	if err := d.RunCommand(ctx, bson.D{{Key: "collStats", Value: "nope"}}).Err(); err == nil {
		t.Error("collStats of a missing collection succeeded")
	}
	// serverStatus sections clients read.
	ss := testenv.ServerStatus(t, db.Client())
	for _, path := range [][]string{{"host"}, {"version"}, {"uptime"}, {"connections", "current"},
		{"opcounters", "insert"}, {"mem", "resident"}, {"metrics", "document", "inserted"}, {"metrics", "ttl", "passes"}} {
		if _, err := ss.LookupErr(path...); err != nil {
			t.Errorf("serverStatus lacks %v", path)
		}
	}
	if n := ss.Lookup("metrics", "document", "inserted").AsInt64(); n != 100 {
		t.Errorf("metrics.document.inserted = %d", n)
	}
}
