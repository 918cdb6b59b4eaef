package storage

import (
	"slices"
	"testing"
)

// probeFind returns the records of keystring ks in index id through p.
func probeFind(t *testing.T, p *IndexProbe, id uint64, ks string) []RecordID {
	t.Helper()
	var rids []RecordID
	if err := p.Find(id, []byte(ks), func(r RecordID) bool { rids = append(rids, r); return true }); err != nil {
		t.Fatal(err)
	}
	return rids
}

// TestIndexProbeGaps: a probe over the DB keeping gaps answers a
// keystring between the one it last sought and the next entry without a
// seek, and answers every keystring as a seek would.
func TestIndexProbeGaps(t *testing.T) {
	db := openTestDB(t)
	b := db.NewBatch()
	entries := map[string]RecordID{"b10": 1, "b20": 2, "b30": 3, "b3": 4, "c10": 5}
	for ks, rid := range entries {
		if err := SetIndexEntry(b, 7, []byte(ks), rid, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Another index, after index 7's entries: not a next entry of it.
	if err := SetIndexEntry(b, 8, []byte("a"), 9, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	var p IndexProbe
	if err := p.Open(db.Reader()); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.KeepGaps()
	steps := []struct {
		ks    string
		want  []RecordID
		seeks int // the probe's seeks after this step
	}{
		{"b11", nil, 1},           // sought: the gap (b11, b20)
		{"b12", nil, 1},           // in the gap
		{"b19", nil, 1},           // in the gap
		{"b20", []RecordID{2}, 2}, // the gap's end is an entry: sought
		{"b25", nil, 2},           // in (b20, b3): found, b20 starts a gap too
		{"b26", nil, 2},           //
		{"b30", []RecordID{3}, 3}, // above b3, the gap's end
		{"b301", nil, 4},          // an extension of the gap's start
		{"b31", nil, 4},           // in (b301, c10)
		{"b9", nil, 4},            //
		{"c10", []RecordID{5}, 5}, //
		{"c11", nil, 5},           // no entry of index 7 after c10
		{"zz", nil, 5},            // (index 8's entry is not index 7's)
		{"b10", []RecordID{1}, 6}, // below the gap
		{"b101", nil, 7},          // an extension of the gap's start
		{"b0", nil, 8},            //
	}
	for _, s := range steps {
		if got := probeFind(t, &p, 7, s.ks); !slices.Equal(got, s.want) {
			t.Fatalf("Find(%q) = %v, want %v", s.ks, got, s.want)
		}
		if p.seeks != s.seeks {
			t.Fatalf("after Find(%q): %d seeks, want %d", s.ks, p.seeks, s.seeks)
		}
	}
	// A gap is of one index.
	if got := probeFind(t, &p, 8, "a"); !slices.Equal(got, []RecordID{9}) {
		t.Fatalf("index 8: Find(a) = %v", got)
	}
	// An entry committed after the probe opened is in neither its seeks'
	// view nor its gaps'; reopened, the probe finds it.
	b = db.NewBatch()
	if err := SetIndexEntry(b, 7, []byte("b15"), 6, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	probeFind(t, &p, 7, "b11")
	if got := probeFind(t, &p, 7, "b15"); got != nil {
		t.Fatalf("the open probe saw a later entry: %v", got)
	}
	if err := p.Open(db.Reader()); err != nil {
		t.Fatal(err)
	}
	p.KeepGaps()
	if got := probeFind(t, &p, 7, "b15"); !slices.Equal(got, []RecordID{6}) {
		t.Fatalf("reopened: Find(b15) = %v", got)
	}
}

// TestIndexProbeBatchNoGaps: over a batch, whose view can change, a
// probe asked to keep gaps keeps none: every Find seeks.
func TestIndexProbeBatchNoGaps(t *testing.T) {
	db := openTestDB(t)
	b := db.NewIndexedBatch()
	defer b.Close()
	for ks, rid := range map[string]RecordID{"b10": 1, "b20": 2} {
		if err := SetIndexEntry(b, 7, []byte(ks), rid, nil); err != nil {
			t.Fatal(err)
		}
	}
	var p IndexProbe
	if err := p.Open(b.Reader()); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.KeepGaps()
	for i, ks := range []string{"b11", "b12", "b20"} {
		got := probeFind(t, &p, 7, ks)
		if ks == "b20" && !slices.Equal(got, []RecordID{2}) || ks != "b20" && got != nil {
			t.Fatalf("Find(%s) = %v", ks, got)
		}
		if p.seeks != i+1 {
			t.Fatalf("after Find(%s): %d seeks", ks, p.seeks)
		}
	}
}
