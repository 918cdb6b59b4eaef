package main

import (
	"strings"
	"testing"
	"time"

	"github.com/lodedb/lode/internal/server"
)

// TestStartupParameter: --set-parameter takes enableTestCommands and the
// session cache's parameters as mongod's --setParameter does, and refuses
// anything else with a message.
func TestStartupParameter(t *testing.T) {
	for _, tc := range []struct {
		in      string
		on      bool
		fail    string
		refresh time.Duration
		timeout int
	}{
		{"enableTestCommands=1", true, "", 0, 0},
		{"enableTestCommands=true", true, "", 0, 0},
		{"enableTestCommands=0", false, "", 0, 0},
		{"enableTestCommands=false", false, "", 0, 0},
		{"enableTestCommands=yes", false, "bad value", 0, 0},
		{"enableTestCommands", false, "name=value", 0, 0},
		{"cursorTimeoutMillis=10", false, "not a startup parameter", 0, 0},
		{"logicalSessionRefreshMillis=250", false, "", 250 * time.Millisecond, 0},
		{"localLogicalSessionTimeoutMinutes=2", false, "", 0, 2},
		{"localLogicalSessionTimeoutMinutes=0", false, "bad value", 0, 0},
	} {
		var cfg server.Config
		err := startupParameter(&cfg, tc.in)
		on := cfg.TestCommands
		if tc.fail != "" {
			if err == nil || !strings.Contains(err.Error(), tc.fail) {
				t.Errorf("%s: %v, want an error with %q", tc.in, err, tc.fail)
			}
			continue
		}
		if err != nil || on != tc.on || cfg.SessionRefresh != tc.refresh || cfg.SessionTimeoutMinutes != tc.timeout {
			t.Errorf("%s: %+v %v, want %v", tc.in, cfg, err, tc.on)
		}
	}
}
