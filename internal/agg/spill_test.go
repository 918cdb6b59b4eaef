package agg_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// sameExact compares two result lists document by document, numeric types
// included.
func sameExact(t *testing.T, got, want []bsoncore.Document) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d documents, want %d", len(got), len(want))
	}
	for i := range got {
		if string(got[i]) != string(want[i]) {
			t.Fatalf("document %d differs\ngot:  %s\nwant: %s", i, got[i], want[i])
		}
	}
}

// TestGroupSpillBounded checks that $group keeps its table within the
// memory limit once it spills (groups already in memory are written out
// too), for many keys, two keys and a constant _id, and that the results
// equal the in-memory results for every accumulator kind.
func TestGroupSpillBounded(t *testing.T) {
	const n, limit = 3000, 16 << 10
	cat := loadNumbers(t, n, 600)
	accs := `"n":{"$sum":1},"total":{"$sum":"$v"},"avg":{"$avg":"$v"},"big":{"$sum":{"$toLong":"$v"}},` +
		`"dec":{"$sum":{"$toDecimal":"$v"}},"mn":{"$min":"$v"},"mx":{"$max":"$v"},"f":{"$first":"$v"},"l":{"$last":"$v"},` +
		`"set":{"$addToSet":{"$mod":["$v",5]}},"sd":{"$stdDevPop":"$v"},"sds":{"$stdDevSamp":"$v"},` +
		`"mo":{"$mergeObjects":{"last":"$v"}},"top":{"$top":{"sortBy":{"v":-1},"output":"$v"}},` +
		`"bot":{"$bottomN":{"n":2,"sortBy":{"v":-1},"output":"$v"}},"fn":{"$firstN":{"n":2,"input":"$v"}},` +
		`"ln":{"$lastN":{"n":2,"input":"$v"}},"mxn":{"$maxN":{"n":2,"input":"$v"}}`
	for _, tc := range []struct {
		name, id string
		push     bool
	}{
		{"many keys", `"$k"`, false},
		{"two keys with $push", `{"$mod":["$k",2]}`, true},
		{"constant _id with $push", `null`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			extra := ""
			if tc.push {
				extra = `,"vs":{"$push":{"v":"$v","pad":"$pad"}}`
			}
			pipeline := `[{"$group":{"_id":` + tc.id + `,` + accs + extra + `}},{"$sort":{"_id":1}}]`
			want, err := runPipeline(t, cat, "nums", pipeline, runOpts{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = runPipeline(t, cat, "nums", pipeline, runOpts{memLimit: limit})
			wantCode(t, err, errs.QueryExceededMemoryLimitNoDiskUseAllowed)
			before := statsOf(cat).SpilledRuns.Load()
			statsOf(cat).PeakGroupMem.Store(0)
			got, err := runPipeline(t, cat, "nums", pipeline, runOpts{memLimit: limit, allowDiskUse: true})
			if err != nil {
				t.Fatal(err)
			}
			if statsOf(cat).SpilledRuns.Load()-before < 2 {
				t.Fatalf("spilled %d runs, want several", statsOf(cat).SpilledRuns.Load()-before)
			}
			// One document's worth of state may push the table past the
			// limit before it is spilled, never more.
			if p := statsOf(cat).PeakGroupMem.Load(); p > limit+2048 {
				t.Fatalf("group table peaked at %d bytes, limit %d", p, limit)
			}
			// $stdDev is a float computation whose merge order differs
			// from the in-memory fold: compare it approximately.
			for i := range want {
				for _, f := range []string{"sd", "sds"} {
					a, b := bsonutil.AsFloat64(got[i].Lookup(f)), bsonutil.AsFloat64(want[i].Lookup(f))
					if d := a - b; d > 1e-6*b || d < -1e-6*b {
						t.Fatalf("group %d %s: got %v want %v", i, f, a, b)
					}
				}
			}
			strip := func(ds []bsoncore.Document) []bsoncore.Document {
				out := make([]bsoncore.Document, len(ds))
				for i, d := range ds {
					out[i] = without(d, "sd", "sds")
				}
				return out
			}
			sameExact(t, strip(got), strip(want))
		})
	}
}

// without drops fields from a document.
func without(d bsoncore.Document, names ...string) bsoncore.Document {
	idx, out := bsoncore.AppendDocumentStart(nil)
	els, _ := d.Elements()
next:
	for _, el := range els {
		for _, n := range names {
			if el.Key() == n {
				continue next
			}
		}
		out = append(out, el...)
	}
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out
}

// TestPushLimit checks $push's own bound (internalQueryMaxPushBytes): a
// single group's array cannot be spilled in parts, so past it the stage
// fails with ExceededMemoryLimit (146), with or without allowDiskUse.
func TestPushLimit(t *testing.T) {
	cat := loadNumbers(t, 500, 1)
	cat.E.Params().MaxPushBytes.Store(8 << 10)
	_, err := runPipeline(t, cat, "nums", `[{"$group":{"_id":null,"vs":{"$push":"$pad"}}}]`, runOpts{allowDiskUse: true})
	wantCode(t, err, errs.ExceededMemoryLimit)
	if !strings.Contains(err.Error(), "$push used too much memory and cannot spill to disk. Memory limit: 8192 bytes") {
		t.Fatalf("message: %v", err)
	}
}

// TestBlockingStagesSpill checks $bucketAuto, $sample and $facet against
// the memory limit: 292 without allowDiskUse, spilled runs and the same
// results with it.
func TestBlockingStagesSpill(t *testing.T) {
	const n, limit = 2000, 16 << 10
	cat := loadNumbers(t, n, 37)
	t.Run("$bucketAuto", func(t *testing.T) {
		pipeline := `[{"$bucketAuto":{"groupBy":"$k","buckets":5,"output":{"n":{"$sum":1},"first":{"$min":"$v"},"ks":{"$addToSet":"$k"}}}}]`
		want, err := runPipeline(t, cat, "nums", pipeline, runOpts{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = runPipeline(t, cat, "nums", pipeline, runOpts{memLimit: limit})
		wantCode(t, err, errs.QueryExceededMemoryLimitNoDiskUseAllowed)
		before := statsOf(cat).SpilledRuns.Load()
		got, err := runPipeline(t, cat, "nums", pipeline, runOpts{memLimit: limit, allowDiskUse: true})
		if err != nil {
			t.Fatal(err)
		}
		if statsOf(cat).SpilledRuns.Load()-before < 2 {
			t.Fatal("$bucketAuto did not spill")
		}
		sameExact(t, got, want)
		total := 0
		for i, d := range want {
			total += int(d.Lookup("n").Int32())
			if i > 0 && bsonutil.Compare(want[i-1].Lookup("_id", "max"), d.Lookup("_id", "min")) != 0 {
				t.Fatalf("bucket %d: min is not the previous max", i)
			}
		}
		if total != n || len(want) != 5 {
			t.Fatalf("%d buckets holding %d documents", len(want), total)
		}
	})
	t.Run("$sample", func(t *testing.T) {
		pipeline := `[{"$sample":{"size":1500}},{"$project":{"_id":1}}]`
		_, err := runPipeline(t, cat, "nums", pipeline, runOpts{memLimit: limit})
		wantCode(t, err, errs.QueryExceededMemoryLimitNoDiskUseAllowed)
		before := statsOf(cat).SpilledRuns.Load()
		got, err := runPipeline(t, cat, "nums", pipeline, runOpts{memLimit: limit, allowDiskUse: true})
		if err != nil {
			t.Fatal(err)
		}
		if statsOf(cat).SpilledRuns.Load() == before {
			t.Fatal("$sample did not spill")
		}
		checkSample(t, got, 1500, n)
		// A small sample fits in memory whatever the input size.
		got, err = runPipeline(t, cat, "nums", `[{"$sample":{"size":10}}]`, runOpts{memLimit: limit})
		if err != nil {
			t.Fatal(err)
		}
		checkSample(t, got, 10, n)
	})
	t.Run("$facet", func(t *testing.T) {
		pipeline := `[{"$facet":{"count":[{"$count":"n"}],"top":[{"$sort":{"v":-1}},{"$limit":2},{"$project":{"_id":1}}]}}]`
		_, err := runPipeline(t, cat, "nums", pipeline, runOpts{memLimit: limit})
		wantCode(t, err, errs.QueryExceededMemoryLimitNoDiskUseAllowed)
		before := statsOf(cat).SpilledRuns.Load()
		got, err := runPipeline(t, cat, "nums", pipeline, runOpts{memLimit: limit, allowDiskUse: true})
		if err != nil {
			t.Fatal(err)
		}
		if statsOf(cat).SpilledRuns.Load() == before {
			t.Fatal("$facet did not spill")
		}
		sameDocs(t, got, `[{"count":[{"n":2000}],"top":[{"_id":1999},{"_id":1998}]}]`, false)
	})
}

// checkSample checks that docs are size distinct documents of the
// collection's n.
func checkSample(t *testing.T, docs []bsoncore.Document, size, n int) {
	t.Helper()
	if len(docs) != size {
		t.Fatalf("sample has %d documents, want %d", len(docs), size)
	}
	seen := map[int32]bool{}
	for _, d := range docs {
		id := d.Lookup("_id").Int32()
		if id < 0 || int(id) >= n || seen[id] {
			t.Fatalf("bad or repeated _id %d in sample", id)
		}
		seen[id] = true
	}
}

// TestSpillDirCleaned checks that spill files live in the given temporary
// directory and are gone once the pipeline is done.
func TestSpillDirCleaned(t *testing.T) {
	cat := loadNumbers(t, 2000, 500)
	dir := filepath.Join(t.TempDir(), "_tmp")
	before := statsOf(cat).SpilledRuns.Load()
	if _, err := runPipelineIn(t, cat, "nums", `[{"$group":{"_id":"$k","vs":{"$push":"$v"}}}]`, dir); err != nil {
		t.Fatal(err)
	}
	if statsOf(cat).SpilledRuns.Load() == before {
		t.Fatal("nothing spilled")
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("spill directory: %v", err)
	}
	if len(ents) != 0 {
		t.Fatalf("%d spill files left behind", len(ents))
	}
}
