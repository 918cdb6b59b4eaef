package main

import (
	"os"
	"testing"

	"github.com/lodedb/lode/test/testenv"
)

func TestGoMemoryLimit(t *testing.T) {
	inHeap := int64(0)
	if storageInGoHeap {
		inHeap = 768<<20 + memtableReserve // a 768 MiB cache and the memtables
	}
	if got, want := goMemoryLimit(12<<30, false, 768<<20, 32<<20), defaultHeapLimit+inHeap; got != want {
		t.Errorf("default budget: limit %d, want %d", got, want)
	}
	if got, want := goMemoryLimit(2<<30, true, 768<<20, 32<<20), 2<<30-32<<20-256<<20+inHeap; got != want {
		t.Errorf("--memory-budget-mb 2048: limit %d, want %d", got, want)
	}
	// What is resident outside the heap never takes the limit below half
	// the budget.
	if got, want := goMemoryLimit(64<<20, true, 768<<20, 48<<20), 32<<20+inHeap; got != want {
		t.Errorf("--memory-budget-mb 64: limit %d, want %d", got, want)
	}
}

// On Linux the program's resident text is read from /proc (it is what
// the limit leaves room for), and the machine's memory too.
func TestProcKB(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		testenv.Skip(t, testenv.GroupProc, "no /proc")
	}
	if got := residentFileBytes(); got <= 0 {
		t.Errorf("residentFileBytes = %d, want the resident text's size", got)
	}
	if got := defaultMemoryBudgetMB(); got <= 0 {
		t.Errorf("defaultMemoryBudgetMB = %d, want half of MemTotal", got)
	}
	if _, ok := procKB("/proc/self/status", "NoSuchField:"); ok {
		t.Error("a missing field was found")
	}
}
