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
