package storage

import (
	"testing"

	"github.com/cockroachdb/pebble/v2"
)

// A unique check for a key past the end of its index must not walk the
// next index's deleted entries: a queue's claim index fills its head with
// set/single-delete pairs in the memtable, and the check runs on every
// insert. Nor, keeping gaps, the deleted entries of its own index after
// the key sought: the first such seek turns the gaps off.
func TestIndexProbeStopsAtItsPrefix(t *testing.T) {
	db := openTestDB(t)
	// Index 7: a live key 0x20, 5,000 deleted keys 0x40xxxx, a live key
	// 0x50; index 8: 5,000 deleted keys.
	b := db.NewBatch()
	deleted := func(id uint64, first byte) [][]byte {
		var ks [][]byte
		for i := uint64(0); i < 5000; i++ {
			ks = append(ks, appendIndexKey(nil, id, []byte{first, byte(i >> 8), byte(i)}, i))
		}
		return ks
	}
	dead := append(deleted(8, 0x10), deleted(7, 0x40)...)
	for _, k := range dead {
		if err := b.pb.Set(k, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.pb.Commit(pebble.NoSync); err != nil {
		t.Fatal(err)
	}
	b = db.NewBatch()
	for _, k := range dead {
		if err := b.pb.SingleDelete(k, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range [][]byte{appendIndexKey(nil, 7, []byte{0x20}, 1), appendIndexKey(nil, 7, []byte{0x50}, 2)} {
		if err := b.pb.Set(k, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.pb.Commit(pebble.NoSync); err != nil {
		t.Fatal(err)
	}
	steps := func(p *IndexProbe) int { return p.internalSteps() }
	var found []uint64
	collect := func(r RecordID) bool { found = append(found, uint64(r)); return true }
	find := func(p *IndexProbe, ks byte, want int) {
		t.Helper()
		found = found[:0]
		if err := p.Find(7, []byte{ks}, collect); err != nil {
			t.Fatal(err)
		}
		if len(found) != want {
			t.Fatalf("ks %x: found %v", ks, found)
		}
	}
	// Without gaps: index 7's key 0x20, a key past it (index 7's deleted
	// keys follow), a key past 0x50 (index 8's deleted keys follow).
	var p IndexProbe
	if err := p.Open(db.Reader()); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	find(&p, 0x20, 1)
	find(&p, 0x30, 0)
	find(&p, 0x60, 0)
	if n := steps(&p); n > 100 {
		t.Fatalf("the checks stepped over %d internal keys: a seek ran past its prefix", n)
	}
	// Keeping gaps: the seek for 0x30 steps over index 7's deleted keys
	// to 0x50, once; the gaps are off after it, and the next seeks stop
	// at their prefix again.
	var q IndexProbe
	if err := q.Open(db.Reader()); err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	q.KeepGaps()
	find(&q, 0x30, 0)
	first := steps(&q)
	if q.gaps || q.gap.ok {
		t.Fatalf("a seek over %d internal keys left the gaps on", first)
	}
	find(&q, 0x31, 0)
	find(&q, 0x32, 0)
	find(&q, 0x60, 0)
	if n := steps(&q) - first; n > 100 {
		t.Fatalf("after the gaps were turned off, the checks stepped over %d internal keys", n)
	}
	if q.seeks != 4 {
		t.Fatalf("%d seeks, want 4", q.seeks)
	}
}
