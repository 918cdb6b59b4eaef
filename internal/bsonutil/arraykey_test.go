package bsonutil

import (
	"strconv"
	"testing"
)

func TestArrayKey(t *testing.T) {
	for _, i := range []int{0, 1, 9, 10, 999, 1000, 12345} {
		if got := ArrayKey(i); got != strconv.Itoa(i) {
			t.Errorf("ArrayKey(%d) = %q", i, got)
		}
	}
}
