package storage

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestGroupCommit(t *testing.T) {
	db, err := Open(t.TempDir(), Options{SyncInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const writers, each = 16, 20
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if err := commitOne(db, appendRecordKey(nil, 1, RecordID(uint64(w*each+i+1))), []byte("x"), true); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	st := db.Stats()
	if st.Commits != writers*each {
		t.Fatalf("commits = %d", st.Commits)
	}
	if st.Syncs >= st.Commits {
		t.Fatalf("syncs %d not fewer than acknowledged writes %d", st.Syncs, st.Commits)
	}
	t.Logf("commits=%d syncs=%d", st.Commits, st.Syncs)
}

func TestCursorsAndFindIndexKey(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := db.NewBatch()
	for i := uint64(1); i <= 5; i++ {
		b.pb.Set(appendRecordKey(nil, 7, RecordID(i)), []byte(fmt.Sprint(i)), nil)
		b.pb.Set(appendIndexKey(nil, 9, []byte{byte('a' + i%2)}, i), nil, nil)
	}
	b.pb.Set(appendIndexKey(nil, 9, []byte("ab"), 6), nil, nil)
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if a, _ := OpenRecordIDs(db.Reader(), 7); a.Peek() != 6 {
		t.Fatalf("next record id = %d, want 6", a.Peek())
	}
	c, _ := NewRecordCursor(db.Reader(), 7, true)
	var got []uint64
	for id, _, ok := c.Next(); ok; id, _, ok = c.Next() {
		got = append(got, uint64(id))
	}
	c.Close()
	if fmt.Sprint(got) != "[5 4 3 2 1]" {
		t.Fatalf("reverse = %v", got)
	}
	var ids []uint64
	var probe IndexProbe
	if err := probe.Open(db.Reader()); err != nil {
		t.Fatal(err)
	}
	err = probe.Find(9, []byte("a"), func(r RecordID) bool { ids = append(ids, uint64(r)); return true })
	probe.Close()
	if err != nil || fmt.Sprint(ids) != "[2 4]" {
		t.Fatalf("IndexProbe.Find = %v %v", ids, err)
	}
	ic, _ := NewIndexCursor(db.Reader(), 9, []byte("b"), nil, false)
	ids = nil
	for _, id, _, ok := ic.Next(); ok; _, id, _, ok = ic.Next() {
		ids = append(ids, id)
	}
	ic.Close()
	if fmt.Sprint(ids) != "[1 3 5]" {
		t.Fatalf("index cursor = %v", ids)
	}
}
