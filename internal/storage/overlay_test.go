package storage

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// openTestDB opens a DB on a fresh directory, closed when the test ends;
// its log is quiet (tests that fail writes on purpose would fill it).
func openTestDB(t *testing.T) *DB {
	t.Helper()
	db, err := Open(t.TempDir(), Options{Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func commitSets(t *testing.T, db *DB, kv map[string]string, dels ...string) {
	t.Helper()
	b := db.NewBatch()
	for k, v := range kv {
		_ = b.pb.Set([]byte(k), []byte(v), nil)
	}
	for _, k := range dels {
		_ = b.pb.Delete([]byte(k), nil)
	}
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
}

// scanAll returns "k=v" for every entry of it, forward or backward.
func scanAll(t *testing.T, r Reader, reverse bool) []string {
	t.Helper()
	it, err := r.newIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []string
	first, step := it.First, it.Next
	if reverse {
		first, step = it.Last, it.Prev
	}
	for valid := first(); valid; valid = step() {
		out = append(out, string(it.Key())+"="+string(it.Value()))
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return out
}

func getStr(t *testing.T, r Reader, k string) string {
	t.Helper()
	v, ok, err := Get(r, []byte(k), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return "<none>"
	}
	return string(v)
}

func TestOverlaySnapshotIsolation(t *testing.T) {
	db := openTestDB(t)
	commitSets(t, db, map[string]string{"a": "1", "b": "1", "c": "1", "d": "1"})
	snap := db.NewSnapshot()
	defer snap.Close()
	b := db.NewIndexedBatch()
	defer b.Close()
	o := NewOverlay(snap, b)

	// Committed after the snapshot: invisible to the overlay.
	commitSets(t, db, map[string]string{"a": "2", "e": "2"}, "b")
	_ = b.pb.Set([]byte("c"), []byte("tx"), nil)
	_ = b.pb.SingleDelete([]byte("d"), nil)
	_ = b.pb.Set([]byte("f"), []byte("tx"), nil)
	_ = b.pb.Delete([]byte("b"), nil)

	tests := []struct{ key, want string }{
		{"a", "1"},      // snapshot value, not the later commit
		{"b", "<none>"}, // deleted by the batch
		{"c", "tx"},     // own write
		{"d", "<none>"}, // single-deleted by the batch
		{"e", "<none>"}, // committed after the snapshot
		{"f", "tx"},     // own insert
	}
	for _, tc := range tests {
		if got := getStr(t, o, tc.key); got != tc.want {
			t.Errorf("Get(%s) = %s, want %s", tc.key, got, tc.want)
		}
	}
	want := []string{"a=1", "c=tx", "f=tx"}
	if got := scanAll(t, o, false); !slices.Equal(got, want) {
		t.Errorf("forward scan = %v, want %v", got, want)
	}
	slices.Reverse(want)
	if got := scanAll(t, o, true); !slices.Equal(got, want) {
		t.Errorf("reverse scan = %v, want %v", got, want)
	}

	// Writes after an iterator was created are not seen by it, but are seen
	// by a new one; a deleted-then-set key comes back.
	it, _ := o.newIter(nil)
	_ = b.pb.Set([]byte("b"), []byte("again"), nil)
	_ = b.pb.Delete([]byte("a"), nil)
	var old []string
	for v := it.First(); v; v = it.Next() {
		old = append(old, string(it.Key()))
	}
	it.Close()
	if !slices.Equal(old, []string{"a", "c", "f"}) {
		t.Errorf("old iterator saw %v", old)
	}
	if got, w := scanAll(t, o, false), []string{"b=again", "c=tx", "f=tx"}; !slices.Equal(got, w) {
		t.Errorf("scan after more writes = %v, want %v", got, w)
	}
	if got := getStr(t, o, "a"); got != "<none>" {
		t.Errorf("Get(a) after delete = %s", got)
	}
}

// TestOverlayRandom compares the overlay against a model under random
// writes, seeks and direction changes.
func TestOverlayRandom(t *testing.T) {
	db := openTestDB(t)
	rng := rand.New(rand.NewSource(1))
	key := func() string { return fmt.Sprintf("k%02d", rng.Intn(40)) }
	base := map[string]string{}
	for i := 0; i < 25; i++ {
		base[key()] = "s"
	}
	commitSets(t, db, base)
	snap := db.NewSnapshot()
	defer snap.Close()
	model := map[string]string{}
	for k, v := range base {
		model[k] = v
	}
	b := db.NewIndexedBatch()
	defer b.Close()
	o := NewOverlay(snap, b)
	for round := 0; round < 30; round++ {
		// Concurrent commits the overlay must not see.
		commitSets(t, db, map[string]string{key(): "later"}, key())
		for i := 0; i < 5; i++ {
			k := key()
			if rng.Intn(2) == 0 {
				v := fmt.Sprintf("b%d", round)
				_ = b.pb.Set([]byte(k), []byte(v), nil)
				model[k] = v
			} else {
				_ = b.pb.Delete([]byte(k), nil)
				delete(model, k)
			}
		}
		keys := make([]string, 0, len(model))
		for k := range model {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i := 0; i < 40; i++ {
			k := fmt.Sprintf("k%02d", i)
			want, ok := model[k]
			if !ok {
				want = "<none>"
			}
			if got := getStr(t, o, k); got != want {
				t.Fatalf("round %d: Get(%s) = %s, want %s", round, k, got, want)
			}
		}
		// Random walk: seek, then move either way, checking positions.
		it, err := o.newIter(&pebble.IterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pos := -1
		seek := fmt.Sprintf("k%02d", rng.Intn(40))
		if rng.Intn(2) == 0 {
			it.SeekGE([]byte(seek))
			pos, _ = slices.BinarySearch(keys, seek)
		} else {
			it.SeekLT([]byte(seek))
			p, _ := slices.BinarySearch(keys, seek)
			pos = p - 1
		}
		for step := 0; step < 20; step++ {
			wantValid := pos >= 0 && pos < len(keys)
			if it.Valid() != wantValid {
				t.Fatalf("round %d step %d: valid %v, want %v (pos %d)", round, step, it.Valid(), wantValid, pos)
			}
			if !wantValid {
				break
			}
			if got := string(it.Key()); got != keys[pos] || string(it.Value()) != model[keys[pos]] {
				t.Fatalf("round %d step %d: at %s=%s, want %s", round, step, got, it.Value(), keys[pos])
			}
			if rng.Intn(2) == 0 {
				it.Next()
				pos++
			} else {
				it.Prev()
				pos--
			}
		}
		if err := errors.Join(it.Error(), it.Close()); err != nil {
			t.Fatal(err)
		}
	}
}
