package engine

import (
	"context"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// indexBytes returns the maintained and the rescanned logical index sizes
// of db.coll by index name.
func indexBytes(t *testing.T, e *Engine, db, coll string) (kept, scanned map[string]int64) {
	t.Helper()
	c, err := e.lockColl(db, coll, false)
	if err != nil || c == nil {
		t.Fatalf("lock %s.%s: %v", db, coll, err)
	}
	defer c.state.mu.Unlock()
	if !c.state.idxValid {
		t.Fatal("index sizes not maintained")
	}
	kept, scanned = map[string]int64{}, map[string]int64{}
	for _, ix := range c.Indexes {
		kept[ix.Name] = c.state.idxBytes[ix.ID]
	}
	saved := c.state.idxBytes
	if err := e.recountIndexes(c); err != nil {
		t.Fatal(err)
	}
	for _, ix := range c.Indexes {
		scanned[ix.Name] = c.state.idxBytes[ix.ID]
	}
	c.state.idxBytes = saved
	return kept, scanned
}

func checkIndexBytes(t *testing.T, e *Engine, db, coll, when string) map[string]int64 {
	t.Helper()
	kept, scanned := indexBytes(t, e, db, coll)
	for name, n := range scanned {
		if kept[name] != n {
			t.Errorf("%s: index %s: maintained %d bytes, scan finds %d", when, name, kept[name], n)
		}
	}
	return scanned
}

// TestIndexBytesFollowWrites: the per-index byte counters kept by the
// write path equal a scan of the index after inserts, updates that move,
// keep or retype keys, deletes, an index build, a transaction, capped
// trimming and an index drop; CollectionStats reports them (never 0 for a
// non-empty index while everything is still in the memtable).
func TestIndexBytesFollowWrites(t *testing.T) {
	e := openTest(t, "")
	ctx := context.Background()
	var docs []bsoncore.Document
	for i := 0; i < 500; i++ {
		docs = append(docs, D(t, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i % 7}, {Key: "tags", Value: bson.A{"x", fmt.Sprint(i % 3)}}}))
	}
	if _, err := e.Insert(ctx, "db", "c", docs, WriteOptions{Ordered: true}); err != nil {
		t.Fatal(err)
	}
	checkIndexBytes(t, e, "db", "c", "after insert")
	if _, err := e.CreateIndex("db", "c", IndexSpec{Key: D(t, bson.D{{Key: "a", Value: 1}})}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.CreateIndex("db", "c", IndexSpec{Key: D(t, bson.D{{Key: "tags", Value: 1}})}); err != nil {
		t.Fatal(err)
	}
	checkIndexBytes(t, e, "db", "c", "after index builds")
	for _, u := range []bson.D{
		{{Key: "$set", Value: bson.D{{Key: "a", Value: "a much longer string key"}}}},
		{{Key: "$set", Value: bson.D{{Key: "a", Value: int64(3)}}}}, // same key, other type bits
		{{Key: "$push", Value: bson.D{{Key: "tags", Value: "y"}}}},
	} {
		if _, err := e.Update(ctx, "db", "c", []UpdateSpec{{Filter: D(t, bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 200}}}}), Update: val(t, u), Multi: true}}, WriteOptions{Ordered: true}); err != nil {
			t.Fatal(err)
		}
	}
	checkIndexBytes(t, e, "db", "c", "after updates")
	if _, err := e.Delete(ctx, "db", "c", []DeleteSpec{{Filter: D(t, bson.D{{Key: "a", Value: 0}})}}, WriteOptions{Ordered: true}); err != nil {
		t.Fatal(err)
	}
	checkIndexBytes(t, e, "db", "c", "after delete")

	tx, err := e.BeginTxn()
	if err != nil {
		t.Fatal(err)
	}
	tctx := WithTxn(ctx, tx)
	if _, err := e.Insert(tctx, "db", "c", []bsoncore.Document{D(t, bson.D{{Key: "_id", Value: 1000}, {Key: "a", Value: "in txn"}})}, WriteOptions{Ordered: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Delete(tctx, "db", "c", []DeleteSpec{{Filter: D(t, bson.D{{Key: "_id", Value: 1}}), Limit: 1}}, WriteOptions{Ordered: true}); err != nil {
		t.Fatal(err)
	}
	before, _ := indexBytes(t, e, "db", "c")
	if err := tx.Commit(ctx, false); err != nil {
		t.Fatal(err)
	}
	after := checkIndexBytes(t, e, "db", "c", "after transaction")
	if after["_id_"] == before["_id_"] && after["a_1"] == before["a_1"] {
		t.Error("transaction commit changed no index size")
	}

	st, err := e.CollectionStats("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for name, n := range st.IndexSizes {
		if n < after[name] || n <= 0 {
			t.Errorf("indexSizes.%s = %d, logical size %d", name, n, after[name])
		}
		sum += n
	}
	if len(st.IndexSizes) != 3 || sum != st.TotalIndexSize {
		t.Errorf("indexSizes %v, totalIndexSize %d", st.IndexSizes, st.TotalIndexSize)
	}
	if st.StorageSize < st.Size {
		t.Errorf("storageSize %d below dataSize %d with everything unflushed", st.StorageSize, st.Size)
	}
	if err := e.DropIndex("db", "c", "tags_1"); err != nil {
		t.Fatal(err)
	}
	checkIndexBytes(t, e, "db", "c", "after drop index")

	// Capped trimming removes index entries with the records.
	if err := e.CreateCollection("db", "capped", CreateOptions{Capped: true, Size: 1 << 20, Max: 10}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		if _, err := e.Insert(ctx, "db", "capped", []bsoncore.Document{D(t, bson.D{{Key: "_id", Value: i}})}, WriteOptions{Ordered: true}); err != nil {
			t.Fatal(err)
		}
	}
	if got := checkIndexBytes(t, e, "db", "capped", "after capped trimming")["_id_"]; got <= 0 {
		t.Errorf("capped _id_ index bytes %d", got)
	}
}

// TestIndexBytesAfterReopen: after a restart the sizes are rebuilt by a
// scan on the first CollectionStats and are not 0.
func TestIndexBytesAfterReopen(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []bsoncore.Document
	for i := 0; i < 100; i++ {
		docs = append(docs, D(t, bson.D{{Key: "_id", Value: i}}))
	}
	if _, err := e.Insert(context.Background(), "db", "c", docs, WriteOptions{Ordered: true}); err != nil {
		t.Fatal(err)
	}
	st1, err := e.CollectionStats("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	e = openTest(t, dir)
	st2, err := e.CollectionStats("db", "c")
	if err != nil {
		t.Fatal(err)
	}
	if st2.IndexSizes["_id_"] < st1.IndexSizes["_id_"] || st2.StorageSize <= 0 {
		t.Errorf("after reopen: %+v, before: %+v", st2, st1)
	}
	checkIndexBytes(t, e, "db", "c", "after reopen")
}
