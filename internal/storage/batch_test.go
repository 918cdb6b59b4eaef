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
