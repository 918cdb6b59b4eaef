package mongolog

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

func TestHandlerShape(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(NewHandler(&buf, slog.LevelDebug))
	log.Info("Slow query", KeyComponent, "COMMAND", KeyID, IDSlowQuery, KeyCtx, "conn7",
		"type", "command", "command", RawJSON(`{"find":"c","filter":{"a":1}}`), "durationMillis", int64(12))
	log.With("component", "NETWORK").WithGroup("g").Debug("x", "k", 1)
	log.Warn("plain")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines, got %q", buf.String())
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["s"] != "I" || rec["c"] != "COMMAND" || rec["id"] != float64(51803) || rec["ctx"] != "conn7" || rec["msg"] != "Slow query" {
		t.Fatalf("header: %v", rec)
	}
	if _, ok := rec["t"].(map[string]any)["$date"].(string); !ok {
		t.Fatalf("t: %v", rec["t"])
	}
	attr := rec["attr"].(map[string]any)
	if attr["command"].(map[string]any)["find"] != "c" || attr["durationMillis"] != float64(12) {
		t.Fatalf("attr: %v", attr)
	}
	if err := json.Unmarshal([]byte(lines[1]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["s"] != "D1" || rec["c"] != "NETWORK" || rec["attr"].(map[string]any)["g"].(map[string]any)["k"] != float64(1) {
		t.Fatalf("debug line: %v", rec)
	}
	if err := json.Unmarshal([]byte(lines[2]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["s"] != "W" || rec["c"] != "-" {
		t.Fatalf("warn line: %v", rec)
	}
}

func TestSeverity(t *testing.T) {
	for l, want := range map[slog.Level]string{slog.LevelError + 4: "F", slog.LevelError: "E", slog.LevelWarn: "W",
		slog.LevelInfo: "I", slog.LevelDebug: "D1", slog.LevelDebug - 1: "D2", slog.LevelDebug - 9: "D5"} {
		if got := Severity(l); got != want {
			t.Errorf("Severity(%v) = %s, want %s", l, got, want)
		}
	}
}
