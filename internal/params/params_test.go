package params

import (
	"testing"

	"github.com/lodedb/lode/internal/membudget"
)

// TestNewDefaults checks MongoDB's defaults and that two sets share
// nothing.
func TestNewDefaults(t *testing.T) {
	a, b := New(nil), New(nil)
	if a.MaxScansToExplode.Load() != 200 || a.MaxBlockingSortBytes.Load() != 100<<20 ||
		a.GroupMaxBytes.Load() != 100<<20 || a.MaxPushBytes.Load() != 100<<20 ||
		a.MaxAddToSetBytes.Load() != 100<<20 || !a.AllowDiskUseByDefault.Load() {
		t.Fatal("defaults differ from MongoDB's")
	}
	if a.Budget == nil || a.Budget == b.Budget || a.Budget.Limit() != 0 {
		t.Fatal("each set needs its own unlimited budget")
	}
	a.MaxBlockingSortBytes.Store(1)
	a.AllowDiskUseByDefault.Store(false)
	a.NotePeakGroupMem(10)
	a.NotePeakGroupMem(5)
	if b.MaxBlockingSortBytes.Load() != 100<<20 || !b.AllowDiskUseByDefault.Load() || b.Stats.PeakGroupMem.Load() != 0 {
		t.Fatal("a change to one set shows in another")
	}
	if a.Stats.PeakGroupMem.Load() != 10 {
		t.Fatalf("peak %d, want 10", a.Stats.PeakGroupMem.Load())
	}
	shared := new(membudget.Budget)
	if New(shared).Budget != shared {
		t.Fatal("the given budget is not used")
	}
}
