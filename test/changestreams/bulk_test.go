package changestreams

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestBulkInsertEvents: an insertMany large enough to be committed by
// ingestion (storage/ingestcommit.go) is seen by a change stream as one
// insert event per document, in _id order, with the documents whole, and
// in local.oplog.rs as one entry per document, as mongod logs it; a write
// after it comes after its events.
func TestBulkInsertEvents(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("bulk")
	cs, err := coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetBatchSize(1000))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	const n = 4000
	pad := strings.Repeat("p", 500)
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "pad", Value: pad}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(n)}}); err != nil {
		t.Fatal(err)
	}
	ss, err := db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := ss.Lookup("lode", "storage", "commitsByIngestion").AsInt64OK(); c < 1 {
		t.Fatalf("the insertMany was not committed by ingestion: %v", ss.Lookup("lode", "storage"))
	}
	for i := int32(0); i <= n; i++ {
		ev := next(t, cs)
		if opType(ev) != "insert" || i32(ev, "documentKey", "_id") != i || i32(ev, "fullDocument", "_id") != i {
			t.Fatalf("event %d: %v", i, ev)
		}
		if i < n && str(ev, "fullDocument", "pad") != pad {
			t.Fatalf("event %d lacks its document's pad", i)
		}
	}
	cnt, err := db.Client().Database("local").Collection("oplog.rs").CountDocuments(ctx,
		bson.D{{Key: "ns", Value: db.Name() + ".bulk"}, {Key: "op", Value: "i"}})
	if err != nil || cnt != n+1 {
		t.Fatalf("%d insert entries in the oplog (%v), want %d", cnt, err, n+1)
	}
}

// TestResumeInsideABulkInsert: the documents of one insertMany are one
// stored oplog run (internal/oplog/runs.go), but each has its own
// timestamp: a stream resumed after the token of one of them, or started
// at the operation time of one, begins with the next document or that
// one, as it does on mongod.
func TestResumeInsideABulkInsert(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("bulkresume")
	cs, err := coll.Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 100
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	var token bson.Raw
	var at bson.Timestamp
	var last bson.Timestamp
	for i := int32(0); i < n; i++ {
		ev := next(t, cs)
		if i32(ev, "documentKey", "_id") != i {
			t.Fatalf("event %d: %v", i, ev)
		}
		ct, ci, _ := ev.Lookup("clusterTime").TimestampOK()
		ts := bson.Timestamp{T: ct, I: ci}
		if i > 0 && (ts.T < last.T || ts.T == last.T && ts.I <= last.I) {
			t.Fatalf("event %d at %v, not after %v", i, ts, last)
		}
		last = ts
		switch i {
		case 41:
			token = append(bson.Raw(nil), cs.ResumeToken()...)
		case 60:
			at = ts
		}
	}
	cs.Close(ctx)

	after, err := coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetResumeAfter(token))
	if err != nil {
		t.Fatal(err)
	}
	defer after.Close(ctx)
	for i := int32(42); i < n; i++ {
		if ev := next(t, after); i32(ev, "documentKey", "_id") != i {
			t.Fatalf("resumed after event 41: event for _id %d, want %d", i32(ev, "documentKey", "_id"), i)
		}
	}
	from, err := coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetStartAtOperationTime(&at))
	if err != nil {
		t.Fatal(err)
	}
	defer from.Close(ctx)
	if ev := next(t, from); i32(ev, "documentKey", "_id") != 60 {
		t.Fatalf("started at event 60's time: first event for _id %d", i32(ev, "documentKey", "_id"))
	}
}
