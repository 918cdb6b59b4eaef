package crash

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// TestKill9DuringBulkInserts: insertMany batches large enough to be
// committed by ingestion (storage/ingestcommit.go), acknowledged with
// j:true, from two clients, one of them writing single documents in
// between, until kill -9. After the restart every acknowledged document
// is there, every batch is whole or absent (each is one commit), every
// document has its oplog entry and no entry lacks its document, and
// validate passes.
func TestKill9DuringBulkInserts(t *testing.T) {
	bin := buildLode(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	cmd, addr := startServer(t, bin, dataDir)
	uri := "mongodb://" + addr + "/?directConnection=true"
	c := connect(t, uri)
	coll := c.Database("bulk").Collection("docs", options.Collection().SetWriteConcern(writeconcern.Journaled()))
	pad := strings.Repeat("x", 480)
	const per = 2500
	var mu sync.Mutex
	var ackedBatches []int32
	var ackedSingles []int32
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for b := int32(0); ctx.Err() == nil; b++ {
			docs := make([]any, per)
			for i := range docs {
				docs[i] = bson.D{{Key: "b", Value: b}, {Key: "i", Value: int32(i)}, {Key: "pad", Value: pad}}
			}
			if _, err := coll.InsertMany(ctx, docs); err != nil {
				return
			}
			mu.Lock()
			ackedBatches = append(ackedBatches, b)
			mu.Unlock()
		}
	}()
	go func() {
		defer wg.Done()
		for i := int32(0); ctx.Err() == nil; i++ {
			if _, err := coll.InsertOne(ctx, bson.D{{Key: "single", Value: i}}); err != nil {
				return
			}
			mu.Lock()
			ackedSingles = append(ackedSingles, i)
			mu.Unlock()
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		enough := len(ackedBatches) >= 6
		mu.Unlock()
		if enough || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(150 * time.Millisecond) // the kill lands inside a batch
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	cancel()
	wg.Wait()
	disconnect(c)
	if len(ackedBatches) < 2 {
		t.Fatalf("only %d batches acknowledged before the kill", len(ackedBatches))
	}

	cmd, addr = startServer(t, bin, dataDir)
	defer stopServer(cmd, syscall.SIGTERM)
	c = connect(t, "mongodb://"+addr+"/?directConnection=true")
	bg := context.Background()
	coll = c.Database("bulk").Collection("docs")
	batches := countBy(t, coll, "b")
	for b, n := range batches {
		if n != per {
			t.Errorf("batch %d holds %d documents after the kill, want all %d or none", b, n, per)
		}
	}
	for _, b := range ackedBatches {
		if batches[b] == 0 {
			t.Errorf("acknowledged batch %d is missing", b)
		}
	}
	// Every acknowledged single insert is there exactly once: one scan
	// counts them all (a count per insert scanned the collection each
	// time, seconds in all under the parallel test packages' load).
	singles := countBy(t, coll, "single")
	for _, i := range ackedSingles {
		if singles[i] != 1 {
			t.Fatalf("acknowledged single insert %d: %d documents", i, singles[i])
		}
	}
	docs, err := coll.CountDocuments(bg, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := c.Database("local").Collection("oplog.rs").CountDocuments(bg, bson.D{{Key: "ns", Value: "bulk.docs"}, {Key: "op", Value: "i"}})
	if err != nil {
		t.Fatal(err)
	}
	if entries != docs {
		t.Errorf("%d documents but %d insert entries in the oplog", docs, entries)
	}
	var v bson.M
	if err := c.Database("bulk").RunCommand(bg, bson.D{{Key: "validate", Value: "docs"}}).Decode(&v); err != nil || v["valid"] != true {
		t.Errorf("validate: %v, %v", v, err)
	}
	t.Logf("%d batches and %d single inserts acknowledged; %d documents after the restart", len(ackedBatches), len(ackedSingles), docs)
}

// countBy returns, for each value of the int32 field in coll's documents
// that have it, how many documents hold it.
func countBy(t *testing.T, coll *mongo.Collection, field string) map[int32]int32 {
	t.Helper()
	bg := context.Background()
	cur, err := coll.Aggregate(bg, []bson.D{
		{{Key: "$match", Value: bson.D{{Key: field, Value: bson.D{{Key: "$exists", Value: true}}}}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$" + field}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var groups []struct {
		V int32 `bson:"_id"`
		N int32 `bson:"n"`
	}
	if err := cur.All(bg, &groups); err != nil {
		t.Fatal(err)
	}
	out := make(map[int32]int32, len(groups))
	for _, g := range groups {
		out[g.V] = g.N
	}
	return out
}
