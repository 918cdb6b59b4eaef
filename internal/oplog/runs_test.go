package oplog

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/storage"
)

// TestRunsReadAsEntries: the inserts of one batch into one collection
// are stored as runs, and every reader sees one mongod entry per
// document, with its own timestamp, byte for byte the document a
// single stored entry gives; a scan that starts or ends inside a run
// reads that part of it, in either order; the log's counts and its
// newest timestamp hold across a reopen.
func TestRunsReadAsEntries(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir)
	l, err := Open(db, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	ui := [16]byte{9, 8, 7}
	other := [16]byte{1}
	ins := func(ns string, u *[16]byte, i int) Entry {
		return Entry{Op: OpInsert, NS: ns, UI: u, O: doc(t, bson.D{{Key: "_id", Value: i}, {Key: "p", Value: "/a/b"}})}
	}
	var ents []Entry
	ents = append(ents, Entry{Op: OpUpdate, NS: "db.c", UI: &ui, O: doc(t, bson.D{{Key: "$v", Value: 2}}), O2: doc(t, bson.D{{Key: "_id", Value: 0}})})
	for i := 1; i <= 5; i++ {
		ents = append(ents, ins("db.c", &ui, i)) // a run of 5
	}
	for i := 6; i <= 8; i++ {
		ents = append(ents, ins("db.d", &other, i)) // a run of 3
	}
	withImage := ins("db.d", &other, 9)
	withImage.Images = []Image{{Post: withImage.O}}
	ents = append(ents, withImage, ins("db.d", &other, 10)) // alone, then alone
	before := time.Now()
	tk := commit(t, db, l, ents...)
	after := time.Now()

	// What each entry must read as: its own stored entry, expanded.
	want := map[TS][]byte{}
	for i := range ents {
		ts := tk.first + TS(i)
		w, _ := ents[i].appendStored(nil, ts, time.Time{})
		d, err := expand(nil, w, ts)
		if err != nil {
			t.Fatal(err)
		}
		want[ts] = d
	}
	same := func(ts TS, got bsoncore.Document) {
		t.Helper()
		w := bsoncore.Document(want[ts])
		// The wall time is the batch's: compare it apart.
		wall := got.Lookup("wall").Time()
		if wall.Before(before.Truncate(time.Millisecond)) || wall.After(after) {
			t.Errorf("entry %v: wall %v outside the commit", ts, wall)
		}
		gotEls, _ := got.Elements()
		wantEls, _ := w.Elements()
		if len(gotEls) != len(wantEls) {
			t.Fatalf("entry %v: %v, want %v", ts, got, w)
		}
		for i := range gotEls {
			if gotEls[i].Key() == "wall" {
				continue
			}
			if !bytes.Equal(gotEls[i], wantEls[i]) {
				t.Fatalf("entry %v: %v, want %v", ts, got, w)
			}
		}
	}
	scan := func(lo, hi TS, reverse bool) []TS {
		t.Helper()
		var got []TS
		fn := func(ts TS, d bsoncore.Document) error {
			same(ts, d)
			got = append(got, ts)
			return nil
		}
		var err error
		if reverse {
			err = l.ScanReverse(lo, hi, fn)
		} else {
			err = l.Scan(lo-1, hi, fn)
		}
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	span := func(lo, hi TS, reverse bool) []TS {
		var out []TS
		for ts := lo; ts <= hi; ts++ {
			out = append(out, ts)
		}
		if reverse {
			for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
				out[i], out[j] = out[j], out[i]
			}
		}
		return out
	}
	f := tk.first
	for _, c := range []struct{ lo, hi TS }{
		{f, f + 10},     // everything
		{f + 3, f + 7},  // from inside the first run into the second
		{f + 2, f + 2},  // one entry inside a run
		{f + 5, f + 5},  // a run's last entry alone (lastApplied's lookup)
		{f + 9, f + 10}, // after the runs
	} {
		for _, reverse := range []bool{false, true} {
			got := scan(c.lo, c.hi, reverse)
			if w := span(c.lo, c.hi, reverse); !slices.Equal(got, w) {
				t.Errorf("[%v, %v] reverse=%v read %v, want %v", c.lo-f, c.hi-f, reverse, got, w)
			}
		}
	}

	// local.oplog.rs's record source, from inside a run.
	it, err := Records{Lo: f + 4, Hi: f + 6}.OpenRecords(db.Reader(), false)
	if err != nil {
		t.Fatal(err)
	}
	var rids []TS
	for {
		rid, d, ok := it.Next()
		if !ok {
			break
		}
		same(TS(rid), d)
		rids = append(rids, TS(rid))
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	it.Close()
	if !slices.Equal(rids, span(f+4, f+6, false)) {
		t.Errorf("records read %v", rids)
	}

	// Two runs and three single entries stored: fewer keys than entries.
	keys := 0
	c, _ := storage.NewOplogCursor(db.Reader(), 0, ^uint64(0), false)
	for _, _, ok := c.Next(); ok; _, _, ok = c.Next() {
		keys++
	}
	c.Close()
	if keys != 5 {
		t.Errorf("%d stored values for 11 entries, want 5 (two runs)", keys)
	}

	st, err := l.Stats()
	if err != nil {
		t.Fatal(err)
	}
	sum := int64(len(withImage.Images[0].doc())) // images count in the log's size
	for _, d := range scanAll(t, l) {
		sum += int64(len(d))
	}
	if st.Count != 11 || st.Bytes != sum || st.First != f || st.Last != f+10 {
		t.Fatalf("stats %+v, want 11 entries of %d bytes from %v to %v", st, sum, f, f+10)
	}
	db.Close()
	db = openDB(t, dir)
	defer db.Close()
	l2, err := Open(db, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	st2, _ := l2.Stats()
	if st2 != st {
		t.Fatalf("after reopen stats %+v, want %+v", st2, st)
	}
	if tk := commit(t, db, l2, insertEntry(t, 1)); tk.first <= f+10 {
		t.Fatalf("clock went back after reopen: %v <= %v", tk.first, f+10)
	}
}

// TestRunsTrimWhole: trimming removes a run with its last entry, and the
// trimmed timestamp covers all of it.
func TestRunsTrimWhole(t *testing.T) {
	db := openDB(t, t.TempDir())
	defer db.Close()
	const bound = 256 << 10
	l, _ := Open(db, bound)
	pad := make([]byte, 1000)
	for b := 0; b < 100; b++ {
		var ents []Entry
		for i := 0; i < 10; i++ {
			ents = append(ents, Entry{Op: OpInsert, NS: "db.c", O: doc(t, bson.D{{Key: "_id", Value: b*10 + i}, {Key: "p", Value: pad}})})
		}
		commit(t, db, l, ents...)
		if st, _ := l.Stats(); st.Bytes > bound {
			t.Fatalf("after %d runs the log holds %d bytes, over its bound %d", b+1, st.Bytes, bound)
		}
	}
	got := scanAll(t, l)
	st, _ := l.Stats()
	if int64(len(got)) != st.Count || len(got)%10 != 0 {
		t.Fatalf("%d entries read, %d counted: runs are trimmed whole", len(got), st.Count)
	}
	first := MakeTS(got[0].Lookup("ts").Timestamp())
	if tr := l.Trimmed(); tr == 0 || tr >= first || got[0].Lookup("o", "_id").Int32()%10 != 0 {
		t.Fatalf("trimmed through %v, first entry %v", tr, got[0])
	}
}
