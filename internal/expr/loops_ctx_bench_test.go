package expr

import (
	"context"
	"testing"
)

// BenchmarkExprLoopsWithContext is BenchmarkExprLoops with the interrupt
// checks live (a context set, as the pipeline sets it).
func BenchmarkExprLoopsWithContext(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	benchLoops(b, func(vs *Vars) { vs.SetContext(ctx) })
}
