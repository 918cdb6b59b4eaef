package crud_test

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// TestBulkInsertCommittedByIngestion: an insertMany of 7,000 documents of
// the recent seed's shape (about 0.7 MB of records, _id entries and oplog
// runs) is committed by ingestion, as larger ones are, and one of 3,000
// (about 0.3 MB) through the WAL and the memtable; both read back whole.
// Between 512 KiB and 1 MiB ingestion costs less server CPU per document
// than the memtable's path with its flush and compactions
// (storage.ingestCommitMin, docs/benchmarks.md).
func TestBulkInsertCommittedByIngestion(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("recent")
	byIngestion := func() int64 {
		n, _ := testenv.ServerStatus(t, db.Client()).Lookup("lode", "storage", "commitsByIngestion").AsInt64OK()
		return n
	}
	t0 := time.Unix(1700000000, 0)
	insert := func(from, n int) {
		t.Helper()
		docs := make([]any, n)
		for i := range docs {
			docs[i] = bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "cat", Value: int32((from + i) % 100)},
				{Key: "ts", Value: bson.NewDateTimeFromTime(t0.Add(time.Duration(from+i) * time.Second))}}
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	before := byIngestion()
	insert(0, 7000)
	if got := byIngestion() - before; got != 1 {
		t.Fatalf("7,000 documents: %d commits by ingestion, want 1", got)
	}
	insert(7000, 3000)
	if got := byIngestion() - before; got != 1 {
		t.Fatalf("3,000 documents after: %d commits by ingestion in all, want 1", got)
	}
	if n := testenv.Count(t, coll, bson.D{}); n != 10000 {
		t.Fatalf("%d documents, want 10000", n)
	}
	if n := testenv.Count(t, coll, bson.D{{Key: "cat", Value: 42}}); n != 100 {
		t.Fatalf("%d documents of category 42, want 100", n)
	}
}
