package main

import (
	"strings"
	"testing"
)

// TestStartupParameter: --set-parameter takes enableTestCommands as
// mongod's --setParameter does, and refuses anything else with a message.
func TestStartupParameter(t *testing.T) {
	for _, tc := range []struct {
		in   string
		on   bool
		fail string
	}{
		{"enableTestCommands=1", true, ""},
		{"enableTestCommands=true", true, ""},
		{"enableTestCommands=0", false, ""},
		{"enableTestCommands=false", false, ""},
		{"enableTestCommands=yes", false, "bad value"},
		{"enableTestCommands", false, "name=value"},
		{"cursorTimeoutMillis=10", false, "not a startup parameter"},
	} {
		on, err := startupParameter(tc.in)
		if tc.fail != "" {
			if err == nil || !strings.Contains(err.Error(), tc.fail) {
				t.Errorf("%s: %v, want an error with %q", tc.in, err, tc.fail)
			}
			continue
		}
		if err != nil || on != tc.on {
			t.Errorf("%s: %v %v, want %v", tc.in, on, err, tc.on)
		}
	}
}
