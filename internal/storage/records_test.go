package storage

import (
	"fmt"
	"testing"
)

// recordsFixture stores records rids of collection 7 (document "d<rid>")
// and one record of collections 6 and 8 each, around it.
func recordsFixture(t *testing.T, rids []RecordID) *DB {
	t.Helper()
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b := db.NewBatch()
	for _, rid := range rids {
		if err := SetRecord(b, 7, rid, []byte(fmt.Sprint("d", rid))); err != nil {
			t.Fatal(err)
		}
	}
	SetRecord(b, 6, 1, []byte("other"))
	SetRecord(b, 8, 0, []byte("other"))
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestRecordCursorSeekExact reads sparse record ids (gaps well beyond
// the stepping distance and within it) in every order a FETCH uses.
func TestRecordCursorSeekExact(t *testing.T) {
	var rids []RecordID
	for _, r := range []RecordID{1, 2, 3, 5, 8, 40, 41, 100, 1000, 1 << 40, 1<<40 + 7, 1<<63 + 1} {
		rids = append(rids, r)
	}
	db := recordsFixture(t, rids)
	present := map[RecordID]bool{}
	for _, r := range rids {
		present[r] = true
	}
	probes := []RecordID{0, 1, 1, 2, 4, 5, 6, 39, 40, 41, 42, 73, 100, 999, 1000, 1001, 1 << 40, 1<<40 + 7, 1<<40 + 8, 1<<63 + 1, 1<<64 - 1}
	check := func(c *RecordCursor, rid RecordID) {
		t.Helper()
		doc, found, err := c.SeekExact(rid)
		if err != nil {
			t.Fatal(err)
		}
		if found != present[rid] {
			t.Fatalf("SeekExact(%d) found %v", rid, found)
		}
		if found && string(doc) != fmt.Sprint("d", rid) {
			t.Fatalf("SeekExact(%d) = %q", rid, doc)
		}
	}
	c, err := NewRecordCursor(db.Reader(), 7, false)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, p := range probes { // ascending: steps and seeks
		check(c, p)
	}
	for i := len(probes) - 1; i >= 0; i-- { // descending: seeks
		check(c, probes[i])
	}
	for i := range probes { // alternating
		check(c, probes[(i*7)%len(probes)])
	}

	// FetchAscending, repeats and missing records included.
	var got []string
	n, err := c.FetchAscending(len(probes), func(i int) RecordID { return probes[i] }, func(i int, doc []byte, found bool) {
		if found {
			got = append(got, fmt.Sprintf("%d:%s", probes[i], doc))
		}
	})
	if err != nil || n != len(probes) {
		t.Fatalf("FetchAscending: %d %v", n, err)
	}
	if want := "[1:d1 1:d1 2:d2 5:d5 40:d40 41:d41 100:d100 1000:d1000 1099511627776:d1099511627776 1099511627783:d1099511627783 9223372036854775809:d9223372036854775809]"; fmt.Sprint(got) != want {
		t.Fatalf("FetchAscending read %v", got)
	}
}

// TestRecordCursorSeekThenNext: after SeekExact, Next continues past the
// record sought, in the cursor's direction, found or not.
func TestRecordCursorSeekThenNext(t *testing.T) {
	db := recordsFixture(t, []RecordID{10, 20, 30, 40})
	for _, c := range []struct {
		reverse bool
		seek    RecordID
		want    string
	}{
		{false, 20, "[30 40]"},
		{false, 25, "[30 40]"},
		{false, 40, "[]"},
		{false, 45, "[]"},
		{false, 5, "[10 20 30 40]"},
		{true, 30, "[20 10]"},
		{true, 25, "[20 10]"},
		{true, 10, "[]"},
		{true, 5, "[]"},
		{true, 45, "[40 30 20 10]"},
	} {
		cur, err := NewRecordCursor(db.Reader(), 7, c.reverse)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := cur.SeekExact(c.seek); err != nil {
			t.Fatal(err)
		}
		var got []RecordID
		for rid, _, ok := cur.Next(); ok; rid, _, ok = cur.Next() {
			got = append(got, rid)
		}
		cur.Close()
		if fmt.Sprint(got) != c.want {
			t.Errorf("reverse %v, SeekExact(%d): Next gives %v, want %s", c.reverse, c.seek, got, c.want)
		}
	}
}

func TestRecordRangesAndSpan(t *testing.T) {
	db := recordsFixture(t, []RecordID{3, 4, 9, 12})
	scan := func(lo, hi RecordID) string {
		c, err := NewRecordRangeCursor(db.Reader(), 7, lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var got []RecordID
		for rid, _, ok := c.Next(); ok; rid, _, ok = c.Next() {
			got = append(got, rid)
		}
		return fmt.Sprint(got)
	}
	for _, c := range []struct {
		lo, hi RecordID
		want   string
	}{
		{0, 0, "[3 4 9 12]"},
		{4, 0, "[4 9 12]"},
		{4, 12, "[4 9]"},
		{5, 9, "[]"},
		{13, 0, "[]"},
	} {
		if got := scan(c.lo, c.hi); got != c.want {
			t.Errorf("[%d, %d) = %s, want %s", c.lo, c.hi, got, c.want)
		}
	}
	first, last, err := recordSpan(db.Reader(), 7)
	if err != nil || first != 3 || last != 12 {
		t.Fatalf("recordSpan = %d %d %v", first, last, err)
	}
	if first, last, err := recordSpan(db.Reader(), 99); err != nil || first != 0 || last != 0 {
		t.Fatalf("recordSpan of an empty collection = %d %d %v", first, last, err)
	}

	b := db.NewBatch()
	DeleteRecord(b, 7, 4)
	SetRecord(b, 7, 9, []byte("new"))
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if got := scan(0, 0); got != "[3 9 12]" {
		t.Fatalf("after DeleteRecord: %s", got)
	}
	if doc, found, err := GetRecord(db.Reader(), 7, 9, nil); err != nil || !found || string(doc) != "new" {
		t.Fatalf("GetRecord = %q %v %v", doc, found, err)
	}
	b = db.NewBatch()
	DeleteRecords(b, 7)
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if got := scan(0, 0); got != "[]" {
		t.Fatalf("after DeleteRecords: %s", got)
	}
	for _, coll := range []uint64{6, 8} {
		if _, last, _ := recordSpan(db.Reader(), coll); last == 0 && coll == 6 {
			t.Fatalf("DeleteRecords removed collection %d's records", coll)
		}
	}
	if _, found, _ := GetRecord(db.Reader(), 8, 0, nil); !found {
		t.Fatal("DeleteRecords removed collection 8's record")
	}
}
