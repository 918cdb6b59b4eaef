package testenv

import (
	"bytes"
	"sync"
)

// LogBuffer is a log destination safe for the server's goroutines: give
// it to a slog handler (lode.WithLogger) and read what was logged with
// String.
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write implements io.Writer.
func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns everything written so far.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
