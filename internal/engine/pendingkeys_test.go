package engine

import (
	"testing"

	"github.com/lodedb/lode/internal/storage"
)

// The pending keys of a batch answer as a map would, whether a key came
// in rising order (the run) or not (the map), after removals and
// re-additions, per index, and nothing after a reset.
func TestPendingKeys(t *testing.T) {
	var p pendingKeys
	lock := func(id uint64, ks string) []byte { return storage.AppendIndexKeyLockKey(nil, id, []byte(ks)) }
	var kbuf []byte
	add := func(id uint64, ks string, rid uint64) { p.add(id, []byte(ks), rid, &kbuf) }
	want := func(id uint64, ks string, rid uint64, ok bool) {
		t.Helper()
		got, found := p.lookup(id, []byte(ks), lock(id, ks))
		if found != ok || found && got != rid {
			t.Fatalf("lookup(%d, %q) = %d, %v; want %d, %v", id, ks, got, found, rid, ok)
		}
	}
	add(1, "b", 10)
	add(1, "d", 11)
	add(1, "c", 12) // below the run's last: the map
	add(1, "f", 13)
	add(2, "a", 20) // another index
	want(1, "b", 10, true)
	want(1, "c", 12, true)
	want(1, "d", 11, true)
	want(1, "f", 13, true)
	want(1, "a", 0, false)
	want(1, "e", 0, false)
	want(1, "g", 0, false)
	want(2, "a", 20, true)
	want(2, "b", 0, false)
	want(3, "a", 0, false)
	p.remove(1, []byte("d"), lock(1, "d"), 99) // another record's: kept
	want(1, "d", 11, true)
	p.remove(1, []byte("d"), lock(1, "d"), 11)
	p.remove(1, []byte("c"), lock(1, "c"), 12)
	want(1, "d", 0, false)
	want(1, "c", 0, false)
	add(1, "d", 14) // back again, below the last: the map
	want(1, "d", 14, true)
	p.reset()
	for _, k := range []string{"b", "d", "f"} {
		want(1, k, 0, false)
	}
	want(2, "a", 0, false)
	add(1, "a", 30) // a new run from the start
	want(1, "a", 30, true)
	want(1, "b", 0, false)
}
