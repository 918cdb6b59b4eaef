package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Load types and strategies.
const (
	TypeConstant      = "constant"
	TypeRamp          = "ramp"
	StrategySlicetime = "slicetime"
	StrategyClosed    = "closed"
)

// Spec is a simulation: the load model and the scenarios run at once.
// It is what a simulation file (YAML or JSON) holds.
type Spec struct {
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Processes is the number of independent driver clients (default 1
	// when a file leaves it out; the seeds' simulations set 4).
	Processes int `yaml:"processes" json:"processes"`
	// PoolSize is each client's connection pool size.
	PoolSize int `yaml:"poolSize" json:"poolSize"`
	// Iterations is the number of resolution windows.
	Iterations int `yaml:"iterations" json:"iterations"`
	// Resolution is the window length in milliseconds.
	Resolution int `yaml:"resolution" json:"resolution"`
	// Type is constant (the same Users every iteration; the seeds'
	// "linear") or ramp (Users*(i+1)/Iterations in iteration i).
	Type string `yaml:"type" json:"type"`
	// Strategy is slicetime (open loop) or closed (back-to-back workers).
	Strategy string `yaml:"strategy" json:"strategy"`
	// Timeout bounds each operation in milliseconds (0: 60000).
	Timeout int `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	// Scenarios run concurrently, each with its own users per iteration.
	Scenarios []ScenarioSpec `yaml:"scenarios" json:"scenarios"`
}

// ScenarioSpec is one scenario of a simulation.
type ScenarioSpec struct {
	Scenario string `yaml:"scenario" json:"scenario"`
	// Users is the number of operations started per iteration (slicetime)
	// or the number of workers (closed); for a subscriber scenario, the
	// number of subscribers, all running for the whole simulation.
	Users  int    `yaml:"users" json:"users"`
	Params Params `yaml:"params,omitempty" json:"params,omitempty"`
}

// DefaultSpec returns the seeds' load model (4 processes x pool 50, 25
// iterations of 1000 ms, constant, slicetime) for one scenario, with the
// scenario's default users per iteration (1000 unless it sets Users).
func DefaultSpec(scenario string) Spec {
	users := 1000
	if sc, err := Lookup(scenario); err == nil && sc.Users > 0 {
		users = sc.Users
	}
	return Spec{
		Name: scenario, Processes: 4, PoolSize: 50, Iterations: 25, Resolution: 1000,
		Type: TypeConstant, Strategy: StrategySlicetime,
		Scenarios: []ScenarioSpec{{Scenario: scenario, Users: users}},
	}
}

// specKeys lists a simulation file's keys, for error messages.
const specKeys = "name, description, processes, poolSize, iterations, resolution, type, strategy, timeout, scenarios (each: scenario, users, params)"

// ParseSpec decodes a simulation file's contents: JSON when it starts
// with '{', YAML otherwise. Decoding is strict: an unknown key (a typo
// such as "iteration" or "pool_size") is an error, not silently ignored.
func ParseSpec(data []byte) (Spec, error) {
	var s Spec
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return s, errors.New("sim: parse simulation: the file is empty")
	}
	var err error
	if trimmed[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.DisallowUnknownFields()
		err = dec.Decode(&s)
		if err == nil && dec.More() {
			err = errors.New("text after the JSON object")
		}
	} else {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		err = dec.Decode(&s)
	}
	if err != nil {
		if strings.Contains(err.Error(), "unknown field") || strings.Contains(err.Error(), "not found in type") {
			return s, fmt.Errorf("sim: parse simulation: %w (known keys: %s)", err, specKeys)
		}
		return s, fmt.Errorf("sim: parse simulation: %w", err)
	}
	return s, s.Validate()
}

// LoadSpecFile reads and parses a simulation file.
func LoadSpecFile(path string) (Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Spec{}, fmt.Errorf("sim: %w", err)
	}
	s, err := ParseSpec(data)
	if err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Validate fills defaults and checks the spec.
func (s *Spec) Validate() error {
	if s.Processes <= 0 {
		s.Processes = 1
	}
	if s.PoolSize <= 0 {
		s.PoolSize = 50
	}
	if s.Iterations <= 0 {
		s.Iterations = 1
	}
	if s.Resolution <= 0 {
		s.Resolution = 1000
	}
	s.Type = strings.ToLower(s.Type)
	switch s.Type {
	case "", "linear", TypeConstant:
		s.Type = TypeConstant
	case TypeRamp:
	default:
		return fmt.Errorf("sim: unknown type %q (constant|ramp)", s.Type)
	}
	s.Strategy = strings.ToLower(s.Strategy)
	switch s.Strategy {
	case "":
		s.Strategy = StrategySlicetime
	case StrategySlicetime, StrategyClosed:
	default:
		return fmt.Errorf("sim: unknown strategy %q (slicetime|closed)", s.Strategy)
	}
	if len(s.Scenarios) == 0 {
		return fmt.Errorf("sim: simulation %q has no scenarios", s.Name)
	}
	for i := range s.Scenarios {
		if _, err := Lookup(s.Scenarios[i].Scenario); err != nil {
			return err
		}
		if s.Scenarios[i].Users <= 0 {
			return fmt.Errorf("sim: scenario %q: users must be > 0", s.Scenarios[i].Scenario)
		}
	}
	return nil
}

// UsersAt returns how many operations a scenario with users per
// iteration starts in iteration i (0-based).
func (s *Spec) UsersAt(users, i int) int {
	if s.Type == TypeRamp {
		return (users*(i+1) + s.Iterations/2) / s.Iterations
	}
	return users
}

// Window returns the resolution as a duration.
func (s *Spec) Window() time.Duration { return time.Duration(s.Resolution) * time.Millisecond }

// OpTimeout returns the per-operation timeout.
func (s *Spec) OpTimeout() time.Duration {
	if s.Timeout <= 0 {
		return time.Minute
	}
	return time.Duration(s.Timeout) * time.Millisecond
}
