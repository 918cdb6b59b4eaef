package exec

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/storage"
)

// BenchmarkSortMerge merges ten index scans of 5,000 keys each (the
// recent-n plan's SORT_MERGE over {cat: 1, ts: -1}), all results.
func BenchmarkSortMerge(b *testing.B) {
	db, err := storage.Open(b.TempDir(), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const cats = 10
	bt := db.NewBatch()
	for rid := uint64(1); rid <= 50000; rid++ {
		ks := keystring.AppendValue(nil, i32(int32(rid*7919%cats)), false)
		ks = keystring.AppendValue(ks, i32(int32(rid)), true)
		if err := storage.SetIndexEntry(bt, testIndex, ks, storage.RecordID(rid), nil); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := db.Commit(bt); err != nil {
		b.Fatal(err)
	}
	ix := &plan.Index{ID: testIndex, Name: "cat_1_ts_-1",
		KeyPattern: bsoncore.NewDocumentBuilder().AppendInt32("cat", 1).AppendInt32("ts", -1).Build(),
		Fields:     []plan.Field{{Path: "cat"}, {Path: "ts", Desc: true}}}
	r := db.Reader()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var scans []*IxScan
		var bounds [][]plan.FieldBounds
		for c := int32(0); c < cats; c++ {
			fb := []plan.FieldBounds{{Path: "cat", OIL: plan.OIL{{Lo: i32(c), Hi: i32(c), LoInc: true, HiInc: true}}}, {Path: "ts", Desc: true, OIL: plan.FullOIL()}}
			bounds = append(bounds, fb)
			scans = append(scans, NewIxScan(r, ix, fb, 1, false, false))
		}
		sm := NewSortMerge(scans, bounds, 1, nil, false, false, false)
		n := 0
		for {
			st, _, err := sm.Work()
			if err != nil {
				b.Fatal(err)
			}
			if st == EOF {
				break
			}
			if st == Advanced {
				n++
			}
		}
		sm.Close()
		if n != 50000 {
			b.Fatalf("%d results", n)
		}
	}
}
