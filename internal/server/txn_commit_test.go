package server

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
)

// labelsOf returns the errorLabels of a reply.
func labelsOf(reply bsoncore.Document) map[string]bool {
	out := map[string]bool{}
	if v, err := reply.LookupErr("errorLabels"); err == nil {
		vals, _ := v.Array().Values()
		for _, l := range vals {
			out[l.StringValue()] = true
		}
	}
	return out
}

// TestCommitTimeoutAfterDataCommitted reproduces commitTransaction
// {writeConcern: {j: true}, maxTimeMS: 1} timing out while it waits for
// the journal, after the transaction's writes reached the database. The
// error must carry UnknownTransactionCommitResult and not
// TransientTransactionError (MongoDB labels commit errors this way), and a
// retried commit must succeed without applying the transaction twice.
func TestCommitTimeoutAfterDataCommitted(t *testing.T) {
	// No background fsync, so only the commit's own request syncs.
	eng, err := engine.Open(t.TempDir(), engine.Options{Logger: slog.New(slog.DiscardHandler), SyncInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	s := New(eng, Config{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { s.Close() })

	lsid := lsidDoc(7)
	if r := run(s, txnInsert(lsid, 1, true)); r.Lookup("ok").Double() != 1 {
		t.Fatalf("insert in transaction: %v", r)
	}
	commitJ := func(maxTimeMS bool) bsoncore.Document {
		b := bsoncore.NewDocumentBuilder().AppendInt32("commitTransaction", 1).AppendString("$db", "admin").
			AppendDocument("lsid", lsid).AppendInt64("txnNumber", 1).AppendBoolean("autocommit", false).
			AppendDocument("writeConcern", bsoncore.NewDocumentBuilder().AppendBoolean("j", true).Build())
		if maxTimeMS {
			b.AppendInt32("maxTimeMS", 1)
		}
		return b.Build()
	}
	// The command's time has run out by the time the journal wait starts.
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
	defer cancel()
	r := s.dispatch(ctx, nil, commitJ(true), false)
	if r.Lookup("ok").Double() != 0 || r.Lookup("code").Int32() != 50 {
		t.Fatalf("commit with an expired maxTimeMS: %v, want MaxTimeMSExpired (50)", r)
	}
	labels := labelsOf(r)
	if !labels["UnknownTransactionCommitResult"] || labels["TransientTransactionError"] {
		t.Fatalf("labels %v: want UnknownTransactionCommitResult and not TransientTransactionError", labels)
	}
	// The driver retries the commit: it succeeds.
	if r := run(s, commitJ(false)); r.Lookup("ok").Double() != 1 {
		t.Fatalf("retried commit: %v", r)
	}
	if r := run(s, commitJ(false)); r.Lookup("ok").Double() != 1 {
		t.Fatalf("second retried commit: %v", r)
	}
	// The transaction counts as committed: abort is refused with
	// TransactionCommitted (256).
	abort := bsoncore.NewDocumentBuilder().AppendInt32("abortTransaction", 1).AppendString("$db", "admin").
		AppendDocument("lsid", lsid).AppendInt64("txnNumber", 1).AppendBoolean("autocommit", false).Build()
	if r := run(s, abort); r.Lookup("code").Int32() != 256 {
		t.Fatalf("abort after commit: %v, want TransactionCommitted 256", r)
	}
	n, err := eng.Count(context.Background(), "db", "c", nil, 0, 0, bsoncore.Value{})
	if err != nil || n != 1 {
		t.Fatalf("documents after commit and retries: %d, %v; want 1", n, err)
	}
}
