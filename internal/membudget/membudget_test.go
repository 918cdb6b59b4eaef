package membudget

import (
	"sync"
	"testing"
)

func TestBudget(t *testing.T) {
	var b Budget
	b.SetLimit(3 << 20)
	r1, r2 := For(&b), For(&b)
	if !r1.Grow(10) || r1.Held() != chunk {
		t.Fatalf("first grow: held %d", r1.Held())
	}
	if !r1.Grow(chunk) || r1.Held() != chunk {
		t.Fatalf("grow within the chunk reserved more: %d", r1.Held())
	}
	if !r2.Grow(2 << 20) {
		t.Fatal("second reservation refused within the limit")
	}
	if r1.Grow(chunk + 1) {
		t.Fatal("a grow past the limit was granted")
	}
	if b.Used() != 3<<20 || b.Refused() != 1 {
		t.Fatalf("used %d refused %d", b.Used(), b.Refused())
	}
	r2.Release()
	if !r1.Grow(chunk + 1) {
		t.Fatal("refused after the other reservation was released")
	}
	r1.Release()
	if b.Used() != 0 {
		t.Fatalf("used %d after releasing everything", b.Used())
	}
}

func TestBudgetConcurrent(t *testing.T) {
	var b Budget
	b.SetLimit(64 << 20)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				r := For(&b)
				if r.Grow(int64(i%9) << 20) {
					if b.Used() > b.Limit() {
						t.Error("over the limit")
					}
				}
				r.Release()
			}
		}()
	}
	wg.Wait()
	if b.Used() != 0 {
		t.Fatalf("used %d at the end", b.Used())
	}
}

// TestNoBudget: a reservation on no budget (nil) grants every growth, and
// a nil Budget reports nothing.
func TestNoBudget(t *testing.T) {
	r := For(nil)
	if !r.Grow(1 << 30) {
		t.Fatal("a reservation on no budget was refused")
	}
	r.Release()
	var b *Budget
	if b.Limit() != 0 || b.Used() != 0 || b.Refused() != 0 || r.Budget() != nil {
		t.Fatal("a nil budget reports figures")
	}
}
