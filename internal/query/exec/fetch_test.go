package exec

import (
	"bytes"
	"math/rand"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/storage"
)

const (
	testColl  = 7
	testIndex = 8
)

func i32(v int32) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, v)}
}

// fetchFixture stores n documents {_id: rid, g: rid%3, ts: perm[rid]} and
// the index {g: 1, ts: -1} over them, plus index entries for the records
// in gone, which have no document (deleted between scan and fetch).
func fetchFixture(t testing.TB, n int, gone []uint64) (storage.Reader, *plan.Index) {
	t.Helper()
	r, _, ix := fetchFixtureSnap(t, n, gone)
	return r, ix
}

// fetchFixtureSnap is fetchFixture that also returns a snapshot of the
// data, whose batched FETCH reads through the record cache (caching
// starts at once).
func fetchFixtureSnap(t testing.TB, n int, gone []uint64) (latest, snap storage.Reader, ix *plan.Index) {
	t.Helper()
	db, err := storage.Open(t.TempDir(), storage.Options{RecordCacheQuiet: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	perm := rand.New(rand.NewSource(1)).Perm(n + len(gone))
	b := db.NewBatch()
	addEntry := func(rid uint64) {
		ks := keystring.AppendValue(nil, i32(int32(rid%3)), false)
		ks = keystring.AppendValue(ks, i32(int32(perm[rid-1])), true)
		if err := storage.SetIndexEntry(b, testIndex, ks, storage.RecordID(rid), nil); err != nil {
			t.Fatal(err)
		}
	}
	for rid := uint64(1); rid <= uint64(n); rid++ {
		doc := bsoncore.NewDocumentBuilder().AppendInt64("_id", int64(rid)).
			AppendInt32("g", int32(rid%3)).AppendInt32("ts", int32(perm[rid-1])).Build()
		if err := storage.SetRecord(b, testColl, storage.RecordID(rid), doc); err != nil {
			t.Fatal(err)
		}
		addEntry(rid)
	}
	for _, rid := range gone {
		addEntry(rid)
	}
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	ix = &plan.Index{ID: testIndex, Name: "g_1_ts_-1",
		KeyPattern: bsoncore.NewDocumentBuilder().AppendInt32("g", 1).AppendInt32("ts", -1).Build(),
		Fields:     []plan.Field{{Path: "g"}, {Path: "ts", Desc: true}}}
	s := db.NewSnapshot()
	t.Cleanup(func() { s.Close() })
	return db.Reader(), s.Reader(), ix
}

type fetched struct {
	rids []uint64
	docs [][]byte
}

// runFetch builds IXSCAN > FETCH over bounds, batched or not, and drains
// up to limit results (0: all), keeping every document to check that
// earlier results stay valid.
func runFetch(t *testing.T, r storage.Reader, ix *plan.Index, bounds []plan.FieldBounds, dir int, filter string, batch int, limit int64) (fetched, *Fetch) {
	t.Helper()
	var f *query.Filter
	if filter != "" {
		var err error
		var d bsoncore.Document
		d = mustDoc(t, filter)
		if f, err = query.Parse(d); err != nil {
			t.Fatal(err)
		}
	}
	scan := NewIxScan(r, ix, bounds, dir, false, false)
	fe := NewFetch(scan, r, testColl, f, nil, false)
	fe.SetBatch(batch, limit)
	defer fe.Close()
	var out fetched
	for limit == 0 || int64(len(out.rids)) < limit {
		st, m, err := fe.Work()
		if err != nil {
			t.Fatal(err)
		}
		if st == EOF {
			break
		}
		if st == Advanced {
			out.rids = append(out.rids, m.RID)
			out.docs = append(out.docs, m.Doc)
		}
	}
	return out, fe
}

func mustDoc(t *testing.T, s string) bsoncore.Document {
	t.Helper()
	switch s {
	case "ts<500":
		return bsoncore.NewDocumentBuilder().AppendDocument("ts", bsoncore.NewDocumentBuilder().AppendInt32("$lt", 500).Build()).Build()
	}
	t.Fatalf("unknown filter %q", s)
	return nil
}

func TestFetchBatchedOrder(t *testing.T) {
	gone := []uint64{2001, 2002, 2003}
	r, snap, ix := fetchFixtureSnap(t, 2000, gone)
	full := []plan.FieldBounds{{Path: "g", OIL: plan.FullOIL()}, {Path: "ts", Desc: true, OIL: plan.FullOIL()}}
	gRange := plan.OIL{{Lo: i32(0), Hi: i32(1), LoInc: true, HiInc: true}}
	tsRange := plan.OIL{{Lo: i32(100), Hi: i32(1500), LoInc: true, HiInc: false}}
	ranged := []plan.FieldBounds{{Path: "g", OIL: gRange}, {Path: "ts", Desc: true, OIL: tsRange}}
	cases := []struct {
		name   string
		bounds []plan.FieldBounds
		dir    int
		filter string
		limit  int64
	}{
		{"forward", full, 1, "", 0},
		{"backward", full, -1, "", 0},
		{"checked field (NEED_TIMEs)", ranged, 1, "", 0},
		{"checked field backward, filter", ranged, -1, "ts<500", 0},
		{"limit", full, -1, "", 7},
		{"limit, filter", full, 1, "ts<500", 300},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, one := runFetch(t, r, ix, c.bounds, c.dir, c.filter, 1, c.limit)
			got, batched := runFetch(t, r, ix, c.bounds, c.dir, c.filter, MaxFetchBatch, c.limit)
			// A snapshot's batched FETCH through the record cache: the
			// first run fills it, the second reads it.
			for range 2 {
				cached, cb := runFetch(t, snap, ix, c.bounds, c.dir, c.filter, MaxFetchBatch, c.limit)
				sameFetch(t, "cached", cached, got, cb, batched)
			}
			if len(want.rids) == 0 {
				t.Fatal("no results")
			}
			if len(got.rids) != len(want.rids) {
				t.Fatalf("batched returned %d results, unbatched %d", len(got.rids), len(want.rids))
			}
			for i := range want.rids {
				if got.rids[i] != want.rids[i] || !bytes.Equal(got.docs[i], want.docs[i]) {
					t.Fatalf("result %d: batched rid %d %v, unbatched rid %d %v", i, got.rids[i], bsoncore.Document(got.docs[i]), want.rids[i], bsoncore.Document(want.docs[i]))
				}
				if id := bsoncore.Document(got.docs[i]).Lookup("_id").Int64(); uint64(id) != got.rids[i] {
					t.Fatalf("result %d: document %d under rid %d", i, id, got.rids[i])
				}
			}
			a, b := one.Stats(), batched.Stats()
			if a.Works != b.Works || a.Advanced != b.Advanced || a.NeedTime != b.NeedTime {
				t.Errorf("stats: batched %+v, unbatched %+v", *b, *a)
			}
			if one.docsExamined != batched.docsExamined {
				t.Errorf("docsExamined: batched %d, unbatched %d", batched.docsExamined, one.docsExamined)
			}
			if c.limit > 0 && c.filter == "" {
				// The consumer's limit caps the read-ahead: nothing is
				// read that the plan does not return.
				if k := batched.children[0].(*IxScan).keysExamined; k != c.limit {
					t.Errorf("keysExamined %d with limit %d", k, c.limit)
				}
			}
		})
	}
}

