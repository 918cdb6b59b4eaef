package oplog

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/storage"
)

// refKinds counts the stored values of the log that are reference runs
// and those that are not.
func refKinds(t *testing.T, db *storage.DB) (refs, others int) {
	t.Helper()
	c, err := storage.NewOplogCursor(db.Reader(), 0, ^uint64(0), false)
	if err != nil {
		t.Fatal(err)
	}
	for {
		_, v, ok := c.Next()
		if !ok {
			break
		}
		if isRefRun(v) {
			refs++
		} else {
			others++
		}
	}
	if err := errors.Join(c.Err(), c.Close()); err != nil {
		t.Fatal(err)
	}
	return refs, others
}

// TestRefRuns: a batch of inserts of at least minRefBytes whose entries
// name their records is stored as reference runs, and read back as the
// documents; Unref rewrites the run holding a record with its documents
// (read back the same, with the record since deleted); a reopened log
// finds the remaining reference runs again; a batch below minRefBytes
// keeps copies.
func TestRefRuns(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir)
	l, err := Open(db, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	const coll, n = 7, 2000
	pad := strings.Repeat("x", 200)
	b := db.NewBatch()
	ents := make([]Entry, n)
	for i := range ents {
		d := doc(t, bson.D{{Key: "_id", Value: i}, {Key: "pad", Value: pad}})
		if err := storage.SetRecord(b, coll, storage.RecordID(i+1), d); err != nil {
			t.Fatal(err)
		}
		ents[i] = Entry{Op: OpInsert, NS: "db.c", O: d, Coll: coll, RID: uint64(i + 1)}
	}
	tk, err := l.Stage(b, ents)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Commit(b)
	l.Done(tk, err == nil)
	if err != nil {
		t.Fatal(err)
	}
	check := func(stage string, l *Log) {
		t.Helper()
		got := scanAll(t, l)
		if len(got) != n {
			t.Fatalf("%s: %d entries, want %d", stage, len(got), n)
		}
		for i, e := range got {
			o := e.Lookup("o").Document()
			if id := o.Lookup("_id").Int32(); id != int32(i) || o.Lookup("pad").StringValue() != pad {
				t.Fatalf("%s: entry %d is %v", stage, i, o)
			}
			if e.Lookup("op").StringValue() != "i" || e.Lookup("ns").StringValue() != "db.c" {
				t.Fatalf("%s: entry %d is %v", stage, i, e)
			}
		}
	}
	refs, others := refKinds(t, db)
	if refs == 0 || others != 0 {
		t.Fatalf("%d reference runs and %d other values, want only reference runs", refs, others)
	}
	check("stored as references", l)
	// Read newest first, from inside a run, the same.
	vis, _ := l.Visible()
	var back []TS
	if err := l.ScanReverse(vis-TS(n/2), vis, func(ts TS, d bsoncore.Document) error {
		if id := d.Lookup("o", "_id").Int32(); int(id) != n-1-len(back) {
			t.Fatalf("reverse entry %d is _id %d", len(back), id)
		}
		back = append(back, ts)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(back) != n/2+1 {
		t.Fatalf("reverse scan of %d entries read %d", n/2+1, len(back))
	}
	if st, _ := l.Stats(); st.Count != n || st.Last != st.First+TS(n-1) {
		t.Fatalf("stats %+v", st)
	}

	// Record 1000 is about to go: its run is materialized first.
	if err := l.Unref(coll, 1000); err != nil {
		t.Fatal(err)
	}
	b = db.NewBatch()
	if err := storage.DeleteRecord(b, coll, 1000); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	refs2, others2 := refKinds(t, db)
	if refs2 != refs-1 || others2 == 0 {
		t.Fatalf("after Unref: %d reference runs, %d others; want %d and some", refs2, others2, refs-1)
	}
	check("one run materialized", l)

	// Reopened, the log knows the remaining references.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openDB(t, dir)
	defer db.Close()
	if l, err = Open(db, 1<<30); err != nil {
		t.Fatal(err)
	}
	if got := l.refs.n.Load(); got != int64(refs2) {
		t.Fatalf("reopened: %d reference runs known, want %d", got, refs2)
	}
	if err := l.UnrefCollection(coll); err != nil {
		t.Fatal(err)
	}
	if r, _ := refKinds(t, db); r != 0 || l.refs.n.Load() != 0 {
		t.Fatalf("after UnrefCollection: %d stored, %d known", r, l.refs.n.Load())
	}
	b = db.NewBatch()
	if err := storage.DeleteRecords(b, coll); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	check("all materialized, records gone", l)

	// A small batch keeps its copies.
	small := []Entry{{Op: OpInsert, NS: "db.c", O: doc(t, bson.D{{Key: "_id", Value: -1}}), Coll: coll, RID: 5000},
		{Op: OpInsert, NS: "db.c", O: doc(t, bson.D{{Key: "_id", Value: -2}}), Coll: coll, RID: 5001}}
	commit(t, db, l, small...)
	if r, _ := refKinds(t, db); r != 0 {
		t.Fatalf("a batch of %d bytes was stored by reference", refBytes(small))
	}
}

// TestMaterializeWithoutTheLog: a database opened without its log has its
// reference runs rewritten with their documents (Materialize), since its
// records may then change unseen; the log reads the same after.
func TestMaterializeWithoutTheLog(t *testing.T) {
	db := openDB(t, t.TempDir())
	defer db.Close()
	l, err := Open(db, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	ents := make([]Entry, 1500)
	for i := range ents {
		d := doc(t, bson.D{{Key: "_id", Value: i}, {Key: "pad", Value: strings.Repeat("y", 300)}})
		if err := storage.SetRecord(b, 9, storage.RecordID(i+1), d); err != nil {
			t.Fatal(err)
		}
		ents[i] = Entry{Op: OpInsert, NS: "db.m", O: d, Coll: 9, RID: uint64(i + 1)}
	}
	tk, err := l.Stage(b, ents)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Commit(b)
	l.Done(tk, err == nil)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := refKinds(t, db); r == 0 {
		t.Fatal("no reference runs to materialize")
	}
	if err := Materialize(db); err != nil {
		t.Fatal(err)
	}
	if r, _ := refKinds(t, db); r != 0 {
		t.Fatalf("%d reference runs left", r)
	}
	got := scanAll(t, l)
	if len(got) != len(ents) {
		t.Fatalf("%d entries, want %d", len(got), len(ents))
	}
	for i, e := range got {
		if !bytes.Equal(e.Lookup("o").Document(), ents[i].O) {
			t.Fatalf("entry %d: %v", i, e)
		}
	}
}

// TestParseRefRunRejectsDamage: every strict prefix of a reference run,
// and the run with a byte more, is malformed.
func TestParseRefRunRejectsDamage(t *testing.T) {
	ui := [16]byte{1, 2, 3}
	ents := []Entry{
		{Op: OpInsert, NS: "db.c", UI: &ui, O: bsoncore.NewDocumentBuilder().AppendInt32("a", 1).Build(), Coll: 3, RID: 10},
		{Op: OpInsert, NS: "db.c", UI: &ui, O: bsoncore.NewDocumentBuilder().AppendInt32("a", 2).Build(), Coll: 3, RID: 11},
	}
	if !byRef(ents) {
		t.Fatal("consecutive records of one collection not byRef")
	}
	v, n := appendRefRun(nil, ents, TS(1795930695)<<32, time.UnixMilli(1795930695123))
	r, err := parseRefRun(v, TS(1795930695)<<32)
	if err != nil || r.n != 2 || r.coll != 3 || r.rid != 10 || r.bytes != n || !bytes.Equal(r.ui, ui[:]) || string(r.ns) != "db.c" {
		t.Fatalf("parsed %+v, %v", r, err)
	}
	for i := 6; i < len(v); i++ {
		if _, err := parseRefRun(v[:i], TS(1795930695)<<32); err == nil {
			t.Fatalf("prefix of %d bytes parsed", i)
		}
	}
	if _, err := parseRefRun(append(v[:len(v):len(v)], 0), TS(1795930695)<<32); err == nil {
		t.Fatal("a trailing byte parsed")
	}
	gap := append([]Entry(nil), ents...)
	gap[1].RID = 12
	if byRef(gap) {
		t.Fatal("records with a gap are byRef")
	}
}

// TestRefIndex: find names the span holding a record, and nothing once
// the span is forgotten or trimmed; forgetting most spans one by one
// keeps the others found.
func TestRefIndex(t *testing.T) {
	var x refIndex
	var spans []refSpan
	for i := range 1000 {
		spans = append(spans, refSpan{rid: uint64(1 + 10*i), n: 10, ts: TS(100 + 10*i)})
	}
	x.add(1, spans[:500])
	x.add(1, spans[500:])
	x.add(2, []refSpan{{rid: 5, n: 3, ts: 50}})
	x.add(3, []refSpan{{rid: 100, n: 5, ts: 60}})
	x.add(3, []refSpan{{rid: 10, n: 5, ts: 70}}) // out of order: sorted
	if sp, ok := x.find(3, 12); !ok || sp.rid != 10 {
		t.Fatalf("find(3, 12) = %+v, %v", sp, ok)
	}
	if sp, ok := x.find(3, 104); !ok || sp.rid != 100 {
		t.Fatalf("find(3, 104) = %+v, %v", sp, ok)
	}
	if sp, ok := x.find(1, 25); !ok || sp.rid != 21 {
		t.Fatalf("find(1, 25) = %+v, %v", sp, ok)
	}
	if _, ok := x.find(1, 10001); ok {
		t.Fatal("a record past the last span found")
	}
	if _, ok := x.find(2, 8); ok {
		t.Fatal("a record past collection 2's span found")
	}
	for i, sp := range spans {
		if i%4 != 0 {
			x.forget(1, sp)
		}
	}
	for i, sp := range spans {
		_, ok := x.find(1, sp.rid+5)
		if ok != (i%4 == 0) {
			t.Fatalf("span %d found %v after forgetting", i, ok)
		}
	}
	if got := x.n.Load(); got != 253 {
		t.Fatalf("%d live spans, want 253", got)
	}
	x.trim(TS(100 + 10*499 + 9)) // the first 500 spans' entries
	if _, ok := x.find(1, spans[0].rid); ok {
		t.Fatal("a trimmed span found")
	}
	if _, ok := x.find(1, spans[500].rid); !ok {
		t.Fatal("a span after the trimmed point lost")
	}
	if _, ok := x.find(2, 5); ok {
		t.Fatal("collection 2's trimmed span found")
	}
	if got := x.n.Load(); got != 125 {
		t.Fatalf("%d live spans after the trim, want 125", got)
	}
}

// TestRetainedRecordsReleasedByTrim: a dropped collection's records that
// reference runs name stay (storage.RetainRecords) until the log is
// trimmed past the last such run, then go with their note, and a log
// opened meanwhile knows them.
func TestRetainedRecordsReleasedByTrim(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir)
	l, err := Open(db, 2<<20)
	if err != nil {
		t.Fatal(err)
	}
	const coll = 11
	b := db.NewBatch()
	ents := make([]Entry, 1500)
	for i := range ents {
		d := doc(t, bson.D{{Key: "_id", Value: i}, {Key: "pad", Value: strings.Repeat("z", 300)}})
		if err := storage.SetRecord(b, coll, storage.RecordID(i+1), d); err != nil {
			t.Fatal(err)
		}
		ents[i] = Entry{Op: OpInsert, NS: "db.r", O: d, Coll: coll, RID: uint64(i + 1)}
	}
	tk, err := l.Stage(b, ents)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Commit(b)
	l.Done(tk, err == nil)
	if err != nil {
		t.Fatal(err)
	}
	until := l.RetainFor(coll)
	if until != tk.Last() {
		t.Fatalf("RetainFor = %d, want the batch's last entry %d", until, tk.Last())
	}
	b = db.NewBatch()
	if err := storage.RetainRecords(b, coll, uint64(until)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	l.Retained(coll, until)
	records := func() int {
		c, err := storage.NewRecordCursor(db.Reader(), coll, false)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, _, ok := c.Next(); ok; _, _, ok = c.Next() {
			n++
		}
		if err := errors.Join(c.Err(), c.Close()); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Reopened before the trim: still retained, still read.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openDB(t, dir)
	defer db.Close()
	if l, err = Open(db, 2<<20); err != nil {
		t.Fatal(err)
	}
	if got := len(scanAll(t, l)); got != len(ents) || records() != len(ents) {
		t.Fatalf("after reopening: %d entries, %d records", got, records())
	}
	// Enough other entries to push the run out of the log.
	pad := strings.Repeat("q", 1000)
	for i := 0; l.Trimmed() < until; i++ {
		if i > 10000 {
			t.Fatal("the log never trimmed past the run")
		}
		commit(t, db, l, Entry{Op: OpInsert, NS: "db.other", O: doc(t, bson.D{{Key: "_id", Value: i}, {Key: "pad", Value: pad}})})
	}
	if n := records(); n != 0 {
		t.Fatalf("%d records of the dropped collection left after the trim", n)
	}
	if ret, err := storage.RetainedRecords(db.Reader()); err != nil || len(ret) != 0 {
		t.Fatalf("retained notes after the trim: %v, %v", ret, err)
	}
}
