package mongolog

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestTextHandlerHeader: every text line carries component, id and ctx
// at its end, once each, the last value given winning, with the
// JSON format's defaults when a line gives none.
func TestTextHandlerHeader(t *testing.T) {
	var buf bytes.Buffer
	inner := slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}})
	log := slog.New(NewTextHandler(inner))
	log.Info("plain", "k", 1)
	st := log.With(KeyComponent, "STORAGE", "conn", 7)
	st.Debug("from pebble", KeyComponent, "PEBBLE", KeyID, 5)
	st.WithGroup("g").Info("grouped", "x", 2)
	want := []string{
		`level=INFO msg=plain k=1 component=- id=0 ctx=main`,
		`level=DEBUG msg="from pebble" conn=7 component=PEBBLE id=5 ctx=main`,
		`level=INFO msg=grouped conn=7 component=STORAGE id=0 ctx=main g.x=2`,
	}
	got := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(got) != len(want) {
		t.Fatalf("got %d lines:\n%s", len(got), buf.String())
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
}
