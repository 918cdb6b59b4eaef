package storage

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestWALDirectBytes drives one log through every path of waldirect.go in
// a random order: writes kept for a lone j:true writer and sent directly
// at its sync, writes through the page cache after a direct one (the tail
// page written whole), writes too large to keep, stashes handed over when
// a writer ends. After each sync the file must hold exactly what was
// written, then zeros; at the end too.
func TestWALDirectBytes(t *testing.T) {
	dir := t.TempDir()
	db := openTestDB(t)
	w := newDirectTestWAL(t, db, filepath.Join(dir, "d.log"))
	// The test plays the DB's writers: lone says one j:true command is
	// under way (loneSyncWriter), otherwise a w:1 one and a j:true one.
	setLone := func(lone bool) {
		if lone {
			db.writers.Store(1)
		} else {
			db.writers.Store(2)
		}
		db.syncWanted.Store(1)
	}
	defer func() { db.writers.Store(0); db.syncWanted.Store(0) }()
	directBefore := db.walDirectWrites.Load()

	check := func(want []byte, when string) {
		t.Helper()
		got, err := os.ReadFile(filepath.Join(dir, "d.log"))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) < len(want) || !bytes.Equal(got[:len(want)], want) {
			i := 0
			for i < len(want) && i < len(got) && got[i] == want[i] {
				i++
			}
			t.Fatalf("%s: the log differs from what was written at byte %d of %d (file %d bytes)", when, i, len(want), len(got))
		}
		if len(bytes.Trim(got[len(want):], "\x00")) != 0 {
			t.Fatalf("%s: the log holds more than zeros after the %d bytes written", when, len(want))
		}
	}

	r := rand.New(rand.NewPCG(33, 7))
	var want []byte
	syncs := 0
	for i := range 4000 {
		// Long stretches alone (the streak of lone syncs builds up and
		// writes are kept), then a stretch where writers come and go.
		setLone((i/500)%3 != 2 || r.IntN(4) != 0)
		var n int
		switch k := r.IntN(20); {
		case k == 0:
			n = 40<<10 + r.IntN(100<<10) // does not fit the stash
		case k < 4:
			n = 1 + r.IntN(3*walPage) // may cross pages
		default:
			n = 1 + r.IntN(300) // a j:true insert's batch
		}
		p := make([]byte, n)
		for j := range p {
			p[j] = byte(i + j*7)
		}
		if m, err := w.Write(p); err != nil || m != n {
			t.Fatalf("write %d: %d, %v", i, m, err)
		}
		want = append(want, p...)
		switch k := r.IntN(10); {
		case k < 3:
			if err := w.SyncData(); err != nil {
				t.Fatal(err)
			}
			if syncs++; syncs%25 == 0 {
				check(want, fmt.Sprintf("after sync %d", syncs))
			}
		case k == 3:
			if err := w.flushStash(); err != nil { // a j:true command ended
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	check(want, "after close")
	if db.walDirectWrites.Load() == directBefore {
		t.Fatal("no write went directly")
	}
	if w.direct.wholePages == 0 {
		t.Fatal("no write after a direct one wrote its tail page whole")
	}
}

// TestWALDirectReplay: a lone j:true writer's commits go to the log
// directly, between w:1 commits that go through the page cache; the DB
// reopened replays the log with every commit in it.
func TestWALDirectReplay(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	key := func(w, i int) []byte { return appendRecordKey(nil, uint64(1+w), RecordID(uint64(i+1))) }
	val := func(w, i int) []byte { return bytes.Repeat([]byte{byte(w*31 + i)}, 50+i%700) }
	commit := func(w, i int, journal bool) error { return commitOne(db, key(w, i), val(w, i), journal) }
	const each = 400
	// Alone first, then beside a w:1 writer.
	for i := range each {
		if err := commit(0, i, true); err != nil {
			t.Fatal(err)
		}
	}
	if db.Stats().WALDirectWrites == 0 {
		t.Fatal("a lone j:true writer's commits did not go directly")
	}
	var wg sync.WaitGroup
	wg.Add(2)
	for w := 1; w <= 2; w++ {
		go func(w int) {
			defer wg.Done()
			for i := range each {
				if err := commit(w, i, w == 1); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	for i := range each {
		if err := commit(0, each+i, true); err != nil {
			t.Fatal(err)
		}
	}
	db = reopenTestDB(t, db, dir)
	for w := 0; w <= 2; w++ {
		n := each
		if w == 0 {
			n = 2 * each
		}
		for i := range n {
			checkValue(t, db, key(w, i), val(w, i))
		}
	}
}

// commitOne commits key = val as a write command of its own; journal: it
// waits for its sync, as a j:true command does.
func commitOne(db *DB, key, val []byte, journal bool) error {
	db.BeginWrite(journal)
	defer db.EndWrite(journal)
	b := db.NewBatch()
	_ = b.pb.Set(key, val, nil)
	seq, err := db.Commit(b)
	if err == nil && journal {
		err = db.WaitDurable(context.Background(), seq)
	}
	return err
}

// reopenTestDB closes db and opens dir again; the new DB is closed at the
// test's end. Pebble's close leaves the memtable's commits in the log, so
// the new DB replays them.
func reopenTestDB(t *testing.T, db *DB, dir string) *DB {
	t.Helper()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := Open(dir, Options{Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// checkValue fails t unless key holds want.
func checkValue(t *testing.T, db *DB, key, want []byte) {
	t.Helper()
	got, closer, err := db.pdb.Get(key)
	if err != nil {
		t.Fatalf("key %x after reopening: %v", key, err)
	}
	defer closer.Close()
	if !bytes.Equal(got, want) {
		t.Fatalf("key %x: wrong value after reopening", key)
	}
}

// TestWALWithoutDirect: where the log cannot be opened for direct writes
// (a filesystem without O_DIRECT; a test switch here, since this
// kernel's tmpfs takes it) the log stays on the page cache, and a lone
// j:true writer's commits are synced and replayed as before.
func TestWALWithoutDirect(t *testing.T) {
	noDirectWAL = true
	t.Cleanup(func() { noDirectWAL = false })
	dir := t.TempDir()
	db, err := Open(dir, Options{Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	key := func(i int) []byte { return appendRecordKey(nil, 1, RecordID(uint64(i+1))) }
	for i := range 100 {
		if err := commitOne(db, key(i), []byte("v"), true); err != nil {
			t.Fatal(err)
		}
	}
	if n := db.Stats().WALDirectWrites; n != 0 {
		t.Fatalf("%d direct writes on a filesystem without O_DIRECT", n)
	}
	db = reopenTestDB(t, db, dir)
	for i := range 100 {
		checkValue(t, db, key(i), []byte("v"))
	}
}

// newDirectTestWAL creates the log name through db's filesystem, raw
// and with direct writes; it skips the test where the filesystem
// refuses O_DIRECT.
func newDirectTestWAL(t *testing.T, db *DB, name string) *walFile {
	t.Helper()
	f, err := guardFS{FS: vfs.Default, db: db, raw: true}.Create(name, walCategory)
	if err != nil {
		t.Fatal(err)
	}
	w := f.(*walFile)
	if w.direct == nil || w.direct.fd < 0 {
		f.Close()
		t.Skip("no O_DIRECT on this filesystem")
	}
	return w
}

// TestWALDirectStreak: the streak of lone syncs that lets a j:true
// writer's log writes go directly is broken by a sync with other writers
// under way, and not by one with none (the periodic sync between two
// commands, ten a second: breaking it there sent a tenth of one client's
// commits through the page cache and an fdatasync).
func TestWALDirectStreak(t *testing.T) {
	db := openTestDB(t)
	w := newDirectTestWAL(t, db, filepath.Join(t.TempDir(), "d.log"))
	defer func() { db.writers.Store(0); db.syncWanted.Store(0) }()
	// commit plays one command: its writers, a write and a sync; it
	// reports whether the sync went directly.
	commit := func(writers, wanted int32) bool {
		t.Helper()
		db.writers.Store(writers)
		db.syncWanted.Store(wanted)
		before := db.walDirectWrites.Load()
		if _, err := w.Write(make([]byte, 100)); err != nil {
			t.Fatal(err)
		}
		if err := w.SyncData(); err != nil {
			t.Fatal(err)
		}
		return db.walDirectWrites.Load() > before
	}
	for range walLoneStreak + 1 {
		commit(1, 1)
	}
	if !commit(1, 1) {
		t.Fatal("a lone j:true writer's commit after a streak did not go directly")
	}
	// The periodic sync, no command under way.
	db.writers.Store(0)
	db.syncWanted.Store(0)
	if err := w.SyncData(); err != nil {
		t.Fatal(err)
	}
	if !commit(1, 1) {
		t.Fatal("a sync without writers broke the streak")
	}
	// Another writer under way: the streak starts again.
	commit(2, 1)
	if commit(1, 1) {
		t.Fatal("a lone writer's commit went directly right after a sync with two writers")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
