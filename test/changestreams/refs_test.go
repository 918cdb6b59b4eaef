package changestreams

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// TestBulkInsertEntriesOutliveTheirDocuments: the oplog entries of a bulk
// insert refer to the records it wrote instead of copying them
// (internal/oplog/refs.go). Whatever happens to the documents afterwards
// (updates, an updateMany, a delete, a restart, changes while the server
// runs without its oplog, the collection's drop, whose records stay for
// the log, and a new collection of the same name), local.oplog.rs and a change stream started at the insert show
// each document as it was inserted, as mongod's oplog, which holds a
// copy, does.
func TestBulkInsertEntriesOutliveTheirDocuments(t *testing.T) {
	dir := t.TempDir()
	ctx := testenv.Ctx(t)
	ldb, err := lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ldb.Close() }()
	const n = 3000
	pad := strings.Repeat("r", 200) // 3,000 documents: about 700 KB
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "v", Value: int32(i)}, {Key: "pad", Value: pad}}
	}
	coll := ldb.Client().Database("test").Collection("refs")
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	oplogColl := func() *mongo.Collection { return ldb.Client().Database("local").Collection("oplog.rs") }
	var first bson.Timestamp
	var checkNS func(stage, ns string)
	check := func(stage string) { t.Helper(); checkNS(stage, "test.refs") }
	checkNS = func(stage, ns string) {
		t.Helper()
		cur, err := oplogColl().Find(ctx, bson.D{{Key: "ns", Value: ns}, {Key: "op", Value: "i"}},
			options.Find().SetSort(bson.D{{Key: "$natural", Value: 1}}))
		if err != nil {
			t.Fatalf("%s: %v", stage, err)
		}
		var got []bson.Raw
		if err := cur.All(ctx, &got); err != nil {
			t.Fatalf("%s: %v", stage, err)
		}
		if len(got) != n {
			t.Fatalf("%s: %d insert entries, want %d", stage, len(got), n)
		}
		for i, e := range got {
			o := e.Lookup("o").Document()
			if id, v, p := o.Lookup("_id").Int32(), o.Lookup("v").Int32(), o.Lookup("pad").StringValue(); id != int32(i) || v != int32(i) || p != pad {
				t.Fatalf("%s: entry %d holds {_id: %d, v: %d}, want the inserted {_id: %d, v: %d}", stage, i, id, v, i, i)
			}
		}
		if first.T == 0 {
			ts, inc := got[0].Lookup("ts").Timestamp()
			first = bson.Timestamp{T: ts, I: inc}
		}
	}
	check("after the insert")

	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 5}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: -1}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.UpdateMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 1000}, {Key: "$lt", Value: 1400}}}},
		bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 1000000}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 2500}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: 2999}}, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	check("after updates and a delete")

	// A restart: the references are found again in the stored log.
	if err := ldb.Close(); err != nil {
		t.Fatal(err)
	}
	if ldb, err = lode.Open(dir); err != nil {
		t.Fatal(err)
	}
	coll = ldb.Client().Database("test").Collection("refs")
	check("after a restart")
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 2000}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: -2}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 100}}}}); err != nil {
		t.Fatal(err)
	}
	check("after changes following the restart")

	// A restart without the oplog, changes, and one with it again: the
	// entries kept meanwhile still show the inserted documents.
	if err := ldb.Close(); err != nil {
		t.Fatal(err)
	}
	if ldb, err = lode.Open(dir, lode.WithOplogSizeMB(0)); err != nil {
		t.Fatal(err)
	}
	coll = ldb.Client().Database("test").Collection("refs")
	if _, err := coll.UpdateMany(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: -3}}}}); err != nil {
		t.Fatal(err)
	}
	if err := ldb.Close(); err != nil {
		t.Fatal(err)
	}
	if ldb, err = lode.Open(dir); err != nil {
		t.Fatal(err)
	}
	coll = ldb.Client().Database("test").Collection("refs")
	check("after changes made without the oplog")
	if err := coll.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	check("after the drop")

	// A collection dropped right after its load: its records stay for
	// the log, across a restart, and a new collection of the same name
	// is a new one.
	fresh := ldb.Client().Database("test").Collection("dropped")
	if _, err := fresh.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if err := fresh.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	checkNS("a loaded collection dropped", "test.dropped")
	if err := ldb.Close(); err != nil {
		t.Fatal(err)
	}
	if ldb, err = lode.Open(dir); err != nil {
		t.Fatal(err)
	}
	checkNS("a loaded collection dropped, after a restart", "test.dropped")
	// New collections take new storage ids, none the retained records'.
	for _, name := range []string{"a", "b", "c"} {
		if _, err := ldb.Client().Database("test").Collection(name).InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	fresh = ldb.Client().Database("test").Collection("dropped")
	if _, err := fresh.InsertMany(ctx, docs[:2000]); err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.UpdateMany(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: -4}}}}); err != nil {
		t.Fatal(err)
	}
	if c, err := fresh.CountDocuments(ctx, bson.D{}); err != nil || c != 2000 {
		t.Fatalf("the new collection has %d documents (%v), want 2000", c, err)
	}
	var all []bson.Raw
	cur, err := oplogColl().Find(ctx, bson.D{{Key: "ns", Value: "test.dropped"}, {Key: "op", Value: "i"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.All(ctx, &all); err != nil {
		t.Fatal(err)
	}
	if len(all) != n+2000 {
		t.Fatalf("%d insert entries after the second insert, want %d", len(all), n+2000)
	}
	for i, e := range all {
		want := int32(i)
		if i >= n {
			want = int32(i - n)
		}
		if o := e.Lookup("o").Document(); o.Lookup("_id").Int32() != want || o.Lookup("v").Int32() != want {
			t.Fatalf("insert entry %d holds %v", i, o)
		}
	}

	// A change stream started at the insert sees every document whole.
	cs, err := ldb.Client().Database("test").Collection("refs").Watch(ctx, mongo.Pipeline{},
		options.ChangeStream().SetStartAtOperationTime(&first).SetBatchSize(1000))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	for i := int32(0); i < n; i++ {
		ev := next(t, cs)
		if opType(ev) != "insert" || i32(ev, "fullDocument", "_id") != i || i32(ev, "fullDocument", "v") != i || str(ev, "fullDocument", "pad") != pad {
			t.Fatalf("event %d: %v", i, ev)
		}
	}
}
