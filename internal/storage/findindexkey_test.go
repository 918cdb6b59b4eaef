package storage

import (
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// A unique check for a key past the end of its index must not walk the
// next index's deleted entries: a queue's claim index fills its head with
// set/single-delete pairs in the memtable, and the check runs on every
// insert.
func TestFindIndexKeyStopsAtItsPrefix(t *testing.T) {
	db := openTestDB(t)
	b := db.NewBatch()
	for i := uint64(0); i < 5000; i++ {
		if err := b.pb.Set(appendIndexKey(nil, 8, []byte{0x10, byte(i >> 8), byte(i)}, i), nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.pb.Commit(pebble.NoSync); err != nil {
		t.Fatal(err)
	}
	b = db.NewBatch()
	for i := uint64(0); i < 5000; i++ {
		if err := b.pb.SingleDelete(appendIndexKey(nil, 8, []byte{0x10, byte(i >> 8), byte(i)}, i), nil); err != nil {
			t.Fatal(err)
		}
	}
	live := appendIndexKey(nil, 7, []byte{0x20}, 1)
	if err := b.pb.Set(live, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.pb.Commit(pebble.NoSync); err != nil {
		t.Fatal(err)
	}
	it, err := db.Reader().newIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var found []uint64
	collect := func(r RecordID) bool { found = append(found, uint64(r)); return true }
	// Index 7's only key, then a key past it: the next keys in the
	// keyspace are index 8's 5,000 deleted entries.
	for _, ks := range [][]byte{{0x20}, {0x30}} {
		found = found[:0]
		if it, _, err = findIndexKey(nil, it, 7, ks, nil, collect); err != nil {
			t.Fatal(err)
		}
		if want := ks[0] == 0x20; (len(found) == 1) != want {
			t.Fatalf("ks %x: found %v", ks, found)
		}
	}
	steps := it.(*pebble.Iterator).Stats().ForwardStepCount[pebble.InternalIterCall]
	if steps > 100 {
		t.Fatalf("the two checks stepped over %d internal keys: the seek ran past its prefix", steps)
	}
}
