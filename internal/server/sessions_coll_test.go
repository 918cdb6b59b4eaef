package server

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/cursor"
	"github.com/lodedb/lode/internal/engine"
)

// emptySource is a cursor source with no documents.
type emptySource struct{}

func (emptySource) Next() (bsoncore.Document, error) { return nil, nil }
func (emptySource) Close() error                     { return nil }

func countSessions(t *testing.T, s *Server) int64 {
	t.Helper()
	n, err := s.eng.Count(context.Background(), sessionsDB, sessionsColl, nil, 0, 0, bsoncore.Value{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSessionRecordsExpire: a refresh writes the sessions used since the
// last one to config.system.sessions; the TTL monitor deletes a record
// idle longer than localLogicalSessionTimeoutMinutes (here 2).
func TestSessionRecordsExpire(t *testing.T) {
	eng, err := engine.Open(t.TempDir(), engine.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	s := New(eng, Config{Logger: slog.New(slog.DiscardHandler), SessionTimeoutMinutes: 2})
	t.Cleanup(func() { s.Close() })
	ping := bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).AppendString("$db", "admin").AppendDocument("lsid", lsidDoc(1)).Build()
	if r := run(s, ping); r.Lookup("ok").Double() != 1 {
		t.Fatalf("ping: %v", r)
	}
	if err := s.refreshSessionCache(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := countSessions(t, s); n != 1 {
		t.Fatalf("%d records after the refresh, want 1", n)
	}
	if _, err := eng.RunTTLPass(context.Background(), time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if n := countSessions(t, s); n != 1 {
		t.Fatalf("record expired after a minute")
	}
	if _, err := eng.RunTTLPass(context.Background(), time.Now().Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if n := countSessions(t, s); n != 0 {
		t.Fatalf("%d records after 3 minutes, want 0", n)
	}
}

// TestSessionExpiryKillsCursors: an expired session's cursors are killed
// and its transaction aborted, after localLogicalSessionTimeoutMinutes.
func TestSessionExpiryKillsCursors(t *testing.T) {
	eng, err := engine.Open(t.TempDir(), engine.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	s := New(eng, Config{Logger: slog.New(slog.DiscardHandler), SessionTimeoutMinutes: 2})
	t.Cleanup(func() { s.Close() })
	lsid := lsidDoc(3)
	if r := run(s, txnInsert(lsid, 1, true)); r.Lookup("ok").Double() != 1 {
		t.Fatalf("insert: %v", r)
	}
	key := string(lsid.Lookup("id").Data[5:])
	c := cursor.New("test.c", emptySource{})
	c.Session = key
	id := s.cursors.Register(c)
	other := cursor.New("test.c", emptySource{})
	otherID := s.cursors.Register(other)
	ss := s.sessions.lookup(key)
	s.reapOnce(time.Now().Add(time.Minute))
	if s.sessions.lookup(key) == nil {
		t.Fatal("session expired after a minute")
	}
	s.reapOnce(time.Now().Add(3 * time.Minute))
	if s.sessions.lookup(key) != nil {
		t.Fatal("session alive after 3 minutes")
	}
	if ss.state != txnAborted {
		t.Fatalf("transaction state %v, want aborted", ss.state)
	}
	if _, nf := s.cursors.Kill([]int64{id}); len(nf) != 1 {
		t.Fatal("the expired session's cursor is still open")
	}
	if _, nf := s.cursors.Kill([]int64{otherID}); len(nf) != 0 {
		t.Fatal("a cursor without session was killed")
	}
}

// TestSessionsTTLFollowsTimeout: a server started with another
// localLogicalSessionTimeoutMinutes corrects lsidTTLIndex at its first
// refresh, as mongod's sessions collection setup does.
func TestSessionsTTLFollowsTimeout(t *testing.T) {
	eng, err := engine.Open(t.TempDir(), engine.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	ttl := func() int64 {
		ixs, err := eng.ListIndexes(sessionsDB, sessionsColl)
		if err != nil {
			t.Fatal(err)
		}
		for _, ix := range ixs {
			if ix.Name == sessionsTTLName && ix.ExpireAfterSeconds != nil {
				return *ix.ExpireAfterSeconds
			}
		}
		t.Fatalf("no %s in %v", sessionsTTLName, ixs)
		return 0
	}
	for _, minutes := range []int{2, 5} {
		s := New(eng, Config{Logger: slog.New(slog.DiscardHandler), SessionTimeoutMinutes: minutes})
		if err := s.refreshSessionCache(context.Background()); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if got := ttl(); got != int64(minutes)*60 {
			t.Fatalf("expireAfterSeconds %d with %d minutes", got, minutes)
		}
	}
}
