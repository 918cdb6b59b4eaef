package main

import "testing"

// The collector's target follows the processor adapter: lower on one
// processor (a lone client), lode serve's own on more.
func TestGCPercentFollowsProcs(t *testing.T) {
	if got := gcPercentFor(1); got != loneGCPercent {
		t.Errorf("one processor: GOGC %d, want %d", got, loneGCPercent)
	}
	for _, n := range []int{2, 4, 64} {
		if got := gcPercentFor(n); got != serverGCPercent {
			t.Errorf("%d processors: GOGC %d, want %d", n, got, serverGCPercent)
		}
	}
	if loneGCPercent >= serverGCPercent {
		t.Errorf("loneGCPercent %d is not below serverGCPercent %d", loneGCPercent, serverGCPercent)
	}
}
