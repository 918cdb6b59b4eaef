package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Once an index is in sstables the collection-scan preference estimates
// the share of the index within bounds from Pebble's on-disk sizes: it
// needs no document count (so it holds after a restart, before anything
// has counted the collection) and reads no keys.
func TestCollScanPreferenceFromDiskEstimate(t *testing.T) {
	dir := t.TempDir()
	e := openTest(t, dir)
	const n = 40000
	docs := make([]bson.D, 0, 1000)
	for i := 0; i < n; i++ {
		h := sha256.Sum256([]byte{byte(i), byte(i >> 8), byte(i >> 16)})
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "k", Value: hex.EncodeToString(h[:])}, {Key: "t", Value: i}})
		if len(docs) == cap(docs) {
			insert(t, e, "db", "c", docs...)
			docs = docs[:0]
		}
	}
	for _, f := range []string{"t", "k"} {
		if _, err := e.CreateIndex("db", "c", IndexSpec{Key: D(t, bson.D{{Key: f, Value: 1}})}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.db.Flush(); err != nil {
		t.Fatal(err)
	}
	e.Close()
	e = openTest(t, dir) // nothing has counted the collection yet
	plan := func(filter bson.D) (string, string) {
		t.Helper()
		out, err := e.Explain(context.Background(), "db", "c", ExplainSpec{Kind: ExplainFindOp, Find: FindSpec{Filter: D(t, filter)}, Verbosity: "queryPlanner"})
		if err != nil {
			t.Fatal(err)
		}
		wp := out.Lookup("queryPlanner", "winningPlan").Document()
		reason := ""
		if rej, ok := out.Lookup("queryPlanner", "rejectedPlans").ArrayOK(); ok {
			if vals, _ := rej.Values(); len(vals) > 0 {
				reason, _ = vals[0].Document().Lookup(RejectedReasonField).StringValueOK()
			}
		}
		return wp.Lookup("stage").StringValue(), reason
	}
	stage, reason := plan(bson.D{{Key: "t", Value: bson.D{{Key: "$gte", Value: 1000}, {Key: "$lt", Value: 39000}}}})
	if stage != "COLLSCAN" || !strings.Contains(reason, "on-disk size") {
		t.Fatalf("range over most of t: winning %s, rejectedReason %q; want COLLSCAN estimated from sizes", stage, reason)
	}
	if stage, _ := plan(bson.D{{Key: "t", Value: bson.D{{Key: "$gte", Value: 1000}, {Key: "$lt", Value: 9000}}}}); stage != "FETCH" {
		t.Fatalf("a fifth of t: winning %s, want FETCH over the index", stage)
	}
	// Hex keys spread uniformly: "0".."b" holds about 3/4 of the index,
	// "0".."4" about 5/16.
	if stage, _ := plan(bson.D{{Key: "k", Value: bson.D{{Key: "$lt", Value: "c"}}}}); stage != "COLLSCAN" {
		t.Fatalf("k < c: winning %s, want COLLSCAN", stage)
	}
	if stage, _ := plan(bson.D{{Key: "k", Value: bson.D{{Key: "$lt", Value: "5"}}}}); stage != "FETCH" {
		t.Fatalf("k < 5: winning %s, want FETCH", stage)
	}
}
