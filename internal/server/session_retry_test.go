package server

import (
	"log/slog"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func retryableInsert(lsid bsoncore.Document, txn int64, id int32) bsoncore.Document {
	return bsoncore.NewDocumentBuilder().
		AppendString("insert", "c").
		AppendArray("documents", bsoncore.NewArrayBuilder().AppendDocument(
			bsoncore.NewDocumentBuilder().AppendInt32("_id", id).Build()).Build()).
		AppendString("$db", "db").
		AppendDocument("lsid", lsid).
		AppendInt64("txnNumber", txn).Build()
}

// TestSessionRecordPrunedOnExpiry: the record of a retryable write goes
// when its session expires; a record left by an earlier run (no session
// in memory) goes once it is older than the session timeout, as mongod's
// reaper removes config.transactions entries of expired sessions.
func TestSessionRecordPrunedOnExpiry(t *testing.T) {
	s := testServer(t)
	lsid := lsidDoc(7)
	key, _ := sessionKey(lsid)
	if r := run(s, retryableInsert(lsid, 1, 1)); r.Lookup("n").AsInt32() != 1 {
		t.Fatalf("insert: %v", r)
	}
	if v, err := s.eng.SessionRecord([]byte(key)); err != nil || v == nil {
		t.Fatalf("no record after a retryable write: %v %v", v, err)
	}
	s.reap(time.Now(), true)
	if v, _ := s.eng.SessionRecord([]byte(key)); v == nil {
		t.Fatal("record of a live session pruned")
	}
	s.reap(time.Now().Add(31*time.Minute), false)
	if v, _ := s.eng.SessionRecord([]byte(key)); v != nil {
		t.Fatal("record of an expired session kept")
	}

	// A record of an earlier run: a second server on the same engine has
	// no session in memory.
	lsid2 := lsidDoc(8)
	key2, _ := sessionKey(lsid2)
	run(s, retryableInsert(lsid2, 1, 2))
	s2 := New(s.eng, Config{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { s2.Close() })
	s2.reap(time.Now(), true)
	if v, _ := s2.eng.SessionRecord([]byte(key2)); v == nil {
		t.Fatal("recent record of an earlier run pruned")
	}
	s2.reap(time.Now().Add(31*time.Minute), true)
	if v, _ := s2.eng.SessionRecord([]byte(key2)); v != nil {
		t.Fatal("old record of an earlier run kept")
	}
}

// TestAddSpan: the executed statements stay sorted and merged.
func TestAddSpan(t *testing.T) {
	var sp []span
	for _, i := range []int32{0, 1, 5, 3, 2, 4, 9, 7} {
		sp = addSpan(sp, i)
	}
	want := []span{{0, 6}, {7, 8}, {9, 10}}
	if len(sp) != len(want) {
		t.Fatalf("%v", sp)
	}
	for i := range want {
		if sp[i] != want[i] {
			t.Fatalf("%v, want %v", sp, want)
		}
	}
	r := &retryRecord{executed: sp}
	for i, want := range map[int32]bool{0: true, 5: true, 6: false, 7: true, 8: false, 9: true, 10: false} {
		if r.ran(i) != want {
			t.Errorf("ran(%d) = %v", i, !want)
		}
	}
}

// TestStatementRecordsBounded: the statement records of a txnNumber go
// with the session's next write, so a session keeps those of one number.
func TestStatementRecordsBounded(t *testing.T) {
	s := testServer(t)
	lsid := lsidDoc(9)
	key, _ := sessionKey(lsid)
	upd := func(txn int64) bsoncore.Document {
		st := func(id string) bsoncore.Document {
			return bsoncore.NewDocumentBuilder().
				AppendDocument("q", bsoncore.NewDocumentBuilder().AppendString("_id", id).Build()).
				AppendDocument("u", bsoncore.NewDocumentBuilder().AppendDocument("$inc", bsoncore.NewDocumentBuilder().AppendInt32("v", 1).Build()).Build()).
				AppendBoolean("upsert", true).Build()
		}
		return bsoncore.NewDocumentBuilder().AppendString("update", "c").
			AppendArray("updates", bsoncore.NewArrayBuilder().AppendDocument(st("a")).AppendDocument(st("b")).AppendDocument(st("c")).Build()).
			AppendString("$db", "db").AppendDocument("lsid", lsid).AppendInt64("txnNumber", txn).Build()
	}
	count := func(txn int64) int {
		n := 0
		if err := s.eng.SessionStmts([]byte(key), txn, func(int32, []byte) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if r := run(s, upd(1)); r.Lookup("n").AsInt32() != 3 {
		t.Fatalf("update: %v", r)
	}
	// Statements 1 and 2 upserted: records; statement 0 is in the header.
	if n := count(1); n != 2 {
		t.Fatalf("%d statement records for txnNumber 1, want 2", n)
	}
	if r := run(s, retryableInsert(lsid, 2, 1)); r.Lookup("n").AsInt32() != 1 {
		t.Fatalf("insert: %v", r)
	}
	if n := count(1); n != 0 {
		t.Fatalf("%d statement records of txnNumber 1 left after txnNumber 2", n)
	}
}

// TestStmtIdsNumberStatements: a batch's stmtIds name its statements in
// the history: a retry (here by a second server on the same data, as
// after a restart) with the statements in another order runs only those
// whose ids did not run. A stmtIds of the wrong length is InvalidLength.
func TestStmtIdsNumberStatements(t *testing.T) {
	s := testServer(t)
	lsid := lsidDoc(10)
	txn := int64(1)
	insert := func(ids []int32, stmtIDs []int32) bsoncore.Document {
		docs := bsoncore.NewArrayBuilder()
		for _, id := range ids {
			docs.AppendDocument(bsoncore.NewDocumentBuilder().AppendInt32("_id", id).Build())
		}
		sids := bsoncore.NewArrayBuilder()
		for _, id := range stmtIDs {
			sids.AppendInt32(id)
		}
		return bsoncore.NewDocumentBuilder().AppendString("insert", "c").AppendArray("documents", docs.Build()).
			AppendArray("stmtIds", sids.Build()).AppendString("$db", "db").
			AppendDocument("lsid", lsid).AppendInt64("txnNumber", txn).Build()
	}
	run(s, bsoncore.NewDocumentBuilder().AppendString("insert", "c").
		AppendArray("documents", bsoncore.NewArrayBuilder().AppendDocument(bsoncore.NewDocumentBuilder().AppendInt32("_id", 2).Build()).Build()).
		AppendString("$db", "db").Build())
	// Statement 10 inserts _id 1, statement 11 stops at the duplicate 2.
	if r := run(s, insert([]int32{1, 2, 3}, []int32{10, 11, 12})); r.Lookup("n").Type != bsoncore.TypeInt32 || r.Lookup("n").Int32() != 1 {
		t.Fatalf("first attempt: %v", r)
	}
	run(s, bsoncore.NewDocumentBuilder().AppendString("delete", "c").
		AppendArray("deletes", bsoncore.NewArrayBuilder().AppendDocument(bsoncore.NewDocumentBuilder().
			AppendDocument("q", bsoncore.NewDocumentBuilder().AppendInt32("_id", 2).Build()).AppendInt32("limit", 1).Build()).Build()).
		AppendString("$db", "db").Build())
	s2 := New(s.eng, Config{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { s2.Close() })
	// The retry sends statement 10 last: it is not run again.
	r := run(s2, insert([]int32{2, 3, 1}, []int32{11, 12, 10}))
	if r.Lookup("n").AsInt32() != 3 {
		t.Fatalf("retry: %v", r)
	}
	if _, err := r.LookupErr("writeErrors"); err == nil {
		t.Fatalf("retry ran statement 10 again: %v", r)
	}
	txn = 2
	bad := run(s2, insert([]int32{4}, []int32{1, 2}))
	if bad.Lookup("code").AsInt32() != 16 {
		t.Fatalf("stmtIds of the wrong length: %v", bad)
	}
}
