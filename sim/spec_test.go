package sim

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestUsersAt(t *testing.T) {
	tests := []struct {
		typ         string
		users, iter int
		want        []int
	}{
		{TypeConstant, 1000, 3, []int{1000, 1000, 1000}},
		{TypeRamp, 100, 4, []int{25, 50, 75, 100}},
		{TypeRamp, 10, 3, []int{3, 7, 10}},
	}
	for _, tt := range tests {
		s := Spec{Type: tt.typ, Iterations: tt.iter}
		for i, w := range tt.want {
			if got := s.UsersAt(tt.users, i); got != w {
				t.Errorf("%s users=%d iteration %d: got %d, want %d", tt.typ, tt.users, i, got, w)
			}
		}
	}
}

func TestParseSpec(t *testing.T) {
	Register(&Scenario{Name: "spec_test_dummy", Bind: func(context.Context, *mongo.Database, Params) (Op, error) {
		return func(context.Context) error { return nil }, nil
	}})
	tests := []struct {
		name, src string
		ok        bool
		typ       string
	}{
		{"yaml", "name: x\ntype: linear\nscenarios:\n  - scenario: spec_test_dummy\n    users: 5\n    params: {preload: 3}\n", true, TypeConstant},
		{"json", `{"name":"x","type":"ramp","strategy":"closed","scenarios":[{"scenario":"spec_test_dummy","users":2}]}`, true, TypeRamp},
		{"unknown scenario", "name: x\nscenarios:\n  - scenario: nope\n    users: 1\n", false, ""},
		{"bad type", "name: x\ntype: zigzag\nscenarios:\n  - scenario: spec_test_dummy\n    users: 1\n", false, ""},
		{"no users", "name: x\nscenarios:\n  - scenario: spec_test_dummy\n", false, ""},
	}
	for _, tt := range tests {
		s, err := ParseSpec([]byte(tt.src))
		if (err == nil) != tt.ok {
			t.Errorf("%s: err = %v, want ok=%v", tt.name, err, tt.ok)
			continue
		}
		if tt.ok && (s.Type != tt.typ || s.Scenarios[0].Params.Int("preload", 3) != 3) {
			t.Errorf("%s: got %+v", tt.name, s)
		}
	}
}
