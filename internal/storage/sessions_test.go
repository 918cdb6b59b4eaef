package storage

import (
	"testing"
)

// DeleteSession removes the header and every statement record of one
// session, leaves the other sessions alone, and writes point deletions
// only: no range tombstone reaches the memtable, where it would slow every
// read of the keys there.
func TestDeleteSessionPointDeletes(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a, other := []byte("session-a"), []byte("session-b")
	b := db.NewBatch()
	for _, id := range [][]byte{a, other} {
		SetSession(b, id, []byte("header"))
		for stmt := int32(1); stmt <= 3; stmt++ {
			SetSessionStmt(b, id, 7, stmt, []byte("result"))
		}
	}
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	b = db.NewBatch()
	if err := DeleteSession(b, db.Reader(), a); err != nil {
		t.Fatal(err)
	}
	if n := b.pb.Count(); n != 4 {
		t.Fatalf("the batch holds %d operations, want 4 point deletions (a header, 3 statements)", n)
	}
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	stmts := func(id []byte) (n int) {
		if err := SessionStmts(db.Reader(), id, 7, func(int32, []byte) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, ok, _ := GetSession(db.Reader(), a, nil); ok || stmts(a) != 0 {
		t.Fatalf("session a: header left %v, %d statements left", ok, stmts(a))
	}
	if _, ok, _ := GetSession(db.Reader(), other, nil); !ok || stmts(other) != 3 {
		t.Fatalf("session b: header %v, %d statements; want both kept", ok, stmts(other))
	}
}
