package agg_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/lodedb/lode/internal/bsonutil"
)

// TestWindowStageRandom runs documents and range windows of random bounds
// over random partitions, in memory and with allowDiskUse at a 32 KiB
// limit (so partitions spill and windows read documents back from disk),
// and checks each output against the window computed directly.
func TestWindowStageRandom(t *testing.T) {
	cat := openCat(t)
	rng := rand.New(rand.NewSource(3))
	const n = 400
	var sb strings.Builder
	sb.WriteString("[")
	type doc struct{ id, k, v int }
	docs := make([]doc, n)
	for i := 0; i < n; i++ {
		docs[i] = doc{id: i * 2, k: rng.Intn(3), v: rng.Intn(100)}
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"_id": %d, "k": %d, "v": %d, "pad": "%s"}`, docs[i].id, docs[i].k, docs[i].v, strings.Repeat("x", 600))
	}
	sb.WriteString("]")
	insert(t, cat, "r", sb.String())
	byKey := map[int][]doc{}
	for _, d := range docs {
		byKey[d.k] = append(byKey[d.k], d)
	}
	bound := func(unb bool, x int) string {
		if unb {
			return `"unbounded"`
		}
		return fmt.Sprint(x)
	}
	spilled := statsOf(cat).SpilledRuns.Load()
	for trial := 0; trial < 24; trial++ {
		lo := rng.Intn(40) - 30
		hi := lo + rng.Intn(40)
		loUnb, hiUnb := rng.Intn(5) == 0, rng.Intn(5) == 0
		rangeWin := trial%2 == 1
		kind := "documents"
		if rangeWin {
			kind = "range"
		}
		pipeline := fmt.Sprintf(`[{"$setWindowFields": {"partitionBy": "$k", "sortBy": {"_id": 1}, "output": {
			"s": {"$sum": "$v", "window": {"%s": [%s, %s]}},
			"m": {"$max": "$v", "window": {"%s": [%s, %s]}},
			"c": {"$count": {}, "window": {"%s": [%s, %s]}}}}}]`,
			kind, bound(loUnb, lo), bound(hiUnb, hi), kind, bound(loUnb, lo), bound(hiUnb, hi), kind, bound(loUnb, lo), bound(hiUnb, hi))
		for _, o := range []runOpts{{}, {allowDiskUse: true, memLimit: 32 << 10}} {
			got, err := runPipeline(t, cat, "r", pipeline, o)
			if err != nil {
				t.Fatalf("%s %+v: %v", pipeline, o, err)
			}
			if len(got) != n {
				t.Fatalf("got %d documents", len(got))
			}
			pos := map[int]int{}
			for _, g := range got {
				k := int(g.Lookup("k").AsInt64())
				i := pos[k]
				pos[k]++
				part := byKey[k]
				if id := int(g.Lookup("_id").AsInt64()); id != part[i].id {
					t.Fatalf("order: _id %d at %d of partition %d, want %d", id, i, k, part[i].id)
				}
				sum, mx, cnt := 0, -1, 0
				for j, d := range part {
					in := false
					if rangeWin {
						in = (loUnb || d.id >= part[i].id+lo) && (hiUnb || d.id <= part[i].id+hi)
					} else {
						in = (loUnb || j >= i+lo) && (hiUnb || j <= i+hi)
					}
					if in {
						sum += d.v
						cnt++
						mx = max(mx, d.v)
					}
				}
				if s := g.Lookup("s").AsInt64(); s != int64(sum) {
					t.Fatalf("%s %+v: _id %d sum %d, want %d", pipeline, o, part[i].id, s, sum)
				}
				if c := g.Lookup("c").AsInt64(); c != int64(cnt) {
					t.Fatalf("%s %+v: _id %d count %d, want %d", pipeline, o, part[i].id, c, cnt)
				}
				m := g.Lookup("m")
				if cnt == 0 {
					if m.Type != 0x0A {
						t.Fatalf("%s: _id %d max %s, want null", pipeline, part[i].id, bsonutil.FormatValue(m, bsonutil.Style{}))
					}
				} else if m.AsInt64() != int64(mx) {
					t.Fatalf("%s %+v: _id %d max %d, want %d", pipeline, o, part[i].id, m.AsInt64(), mx)
				}
			}
		}
	}
	if statsOf(cat).SpilledRuns.Load() == spilled {
		t.Fatal("no run spilled at a 32 KiB limit")
	}
}
