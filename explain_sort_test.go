package lode_test

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// A blocking sort over its memory limit fails with 292 unless allowDiskUse,
// which spills to disk and still returns every document in order.
func TestBlockingSortMemoryLimit(t *testing.T) {
	_, db := open(t)
	coll := db.Collection("big")
	pad := strings.Repeat("x", 1000)
	insertBatches(t, coll, 3000, func(i int) any {
		return bson.D{{Key: "k", Value: (i * 7) % 3000}, {Key: "pad", Value: pad}}
	})
	setParam(t, db, "internalQueryMaxBlockingSortMemoryUsageBytes", 1<<20)
	defer setParam(t, db, "internalQueryMaxBlockingSortMemoryUsageBytes", 100<<20)
	_, err := coll.Find(ctx(t), bson.D{}, options.Find().SetSort(bson.D{{Key: "k", Value: 1}}))
	if err == nil {
		t.Fatal("no error over the sort memory limit")
	}
	if ce := cmdErr(t, err); ce.Code != 292 {
		t.Fatalf("code %d %s, want 292", ce.Code, ce.Message)
	}
	cur, err := coll.Find(ctx(t), bson.D{}, options.Find().SetSort(bson.D{{Key: "k", Value: 1}}).SetAllowDiskUse(true))
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(ctx(t), &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) != 3000 {
		t.Fatalf("%d docs", len(docs))
	}
	for i, d := range docs {
		if d.Lookup("k").Int32() != int32(i) {
			t.Fatalf("doc %d has k %v", i, d.Lookup("k"))
		}
	}
	res := explain(t, db, bson.D{{Key: "find", Value: "big"}, {Key: "sort", Value: bson.D{{Key: "k", Value: 1}}}, {Key: "allowDiskUse", Value: true}}, "executionStats")
	s := findStage(res.Lookup("executionStats", "executionStages").Document(), "SORT")
	if s == nil || !s.Lookup("usedDisk").Boolean() {
		t.Errorf("SORT stage %v, want usedDisk", s)
	}
}
