package orders

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/lodedb/lode"
)

func openStore(t *testing.T) *Store {
	t.Helper()
	db, err := lode.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return New(db.Client().Database("shop").Collection("orders"))
}

func TestIncreaseQtySeed(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	if err := s.Create(ctx, "11223", Item{SKU: "123", Price: 55.11, Qty: 2}); err != nil {
		t.Fatal(err)
	}
	if err := s.IncreaseQty(ctx, "11223", "123", 55.11, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.IncreaseQty(ctx, "11223", "456", 10, 2); err != nil {
		t.Fatal(err)
	}
	o, err := s.Get(ctx, "11223")
	if err != nil {
		t.Fatal(err)
	}
	want := []Item{{"123", 55.11, 3}, {"456", 10, 2}}
	if len(o.Items) != 2 || o.Items[0] != want[0] || o.Items[1] != want[1] {
		t.Fatalf("items %+v, want %+v", o.Items, want)
	}
	if math.Abs(o.Total-185.33) > 1e-9 {
		t.Fatalf("total %v, want 185.33", o.Total)
	}
	if err := s.IncreaseQty(ctx, "nope", "1", 1, 1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing order: %v", err)
	}
	if err := s.Delete(ctx, "11223"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "11223"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted order: %v", err)
	}
}

// TestConcurrentTotal: 16 goroutines increase quantities of 5 SKUs while
// another removes lines; the stored total stays equal to sum(price*qty).
// Prices are binary fractions so the sums are exact.
func TestConcurrentTotal(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	if err := s.Create(ctx, "o1"); err != nil {
		t.Fatal(err)
	}
	prices := map[string]float64{"a": 0.25, "b": 1.5, "c": 10, "d": 2.125, "e": 99.75}
	skus := []string{"a", "b", "c", "d", "e"}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for i := 0; i < 60; i++ {
				sku := skus[rng.IntN(len(skus))]
				if err := s.IncreaseQty(ctx, "o1", sku, prices[sku], int64(1+rng.IntN(3))); err != nil {
					t.Error(err)
					return
				}
			}
		}(g)
	}
	removed := 0
	var rwg sync.WaitGroup
	rwg.Add(1)
	go func() {
		defer rwg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			ok, err := s.RemoveItem(ctx, "o1", skus[i%len(skus)])
			if err != nil {
				t.Error(err)
				return
			}
			if ok {
				removed++
			}
		}
	}()
	wg.Wait()
	close(stop)
	rwg.Wait()
	o, err := s.Get(ctx, "o1")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, it := range o.Items {
		if seen[it.SKU] {
			t.Fatalf("sku %s appears twice: %+v", it.SKU, o.Items)
		}
		seen[it.SKU] = true
	}
	if o.Total != o.Sum() {
		t.Fatalf("total %v != sum %v (items %+v)", o.Total, o.Sum(), o.Items)
	}
	t.Logf("total %v, %d lines removed concurrently", o.Total, removed)
}
