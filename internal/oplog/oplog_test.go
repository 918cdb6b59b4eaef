package oplog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/storage"
)

func openDB(t *testing.T, dir string) *storage.DB {
	t.Helper()
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func doc(t *testing.T, v any) bsoncore.Document {
	t.Helper()
	b, err := bson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func insertEntry(t *testing.T, i int) Entry {
	return Entry{Op: OpInsert, NS: "db.c", O: doc(t, bson.D{{Key: "_id", Value: i}})}
}

// commit stages ents in a batch of their own and commits it.
func commit(t *testing.T, db *storage.DB, l *Log, ents ...Entry) Ticket {
	t.Helper()
	b := db.NewBatch()
	tk, err := l.Stage(b, ents)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Commit(b)
	l.Done(tk, err == nil)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func scanAll(t *testing.T, l *Log) []bson.Raw {
	t.Helper()
	vis, _ := l.Visible()
	var out []bson.Raw
	if err := l.Scan(0, vis, func(_ TS, d bsoncore.Document) error {
		out = append(out, bson.Raw(append([]byte(nil), d...)))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestVisibilityWaitsForEarlierBatches: a batch that commits before an
// earlier-stamped one is not visible until the earlier one ends.
func TestVisibilityWaitsForEarlierBatches(t *testing.T) {
	db := openDB(t, t.TempDir())
	defer db.Close()
	l, err := Open(db, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	b1, b2 := db.NewBatch(), db.NewBatch()
	tk1, _ := l.Stage(b1, []Entry{insertEntry(t, 1)})
	tk2, _ := l.Stage(b2, []Entry{insertEntry(t, 2)})
	if tk2.first <= tk1.last {
		t.Fatalf("timestamps not increasing: %v then %v", tk1, tk2)
	}
	if _, err := db.Commit(b2); err != nil {
		t.Fatal(err)
	}
	l.Done(tk2, true)
	if vis, _ := l.Visible(); vis >= tk1.first {
		t.Fatalf("visible %v passes the open batch at %v", vis, tk1.first)
	}
	_, ch := l.Visible()
	if _, err := db.Commit(b1); err != nil {
		t.Fatal(err)
	}
	l.Done(tk1, true)
	select {
	case <-ch:
	default:
		t.Fatal("visibility change not signalled")
	}
	if vis, _ := l.Visible(); vis != tk2.last {
		t.Fatalf("visible = %v, want %v", vis, tk2.last)
	}
	got := scanAll(t, l)
	if len(got) != 2 || got[0].Lookup("o", "_id").Int32() != 1 || got[1].Lookup("o", "_id").Int32() != 2 {
		t.Fatalf("scan = %v", got)
	}
	e := got[0]
	for _, k := range []string{"op", "ns", "o", "ts", "t", "v", "wall"} {
		if _, err := e.LookupErr(k); err != nil {
			t.Errorf("entry lacks %q: %v", k, e)
		}
	}
}

// TestFailedBatchReleasesItsTimestamps: a batch that does not commit
// does not hold visibility back.
func TestFailedBatchReleasesItsTimestamps(t *testing.T) {
	db := openDB(t, t.TempDir())
	defer db.Close()
	l, _ := Open(db, 1<<20)
	b := db.NewBatch()
	tk, _ := l.Stage(b, []Entry{insertEntry(t, 1)})
	b.Close()
	l.Done(tk, false)
	tk2 := commit(t, db, l, insertEntry(t, 2))
	if vis, _ := l.Visible(); vis != tk2.last {
		t.Fatalf("visible = %v, want %v", vis, tk2.last)
	}
	if got := scanAll(t, l); len(got) != 1 {
		t.Fatalf("scan = %v", got)
	}
}

// TestBoundHolds: through 40 times its bound of writes the log stays at
// or under the bound, keeps its newest entries, and remembers what it
// trimmed across a reopen.
func TestBoundHolds(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir)
	const bound = 256 << 10
	l, _ := Open(db, bound)
	pad := make([]byte, 1000)
	var last Ticket
	for i := 0; i < 10000; i++ {
		last = commit(t, db, l, Entry{Op: OpInsert, NS: "db.c", O: doc(t, bson.D{{Key: "_id", Value: i}, {Key: "p", Value: pad}})})
		st, _ := l.Stats()
		if st.Bytes > bound {
			t.Fatalf("after %d entries the log holds %d bytes, over its bound %d", i+1, st.Bytes, bound)
		}
	}
	got := scanAll(t, l)
	var sum int64
	for _, d := range got {
		sum += int64(len(d))
	}
	st, _ := l.Stats()
	if sum != st.Bytes || int64(len(got)) != st.Count {
		t.Fatalf("Stats says %d bytes in %d entries, the log holds %d in %d", st.Bytes, st.Count, sum, len(got))
	}
	if sum < bound/2 {
		t.Fatalf("trimmed too much: %d bytes left of %d", sum, bound)
	}
	if st.Last != last.last || got[len(got)-1].Lookup("o", "_id").Int32() != 9999 {
		t.Fatalf("newest entry lost: %v", st)
	}
	trimmed := l.Trimmed()
	if trimmed == 0 || trimmed >= st.First {
		t.Fatalf("Trimmed() = %v, first = %v", trimmed, st.First)
	}
	db.Close()
	db = openDB(t, dir)
	defer db.Close()
	l2, err := Open(db, bound)
	if err != nil {
		t.Fatal(err)
	}
	if l2.Trimmed() != trimmed {
		t.Fatalf("after reopen Trimmed() = %v, want %v", l2.Trimmed(), trimmed)
	}
	st2, _ := l2.Stats()
	if st2.Bytes != st.Bytes || st2.Count != st.Count {
		t.Fatalf("after reopen stats %+v, want %+v", st2, st)
	}
	if tk := commit(t, db, l2, insertEntry(t, 1)); tk.first <= st.Last {
		t.Fatalf("clock went back after reopen: %v <= %v", tk.first, st.Last)
	}
}

// TestUpdateO: the $v: 2 delta of a change, as mongod writes it.
func TestUpdateO(t *testing.T) {
	pre := doc(t, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}, {Key: "gone", Value: true},
		{Key: "sub", Value: bson.D{{Key: "x", Value: 1}, {Key: "y", Value: 2}}},
		{Key: "arr", Value: bson.A{1, 2, 3}}, {Key: "short", Value: bson.A{1, 2, 3}}})
	post := doc(t, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 2},
		{Key: "sub", Value: bson.D{{Key: "x", Value: 1}, {Key: "y", Value: 3}}},
		{Key: "arr", Value: bson.A{1, 5, 3, 4}}, {Key: "short", Value: bson.A{1}}, {Key: "new", Value: "n"}})
	got := bson.Raw(UpdateO(pre, post))
	want := doc(t, bson.D{{Key: "$v", Value: int32(2)}, {Key: "diff", Value: bson.D{
		{Key: "d", Value: bson.D{{Key: "gone", Value: false}}},
		{Key: "u", Value: bson.D{{Key: "a", Value: 2}}},
		{Key: "i", Value: bson.D{{Key: "new", Value: "n"}}},
		{Key: "ssub", Value: bson.D{{Key: "u", Value: bson.D{{Key: "y", Value: 3}}}}},
		{Key: "sarr", Value: bson.D{{Key: "a", Value: true}, {Key: "u1", Value: 5}, {Key: "u3", Value: 4}}},
		{Key: "sshort", Value: bson.D{{Key: "a", Value: true}, {Key: "l", Value: int32(1)}}},
	}}})
	if string(got) != string(want) {
		t.Fatalf("UpdateO =\n %v\nwant\n %v", got, bson.Raw(want))
	}
}
