package server

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
)

func testServer(t *testing.T) *Server {
	t.Helper()
	eng, err := engine.Open(t.TempDir(), engine.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	s := New(eng, Config{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { s.Close() })
	return s
}

func lsidDoc(id byte) bsoncore.Document {
	uuid := make([]byte, 16)
	uuid[0] = id
	return bsoncore.NewDocumentBuilder().AppendBinary("id", 4, uuid).Build()
}

func run(s *Server, cmd bsoncore.Document) bsoncore.Document {
	return s.dispatch(context.Background(), nil, cmd, false)
}

func txnInsert(lsid bsoncore.Document, txn int64, start bool) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().
		AppendString("insert", "c").
		AppendArray("documents", bsoncore.NewArrayBuilder().AppendDocument(
			bsoncore.NewDocumentBuilder().AppendInt32("_id", int32(txn)).Build()).Build()).
		AppendString("$db", "db").
		AppendDocument("lsid", lsid).
		AppendInt64("txnNumber", txn).
		AppendBoolean("autocommit", false)
	if start {
		b.AppendBoolean("startTransaction", true)
	}
	return b.Build()
}

func commit(lsid bsoncore.Document, txn int64) bsoncore.Document {
	return bsoncore.NewDocumentBuilder().AppendInt32("commitTransaction", 1).AppendString("$db", "admin").
		AppendDocument("lsid", lsid).AppendInt64("txnNumber", txn).AppendBoolean("autocommit", false).Build()
}

// TestIdleTransactionAborted checks that a transaction idle longer than
// transactionLifetimeLimitSeconds is aborted: its commit fails with
// NoSuchTransaction (251) and its write is gone.
func TestIdleTransactionAborted(t *testing.T) {
	s := testServer(t)
	lsid := lsidDoc(1)
	if r := run(s, txnInsert(lsid, 1, true)); r.Lookup("ok").Double() != 1 {
		t.Fatalf("insert: %v", r)
	}
	s.reapOnce(time.Now().Add(30 * time.Second))
	if ss := s.sessions.get(s, string(lsid.Lookup("id").Data[5:]), sessionOwner{}, false); ss == nil || ss.state != txnActive {
		t.Fatal("a transaction idle 30 s must stay open")
	}
	s.reapOnce(time.Now().Add(61 * time.Second))
	r := run(s, commit(lsid, 1))
	if r.Lookup("code").Int32() != 251 {
		t.Fatalf("commit after idle abort: %v, want NoSuchTransaction", r)
	}
	n, err := s.eng.Count(context.Background(), "db", "c", nil, 0, 0, bsoncore.Value{})
	if err != nil || n != 0 {
		t.Fatalf("aborted write visible: n=%d err=%v", n, err)
	}
	// A fresh transaction on the same session commits, and a second
	// commit of it succeeds again.
	if r := run(s, txnInsert(lsid, 2, true)); r.Lookup("ok").Double() != 1 {
		t.Fatalf("insert: %v", r)
	}
	for i := 0; i < 2; i++ {
		if r := run(s, commit(lsid, 2)); r.Lookup("ok").Double() != 1 {
			t.Fatalf("commit %d: %v", i, r)
		}
	}
}

// TestSessionExpiry checks that sessions idle longer than
// logicalSessionTimeoutMinutes are dropped, and endSessions drops at once.
func TestSessionExpiry(t *testing.T) {
	s := testServer(t)
	for i := byte(1); i <= 2; i++ {
		ping := bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).AppendString("$db", "admin").AppendDocument("lsid", lsidDoc(i)).Build()
		if r := run(s, ping); r.Lookup("ok").Double() != 1 {
			t.Fatalf("ping: %v", r)
		}
	}
	end := bsoncore.NewDocumentBuilder().
		AppendArray("endSessions", bsoncore.NewArrayBuilder().AppendDocument(lsidDoc(2)).Build()).
		AppendString("$db", "admin").Build()
	if r := run(s, end); r.Lookup("ok").Double() != 1 {
		t.Fatalf("endSessions: %v", r)
	}
	if n := len(s.sessions.all()); n != 1 {
		t.Fatalf("%d sessions after endSessions, want 1", n)
	}
	s.reapOnce(time.Now().Add(29 * time.Minute))
	if n := len(s.sessions.all()); n != 1 {
		t.Fatalf("session expired before 30 minutes")
	}
	s.reapOnce(time.Now().Add(31 * time.Minute))
	if n := len(s.sessions.all()); n != 0 {
		t.Fatalf("%d sessions after 31 idle minutes, want 0", n)
	}
}

// TestTxnEndFields applies commitTransaction's and abortTransaction's
// IDL (strict): an unknown field is 40415 and leaves the transaction
// open, recoveryToken (mongos's) is accepted, commitTimestamp (prepared
// transactions) is 238.
func TestTxnEndFields(t *testing.T) {
	s := testServer(t)
	lsid := lsidDoc(7)
	wantCode(t, "insert", run(s, txnInsert(lsid, 1, true)), 0)
	with := func(doc bsoncore.Document, k string, v bsoncore.Value) bsoncore.Document {
		return appendFields(doc, bsoncore.NewDocumentBuilder().AppendValue(k, v).Build())
	}
	i1 := bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, 1)}
	wantCode(t, "commit with a bogus field", run(s, with(commit(lsid, 1), "bogus", i1)), 40415)
	ts := bsoncore.Value{Type: bsoncore.TypeTimestamp, Data: bsoncore.AppendTimestamp(nil, 1, 1)}
	wantCode(t, "commit with commitTimestamp", run(s, with(commit(lsid, 1), "commitTimestamp", ts)), 238)
	tok := bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: bsoncore.NewDocumentBuilder().Build()}
	wantCode(t, "commit with recoveryToken", run(s, with(commit(lsid, 1), "recoveryToken", tok)), 0)
}

// TestRetryableWriteAfterCommittedTransaction: a retryable write under
// the txnNumber after a committed transaction ends that transaction's
// state on the session. A commitTransaction under the write's number then
// finds no transaction (NoSuchTransaction, 251), as mongod answers it,
// instead of repeating the earlier transaction's commit.
func TestRetryableWriteAfterCommittedTransaction(t *testing.T) {
	s := testServer(t)
	lsid := lsidDoc(9)
	if r := run(s, txnInsert(lsid, 1, true)); r.Lookup("ok").AsFloat64() != 1 {
		t.Fatalf("insert in transaction 1: %v", r)
	}
	if r := run(s, commit(lsid, 1)); r.Lookup("ok").AsFloat64() != 1 {
		t.Fatalf("commit of transaction 1: %v", r)
	}
	if r := run(s, retryableInsert(lsid, 2, 2)); r.Lookup("n").AsInt32() != 1 {
		t.Fatalf("retryable insert 2: %v", r)
	}
	r := run(s, commit(lsid, 2))
	if code, _ := r.Lookup("code").AsInt32OK(); code != 251 {
		t.Fatalf("commitTransaction under a retryable write's txnNumber: %v, want NoSuchTransaction (251)", r)
	}
	// The retryable write is still answered from its first attempt.
	if r := run(s, retryableInsert(lsid, 2, 2)); r.Lookup("n").AsInt32() != 1 {
		t.Fatalf("retryable insert 2 retried: %v", r)
	}
}
