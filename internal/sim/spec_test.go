package sim

import (
	"context"
	"strings"
	"sync"
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

var registerDummy sync.Once

func TestParseSpec(t *testing.T) {
	registerDummy.Do(func() {
		Register(&Scenario{Name: "spec_test_dummy", Bind: func(context.Context, *mongo.Database, Params) (Op, error) {
			return func(context.Context) error { return nil }, nil
		}})
	})
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

// TestParseSpecStrict: unknown keys, at the top or inside a scenario, are
// errors in YAML and JSON alike, naming the key.
var registerStrictDummy sync.Once

func TestParseSpecStrict(t *testing.T) {
	registerStrictDummy.Do(func() {
		Register(&Scenario{Name: "spec_strict_dummy", Bind: func(context.Context, *mongo.Database, Params) (Op, error) {
			return func(context.Context) error { return nil }, nil
		}})
	})
	tests := []struct{ name, src, key string }{
		{"yaml top", "name: x\niteration: 5\nscenarios:\n  - scenario: spec_strict_dummy\n    users: 1\n", "iteration"},
		{"yaml scenario", "name: x\nscenarios:\n  - scenario: spec_strict_dummy\n    user: 1\n", "user"},
		{"json top", `{"name":"x","pool_size":3,"scenarios":[{"scenario":"spec_strict_dummy","users":1}]}`, "pool_size"},
		{"json scenario", `{"name":"x","scenarios":[{"scenario":"spec_strict_dummy","users":1,"param":{}}]}`, "param"},
	}
	for _, tt := range tests {
		_, err := ParseSpec([]byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.key) || !strings.Contains(err.Error(), "known keys") {
			t.Errorf("%s: err = %v, want an unknown-key error naming %q", tt.name, err, tt.key)
		}
	}
	if _, err := ParseSpec([]byte("  \n")); err == nil {
		t.Error("an empty file must be an error")
	}
	// Params stay free-form, and processes defaults to 1 when left out.
	s, err := ParseSpec([]byte("name: x\nscenarios:\n  - scenario: spec_strict_dummy\n    users: 1\n    params: {anything: 1}\n"))
	if err != nil || s.Processes != 1 || s.Scenarios[0].Params.Int("anything", 0) != 1 {
		t.Errorf("free-form params: %+v, %v", s, err)
	}
	s, err = ParseSpec([]byte(`{"name":"x","scenarios":[{"scenario":"spec_strict_dummy","users":1,"params":{"preload":7}}]}`))
	if err != nil || s.Scenarios[0].Params.Int("preload", 0) != 7 {
		t.Errorf("json params: %+v, %v", s, err)
	}
}

// TestLoadClientTimeouts: the operation timeout, above or below the
// driver's 30 s default, bounds server selection (and so the wait for a
// pooled connection) and is the client timeout.
func TestLoadClientTimeouts(t *testing.T) {
	for _, ms := range []int{0, 500, 90_000} {
		spec := Spec{Timeout: ms, PoolSize: 7}
		o := loadClientOptions("mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=30000", &spec, 2, nil)
		want := spec.OpTimeout()
		if o.ServerSelectionTimeout == nil || *o.ServerSelectionTimeout != want {
			t.Errorf("timeout %d ms: serverSelectionTimeout %v, want %v", ms, o.ServerSelectionTimeout, want)
		}
		if o.Timeout == nil || *o.Timeout != want {
			t.Errorf("timeout %d ms: client timeout %v, want %v", ms, o.Timeout, want)
		}
		if o.MaxPoolSize == nil || *o.MaxPoolSize != 7 || o.AppName == nil || *o.AppName != "lode-sim-2" {
			t.Errorf("pool %v app %v", o.MaxPoolSize, o.AppName)
		}
	}
}
