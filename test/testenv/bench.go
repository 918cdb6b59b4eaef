package testenv

import (
	"sync"
	"sync/atomic"
	"testing"
)

// RunConcurrent runs b.N operations spread over n concurrent workers,
// timing only them.
func RunConcurrent(b *testing.B, n int, op func(worker, i int) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= b.N {
					return
				}
				if err := op(w, i); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
}
