package storage

import "testing"

// A batch closed twice (Commit closes it, and its owner's cleanup may
// close it again) must not touch a batch opened in between.
func TestBatchDoubleCloseLeavesOthersAlone(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b1 := db.NewBatch()
	if _, err := db.Commit(b1); err != nil {
		t.Fatal(err)
	}
	b2 := db.NewBatch()
	if err := SetMeta(b2, "x", []byte("kept")); err != nil {
		t.Fatal(err)
	}
	b1.Close()
	if _, err := db.Commit(b2); err != nil {
		t.Fatal(err)
	}
	v, ok, err := db.GetMeta("x", nil)
	if err != nil || !ok || string(v) != "kept" {
		t.Fatalf("the second batch's write: %q, %v, %v", v, ok, err)
	}
}

// A batch that groups its index entries (GroupIndexEntries) commits the
// same writes as one that does not: every entry set, an entry set and
// then removed absent, entries written before an index's removal gone,
// and Len and Count covering the grouped entries before the commit.
func TestGroupedIndexEntries(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := db.NewBatch()
	b.GroupIndexEntries()
	for rid := RecordID(1); rid <= 50; rid++ {
		if err := SetRecord(b, 7, rid, []byte{5, 0, 0, 0, 0}); err != nil {
			t.Fatal(err)
		}
		for _, ix := range []uint64{3, 2} {
			if err := SetIndexEntry(b, ix, []byte{byte(rid)}, rid, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Set then removed in the same batch: absent.
	if err := DeleteIndexEntry(b, 2, []byte{10}, 10); err != nil {
		t.Fatal(err)
	}
	if got := b.Count(); got != 50*3+1 {
		t.Errorf("Count %d before the commit, want %d", got, 50*3+1)
	}
	if b.Len() < 50*3*10 {
		t.Errorf("Len %d does not cover the grouped entries", b.Len())
	}
	// Index 4's entries, then its removal: the removal wins.
	if err := SetIndexEntry(b, 4, []byte{1}, 1, nil); err != nil {
		t.Fatal(err)
	}
	if err := DeleteIndexEntries(b, 4); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	r := db.Reader()
	for rid := RecordID(1); rid <= 50; rid++ {
		for _, ix := range []uint64{2, 3} {
			ok, err := HasIndexEntry(r, ix, []byte{byte(rid)}, rid)
			if err != nil {
				t.Fatal(err)
			}
			if want := !(ix == 2 && rid == 10); ok != want {
				t.Errorf("index %d entry %d present %v, want %v", ix, rid, ok, want)
			}
		}
	}
	if ok, _ := HasIndexEntry(r, 4, []byte{1}, 1); ok {
		t.Error("an entry written before its index's removal survived it")
	}
}
