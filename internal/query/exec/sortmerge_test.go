package exec

import (
	"bytes"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/storage"
)

// TestSortMergeOrder merges scans whose sort keys tie across children
// and within one, forward and backward: SORT_MERGE returns the least key
// first and, among equal keys, the head of the lowest-numbered child, and
// its counters are those of a merge that scans every head for the least.
func TestSortMergeOrder(t *testing.T) {
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := db.NewBatch()
	const groups = 7
	for rid := uint64(1); rid <= 3000; rid++ {
		g := int32(rid*7919) % groups
		ts := int32(rid % 97) // many ties, across and within groups
		ks := keystring.AppendValue(nil, i32(g), false)
		ks = keystring.AppendValue(ks, i32(ts), true)
		if err := storage.SetIndexEntry(b, testIndex, ks, storage.RecordID(rid), nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	ix := &plan.Index{ID: testIndex, Name: "g_1_ts_-1",
		KeyPattern: bsoncore.NewDocumentBuilder().AppendInt32("g", 1).AppendInt32("ts", -1).Build(),
		Fields:     []plan.Field{{Path: "g"}, {Path: "ts", Desc: true}}}
	r := db.Reader()
	for _, dir := range []int{1, -1} {
		for _, gs := range [][]int32{{3}, {0, 1}, {6, 2, 4, 0}, {0, 1, 2, 3, 4, 5, 6}} {
			var scans, ref []*IxScan
			var bounds [][]plan.FieldBounds
			for _, g := range gs {
				fb := []plan.FieldBounds{{Path: "g", OIL: plan.OIL{{Lo: i32(g), Hi: i32(g), LoInc: true, HiInc: true}}}, {Path: "ts", Desc: true, OIL: plan.FullOIL()}}
				bounds = append(bounds, fb)
				scans = append(scans, NewIxScan(r, ix, fb, dir, false, false))
				ref = append(ref, NewIxScan(r, ix, fb, dir, false, false))
			}
			sm := NewSortMerge(scans, bounds, 1, nil, dir < 0, false, false)
			want := linearMerge(t, ref, sm.skip, dir < 0)
			var got []uint64
			works, needTime := int64(0), int64(0)
			for {
				st, m, err := sm.Work()
				if err != nil {
					t.Fatal(err)
				}
				works++
				if st == NeedTime {
					needTime++
				}
				if st == EOF {
					break
				}
				if st == Advanced {
					got = append(got, m.RID)
				}
			}
			sm.Close()
			if len(got) != len(want.rids) {
				t.Fatalf("dir %d groups %v: %d results, want %d", dir, gs, len(got), len(want.rids))
			}
			for i := range got {
				if got[i] != want.rids[i] {
					t.Fatalf("dir %d groups %v: result %d is rid %d, want %d", dir, gs, i, got[i], want.rids[i])
				}
			}
			if works != want.works || needTime != want.needTime {
				t.Fatalf("dir %d groups %v: works %d needTime %d, want %d %d", dir, gs, works, needTime, want.works, want.needTime)
			}
		}
	}
}

type mergeRef struct {
	rids            []uint64
	works, needTime int64
}

// linearMerge is SORT_MERGE as a scan of every head for the least: it
// fills one missing head per call (NEED_TIME), then hands on the least
// head, the first child's among equal keys.
func linearMerge(t *testing.T, children []*IxScan, skip []int, reverse bool) mergeRef {
	heads := make([]*Member, len(children))
	keys := make([][]byte, len(children))
	eof := make([]bool, len(children))
	var out mergeRef
	for {
		out.works++
		filled := false
		for i, c := range children {
			if heads[i] != nil || eof[i] {
				continue
			}
			st, m, err := c.Work()
			if err != nil {
				t.Fatal(err)
			}
			switch st {
			case Advanced:
				heads[i] = m
				keys[i] = append(keys[i][:0], m.Key...)
			case EOF:
				eof[i] = true
			}
			filled = true
			break
		}
		if filled {
			out.needTime++
			continue
		}
		best := -1
		for i, h := range heads {
			if h == nil {
				continue
			}
			if best < 0 {
				best = i
				continue
			}
			c := bytes.Compare(keys[i][skip[i]:], keys[best][skip[best]:])
			if (c < 0 && !reverse) || (c > 0 && reverse) {
				best = i
			}
		}
		if best < 0 {
			for _, c := range children {
				c.Close()
			}
			return out
		}
		out.rids = append(out.rids, heads[best].RID)
		heads[best] = nil
	}
}