// sameFetch compares two batched FETCH runs: results and counters.
func sameFetch(t *testing.T, what string, got, want fetched, g, w *Fetch) {
	t.Helper()
	if len(got.rids) != len(want.rids) {
		t.Fatalf("%s: %d results, want %d", what, len(got.rids), len(want.rids))
	}
	for i := range want.rids {
		if got.rids[i] != want.rids[i] || !bytes.Equal(got.docs[i], want.docs[i]) {
			t.Fatalf("%s: result %d: rid %d %v, want rid %d %v", what, i, got.rids[i], bsoncore.Document(got.docs[i]), want.rids[i], bsoncore.Document(want.docs[i]))
		}
	}
	a, b := g.Stats(), w.Stats()
	if *a != *b || g.docsExamined != w.docsExamined {
		t.Fatalf("%s: stats %+v docsExamined %d, want %+v %d", what, *a, g.docsExamined, *b, w.docsExamined)
	}
}

func TestFetchBatchGrows(t *testing.T) {
	r, ix := fetchFixture(t, 600, nil)
	full := []plan.FieldBounds{{Path: "g", OIL: plan.FullOIL()}, {Path: "ts", Desc: true, OIL: plan.FullOIL()}}
	scan := NewIxScan(r, ix, full, 1, false, false)
	fe := NewFetch(scan, r, testColl, nil, nil, false)
	fe.SetBatch(MaxFetchBatch, 0)
	defer fe.Close()
	// The first result reads one record; the runs then double.
	wantKeys := []int64{1, 3, 3, 7, 7, 7, 7, 15}
	for i, k := range wantKeys {
		if st, _, err := fe.Work(); err != nil || st != Advanced {
			t.Fatalf("work %d: %v %v", i, st, err)
		}
		if got := scan.keysExamined; got != k {
			t.Fatalf("after result %d: %d keys read ahead, want %d", i+1, got, k)
		}
		if fe.docsExamined != int64(i+1) {
			t.Fatalf("after result %d: docsExamined %d", i+1, fe.docsExamined)
		}
	}
}
