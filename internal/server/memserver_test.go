package server

import (
	"log/slog"
	"testing"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/storage"
)

// newMemTestServer is newTestServer on an in-memory filesystem, for the
// many small cases that check command handling, not storage: opening one
// costs no file creation or fsync, so hundreds of them stay cheap.
func newMemTestServer(t *testing.T) *Server {
	t.Helper()
	eng, err := engine.Open("/db", engine.Options{
		Logger: slog.New(slog.DiscardHandler),
		FS:     storage.MemFS(),
	})
	if err != nil {
		t.Fatal(err)
	}
	s := New(eng, Config{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { s.Close(); eng.Close() })
	return s
}
