package cursor

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// sliceSource yields docs in order and records whether it was closed.
type sliceSource struct {
	docs   []bsoncore.Document
	closed atomic.Bool
}

func (s *sliceSource) Next() (bsoncore.Document, error) {
	if len(s.docs) == 0 {
		return nil, nil
	}
	d := s.docs[0]
	s.docs = s.docs[1:]
	return d, nil
}

func (s *sliceSource) Close() error { s.closed.Store(true); return nil }

func docs(n int) *sliceSource {
	s := &sliceSource{}
	for i := 0; i < n; i++ {
		s.docs = append(s.docs, bsoncore.NewDocumentBuilder().AppendInt32("i", int32(i)).Build())
	}
	return s
}

func wantCode(t *testing.T, err error, code errs.Code) {
	t.Helper()
	if e := errs.As(err); e == nil || e.Code != code {
		t.Fatalf("error %v, want code %d", err, code)
	}
}

func TestRegisterCheckoutRelease(t *testing.T) {
	r := NewRegistry(time.Hour)
	defer r.Close()
	src := docs(3)
	c := New("db.c", src)
	id := r.Register(c)
	if id <= 0 || r.Len() != 1 {
		t.Fatalf("id %d len %d", id, r.Len())
	}
	_, err := r.Checkout(id+1, "db.c")
	wantCode(t, err, errs.CursorNotFound)
	_, err = r.Checkout(id, "db.other")
	wantCode(t, err, errs.Unauthorized)
	got, err := r.Checkout(id, "db.c")
	if err != nil || got != c {
		t.Fatalf("checkout: %v", err)
	}
	// A checked-out cursor cannot be taken by a second getMore.
	_, err = r.Checkout(id, "db.c")
	wantCode(t, err, errs.CursorNotFound)
	r.Release(c, false)
	if src.closed.Load() || r.Len() != 1 {
		t.Fatal("released cursor closed or removed")
	}
	got, _ = r.Checkout(id, "db.c")
	r.Release(got, true)
	if !src.closed.Load() || r.Len() != 0 {
		t.Fatal("exhausted cursor not closed and removed")
	}
	_, err = r.Checkout(id, "db.c")
	wantCode(t, err, errs.CursorNotFound)
}

func TestRegisterGivesDistinctIDs(t *testing.T) {
	r := NewRegistry(time.Hour)
	defer r.Close()
	seen := map[int64]bool{}
	for i := 0; i < 1000; i++ {
		id := r.Register(New("db.c", docs(0)))
		if id <= 0 || seen[id] {
			t.Fatalf("id %d repeated or not positive", id)
		}
		seen[id] = true
	}
}

func TestKill(t *testing.T) {
	r := NewRegistry(time.Hour)
	defer r.Close()
	a, b := docs(1), docs(1)
	ida := r.Register(New("db.c", a))
	idb := r.Register(New("db.c", b))
	killed, notFound := r.Kill([]int64{ida, 12345})
	if len(killed) != 1 || killed[0] != ida || len(notFound) != 1 || notFound[0] != 12345 {
		t.Fatalf("killed %v notFound %v", killed, notFound)
	}
	if !a.closed.Load() || b.closed.Load() {
		t.Fatal("wrong source closed")
	}
	r.Close()
	if !b.closed.Load() || r.Len() != 0 {
		t.Fatal("Close left a cursor open")
	}
	if _, err := r.Checkout(idb, "db.c"); err == nil {
		t.Fatal("cursor usable after Close")
	}
}

// waitFor polls cond for up to 2 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestReaperClosesIdleCursors(t *testing.T) {
	r := NewRegistry(100 * time.Millisecond)
	defer r.Close()
	idle, exempt, busy := docs(2), docs(2), docs(2)
	idleID := r.Register(New("db.c", idle))
	ex := New("db.c", exempt)
	ex.NoTimeout = true
	exID := r.Register(ex)
	bc := New("db.c", busy)
	busyID := r.Register(bc)
	if _, err := r.Checkout(busyID, "db.c"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "idle cursor reaped", idle.closed.Load)
	_, err := r.Checkout(idleID, "db.c")
	wantCode(t, err, errs.CursorNotFound)
	time.Sleep(200 * time.Millisecond)
	if exempt.closed.Load() || busy.closed.Load() {
		t.Fatal("noCursorTimeout or checked-out cursor was reaped")
	}
	if _, err := r.Checkout(exID, "db.c"); err != nil {
		t.Fatalf("noCursorTimeout cursor: %v", err)
	}
	// A released cursor's idle time starts at its release.
	r.Release(bc, false)
	if busy.closed.Load() {
		t.Fatal("released cursor closed at once")
	}
	waitFor(t, "released cursor reaped", busy.closed.Load)
}

func TestSetTimeout(t *testing.T) {
	r := NewRegistry(time.Hour)
	defer r.Close()
	src := docs(1)
	id := r.Register(New("db.c", src))
	time.Sleep(50 * time.Millisecond)
	if n := r.reapIdle(time.Now()); n != 0 || src.closed.Load() {
		t.Fatal("cursor reaped under a one-hour timeout")
	}
	// Shortening the timeout applies to open cursors and to the reaper's
	// period (which was one minute under the old timeout).
	r.SetTimeout(20 * time.Millisecond)
	if got := r.Timeout(); got != 20*time.Millisecond {
		t.Fatalf("Timeout() = %v", got)
	}
	waitFor(t, "cursor reaped after SetTimeout", src.closed.Load)
	_, err := r.Checkout(id, "db.c")
	wantCode(t, err, errs.CursorNotFound)
	r.SetTimeout(0)
	if got := r.Timeout(); got != DefaultTimeout {
		t.Fatalf("SetTimeout(0) gave %v", got)
	}
}

func TestNextBatchBounds(t *testing.T) {
	ctx := context.Background()
	c := New("db.c", docs(5))
	b, done, err := c.NextBatch(ctx, 2, 1<<20)
	if err != nil || len(b) != 2 || done {
		t.Fatalf("batch %d done %v err %v", len(b), done, err)
	}
	// The batch that drains the source reports exhaustion.
	b, done, _ = c.NextBatch(ctx, 3, 1<<20)
	if len(b) != 3 || !done {
		t.Fatalf("last batch %d done %v", len(b), done)
	}
	// Byte bound: each document is 12 bytes; the first is always taken.
	c = New("db.c", docs(5))
	b, done, _ = c.NextBatch(ctx, 0, 30)
	if len(b) != 2 || done {
		t.Fatalf("byte-bounded batch %d done %v", len(b), done)
	}
	b, _, _ = c.NextBatch(ctx, 0, 1)
	if len(b) != 1 {
		t.Fatalf("tiny maxBytes batch %d", len(b))
	}
	// Limit ends the cursor even with data left.
	c = New("db.c", docs(5))
	c.Limit = 3
	b, done, _ = c.NextBatch(ctx, 0, 1<<20)
	if len(b) != 3 || !done {
		t.Fatalf("limit batch %d done %v", len(b), done)
	}
	// A tailable cursor stays open at the end of its data.
	c = New("db.c", docs(1))
	c.Tailable = true
	b, done, _ = c.NextBatch(ctx, 0, 1<<20)
	if len(b) != 1 || done {
		t.Fatalf("tailable batch %d done %v", len(b), done)
	}
	// An expired context fails the batch with MaxTimeMSExpired.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, _, err = New("db.c", docs(1)).NextBatch(cctx, 0, 1<<20)
	wantCode(t, err, errs.MaxTimeMSExpired)
}
