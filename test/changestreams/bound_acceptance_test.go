package changestreams

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// TestOplogBound64MBThrough1GB is the acceptance figure: an oplog
// bounded at 64 MB stays at or under its bound, read after every 16 MB
// batch, through 1 GB of writes (LODE_ACCEPTANCE=1 only; TestOplogBound
// shows the same at 1 MiB every day).
func TestOplogBound64MBThrough1GB(t *testing.T) {
	testenv.AcceptanceOnly(t)
	_, db := testenv.Open(t, lode.WithOplogSizeMB(64))
	ctx := testenv.Ctx(t)
	coll := db.Collection("bound")
	pad := strings.Repeat("x", 16<<10)
	const batch = 1000 // 16 MB of documents
	maxSeen := int64(0)
	for written, id := 0, 0; written < 1<<30; written += batch * len(pad) {
		docs := make([]any, batch)
		for j := range docs {
			docs[j] = bson.D{{Key: "_id", Value: id}, {Key: "pad", Value: pad}}
			id++
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
		// Keep the collection itself small: delete what was inserted
		// (the deletes are logged too).
		if _, err := coll.DeleteMany(ctx, bson.D{}); err != nil {
			t.Fatal(err)
		}
		stats, err := testenv.RunCmd(t, db.Client().Database("local"), bson.D{{Key: "collStats", Value: "oplog.rs"}})
		testenv.WantOK(t, stats, err)
		size, _ := stats.Lookup("size").AsInt64OK()
		maxSeen = max(maxSeen, size)
		if size > 64<<20 {
			t.Fatalf("after %d MB written the oplog holds %d bytes, over its 64 MB bound", written>>20, size)
		}
	}
	t.Logf("largest oplog size seen: %.1f MB of 64", float64(maxSeen)/(1<<20))
}
