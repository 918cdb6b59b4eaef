package lode_test

import (
	"testing"
	"time"

	"github.com/lodedb/lode"
)

// TestCloseTwice: a second Close returns at once with the first's result
// (it used to wait forever for a server that had already stopped).
func TestCloseTwice(t *testing.T) {
	t.Parallel()
	db, err := lode.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- db.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("second Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second Close hangs")
	}
}
