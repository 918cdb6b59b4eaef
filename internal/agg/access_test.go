package agg

import "testing"

// TestEveryStageDeclaresAccess: a stage cannot be registered without
// saying what it reads and writes (test/authz then checks each one
// through the driver under authorization).
func TestEveryStageDeclaresAccess(t *testing.T) {
	for name, def := range stageDefs {
		if def.parse == nil || def.access == nil {
			t.Errorf("stage %s: parse and access must both be set", name)
		}
	}
}
