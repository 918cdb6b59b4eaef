package engine

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/storage"
)

func TestValidateDetectsMissingAndExtraEntries(t *testing.T) {
	e := openTest(t, "")
	ctx := context.Background()
	var docs []bsoncore.Document
	for i := 0; i < 20; i++ {
		docs = append(docs, D(t, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: bson.A{i, i + 100}}}))
	}
	if _, err := e.Insert(ctx, "db", "c", docs, WriteOptions{Ordered: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.CreateIndex("db", "c", IndexSpec{Key: D(t, bson.D{{Key: "a", Value: 1}})}); err != nil {
		t.Fatal(err)
	}
	r, err := e.Validate(ctx, "db", "c")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Valid || r.NRecords != 20 || len(r.Indexes) != 2 || r.Indexes[0].Keys != 20 || r.Indexes[1].Keys != 40 {
		t.Fatalf("healthy collection: %+v", r)
	}
	// Corrupt: drop one entry of a_1 and add an entry for no record.
	c := e.cat.Load().lookup("db", "c")
	ix := c.IndexByName("a_1")
	cur, err := storage.NewIndexCursor(e.db.Reader(), ix.ID, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	ks, rid, _, ok := cur.Next()
	if !ok {
		t.Fatal("no index entry")
	}
	ks = append([]byte(nil), ks...)
	cur.Close()
	b := e.db.NewBatch()
	_ = storage.DeleteIndexEntry(b, ix.ID, ks, storage.RecordID(rid))
	_ = storage.SetIndexEntry(b, ix.ID, ks, 999, nil)
	if _, err := e.db.Commit(b); err != nil {
		t.Fatal(err)
	}
	r, err = e.Validate(ctx, "db", "c")
	if err != nil {
		t.Fatal(err)
	}
	if r.Valid || r.NMissing != 1 || r.NExtra != 1 || r.Indexes[1].Valid || !r.Indexes[0].Valid {
		t.Fatalf("corrupted collection: %+v", r)
	}
	if len(r.Extra) != 1 || r.Extra[0].RecordID != 999 || len(r.Missing) != 1 || r.Missing[0].RecordID != rid {
		t.Fatalf("details: extra %+v missing %+v", r.Extra, r.Missing)
	}
}
