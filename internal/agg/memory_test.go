package agg_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg/aggengine"
	"github.com/lodedb/lode/internal/errs"
)

// loadNumbers inserts n documents {_id: i, k: i % keys, v: i, pad: "..."}.
func loadNumbers(t *testing.T, n, keys int) *aggengine.Catalog {
	cat := openCat(t)
	docs := make([]bsoncore.Document, 0, n)
	pad := strings.Repeat("x", 100)
	for i := 0; i < n; i++ {
		docs = append(docs, bsoncore.NewDocumentBuilder().AppendInt32("_id", int32(i)).AppendInt32("k", int32(i%keys)).AppendInt32("v", int32(i)).AppendString("pad", pad).Build())
	}
	if err := cat.Insert(context.Background(), testDB, "nums", docs); err != nil {
		t.Fatal(err)
	}
	return cat
}

func TestGroupMemoryLimit(t *testing.T) {
	const n, keys = 3000, 600
	cat := loadNumbers(t, n, keys)
	pipeline := `[{"$group":{"_id":"$k","n":{"$sum":1},"total":{"$sum":"$v"},"vs":{"$push":"$v"}}},{"$sort":{"_id":1}}]`
	_, err := runPipeline(t, cat, "nums", pipeline, runOpts{memLimit: 16 << 10})
	wantCode(t, err, errs.QueryExceededMemoryLimitNoDiskUseAllowed)
	if !strings.Contains(err.Error(), "Exceeded memory limit for $group, but didn't allow external spilling; pass allowDiskUse:true to opt in.") {
		t.Fatalf("message: %v", err)
	}
	before := statsOf(cat).SpilledRuns.Load()
	got, err := runPipeline(t, cat, "nums", pipeline, runOpts{memLimit: 16 << 10, allowDiskUse: true})
	if err != nil {
		t.Fatal(err)
	}
	if statsOf(cat).SpilledRuns.Load() == before {
		t.Fatal("no run was spilled")
	}
	// Group k holds v = k, k+keys, k+2*keys, ... (n/keys values, in order).
	var want strings.Builder
	want.WriteString("[")
	per := n / keys
	for k := 0; k < keys; k++ {
		if k > 0 {
			want.WriteString(",")
		}
		total := 0
		var vs []string
		for j := 0; j < per; j++ {
			total += k + j*keys
			vs = append(vs, fmt.Sprint(k+j*keys))
		}
		fmt.Fprintf(&want, `{"_id":%d,"n":%d,"total":%d,"vs":[%s]}`, k, per, total, strings.Join(vs, ","))
	}
	want.WriteString("]")
	sameDocs(t, got, want.String(), false)
}

func TestSortMemoryLimit(t *testing.T) {
	const n = 3000
	cat := loadNumbers(t, n, 7)
	// $addFields keeps the $sort out of the pushed-down query.
	pipeline := `[{"$addFields":{"neg":{"$subtract":[0,"$v"]}}},{"$sort":{"k":1,"neg":1}},{"$project":{"_id":1}}]`
	_, err := runPipeline(t, cat, "nums", pipeline, runOpts{memLimit: 32 << 10})
	wantCode(t, err, errs.QueryExceededMemoryLimitNoDiskUseAllowed)
	before := statsOf(cat).SpilledRuns.Load()
	got, err := runPipeline(t, cat, "nums", pipeline, runOpts{memLimit: 32 << 10, allowDiskUse: true})
	if err != nil {
		t.Fatal(err)
	}
	if statsOf(cat).SpilledRuns.Load()-before < 2 {
		t.Fatal("sort did not spill several runs")
	}
	if len(got) != n {
		t.Fatalf("got %d documents", len(got))
	}
	// Expected order: k ascending, then v descending.
	i := 0
	for k := 0; k < 7; k++ {
		var ids []int
		for v := n - 1; v >= 0; v-- {
			if v%7 == k {
				ids = append(ids, v)
			}
		}
		for _, id := range ids {
			if g := got[i].Lookup("_id").Int32(); int(g) != id {
				t.Fatalf("position %d: got _id %d, want %d", i, g, id)
			}
			i++
		}
	}
	// A top-k sort holds only k documents and needs no disk.
	got, err = runPipeline(t, cat, "nums", `[{"$addFields":{"x":1}},{"$sort":{"v":-1}},{"$limit":3},{"$project":{"_id":1}}]`, runOpts{memLimit: 32 << 10})
	if err != nil {
		t.Fatal(err)
	}
	sameDocs(t, got, `[{"_id":2999},{"_id":2998},{"_id":2997}]`, false)
}
