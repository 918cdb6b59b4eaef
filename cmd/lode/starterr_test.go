package main

import (
	"net"
	"strings"
	"testing"

	"github.com/lodedb/lode"
)

// TestServeStartErrorsSayWhatToDo: lode serve on a data directory another
// instance has open, or on a port another program holds, fails at once
// with an error naming the problem and the flag that fixes it.
func TestServeStartErrorsSayWhatToDo(t *testing.T) {
	dir := t.TempDir()
	db, err := lode.Open(dir, lode.InProcess())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = runServe([]string{"--dir", dir, "--addr", "127.0.0.1:0", "--log-level", "error"})
	if err == nil || !strings.Contains(err.Error(), "is in use") || !strings.Contains(err.Error(), "--dir") {
		t.Errorf("serve on a locked directory: %v", err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	err = runServe([]string{"--dir", t.TempDir(), "--addr", ln.Addr().String(), "--log-level", "error"})
	if err == nil || !strings.Contains(err.Error(), "already in use") || !strings.Contains(err.Error(), "--addr") {
		t.Errorf("serve on a taken port: %v", err)
	}
}
