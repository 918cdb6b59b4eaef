package auth

import (
	"slices"
	"testing"
)

// TestActionNames: every action has one mongod name, and the names fit
// in an ActionSet.
func TestActionNames(t *testing.T) {
	if int(numActions) > len(ActionSet{})*64 {
		t.Fatalf("%d actions do not fit in an ActionSet of %d bits", numActions, len(ActionSet{})*64)
	}
	seen := map[string]bool{}
	for a := Action(0); a < numActions; a++ {
		n := a.String()
		if n == "" || seen[n] {
			t.Errorf("action %d: name %q empty or repeated", a, n)
		}
		seen[n] = true
		if got, ok := ParseAction(n); !ok || got != a {
			t.Errorf("ParseAction(%q) = %d %v, want %d", n, got, ok, a)
		}
	}
	for _, n := range []string{"find", "createRole", "enableSharding", "setAuthenticationRestriction", "applyOps"} {
		if _, ok := ParseAction(n); !ok {
			t.Errorf("mongod's action %q does not parse", n)
		}
	}
	if _, ok := ParseAction("fly"); ok {
		t.Error("an unknown action parses")
	}
}

func TestActionSet(t *testing.T) {
	enable, _ := ParseAction("enableSharding") // beyond the first 64 bits
	s := Actions(ActFind, ActInsert, enable)
	for _, c := range []struct {
		name string
		got  bool
		want bool
	}{
		{"has find", s.Has(ActFind), true},
		{"has a far action", s.Has(enable), true},
		{"lacks remove", s.Has(ActRemove), false},
		{"contains a subset", s.Contains(Actions(ActFind, enable)), true},
		{"does not contain a superset", s.Contains(Actions(ActFind, ActRemove)), false},
		{"contains the empty set", s.Contains(ActionSet{}), true},
		{"anyAction has everything", Actions(ActAnyAction).Has(ActShutdown), true},
		{"anyAction contains everything", Actions(ActAnyAction).Contains(s), true},
		{"empty", ActionSet{}.Empty(), true},
		{"minus everything", s.Minus(s).Empty(), true},
		{"minus some", s.Minus(Actions(ActFind)) == Actions(ActInsert, enable), true},
		{"union", Actions(ActFind).Union(Actions(enable)) == Actions(ActFind, enable), true},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	if got := s.Names(); !slices.Equal(got, []string{"enableSharding", "find", "insert"}) {
		t.Errorf("Names: %v, want sorted mongod names", got)
	}
}
