package profiler_test

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/internal/mongolog"
	"github.com/lodedb/lode/test/testenv"
)

// TestEmbeddedSlowLog opens an embedded Lode with
// lode.WithSlowOpThreshold(0) and a mongod-format logger: each command
// is logged once as "Slow query", with its figures.
func TestEmbeddedSlowLog(t *testing.T) {
	var buf testenv.LogBuffer
	log := slog.New(mongolog.NewHandler(&buf, slog.LevelInfo))
	_, db := testenv.Open(t, lode.WithSlowOpThreshold(0), lode.WithLogger(log))
	ctx := testenv.Ctx(t)
	coll := db.Collection("emb")
	testenv.InsertBatches(t, coll, 30, func(i int) any { return bson.D{{Key: "_id", Value: i}, {Key: "x", Value: i % 3}} })
	if err := coll.FindOne(ctx, bson.D{{Key: "x", Value: 2}, {Key: "_id", Value: bson.D{{Key: "$gt", Value: 20}}}}).Err(); err != nil && err != mongo.ErrNoDocuments {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		attr, _ := rec["attr"].(map[string]any)
		if rec["msg"] != "Slow query" || attr["ns"] != "test.emb" {
			continue
		}
		if cmd, _ := attr["command"].(map[string]any); cmd["find"] != "emb" {
			continue
		}
		n++
		if attr["planSummary"] != "IXSCAN { _id: 1 }" || attr["keysExamined"] != float64(3) || attr["docsExamined"] != float64(3) || attr["nreturned"] != float64(1) {
			t.Errorf("attr: %v", attr)
		}
	}
	if n != 1 {
		t.Fatalf("want one Slow query line for the find, got %d:\n%s", n, buf.String())
	}
}
