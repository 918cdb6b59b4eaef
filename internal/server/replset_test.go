package server

import (
	"bytes"
	"testing"
)

// The template appendClusterTime copies gives the same bytes as the
// elements built one by one, for timestamps whose parts differ.
func TestClusterTimeTemplate(t *testing.T) {
	for _, ts := range [][2]uint32{{0, 0}, {1, 2}, {1764380000, 7}, {0xfffffffe, 0xfffffffd}} {
		want := buildClusterTime([]byte{9}, ts[0], ts[1])
		got := appendClusterTimeAt([]byte{9}, ts[0], ts[1])
		if !bytes.Equal(got, want) {
			t.Fatalf("timestamp %v: template gives\n%x\nbuilt\n%x", ts, got, want)
		}
	}
}
