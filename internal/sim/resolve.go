package sim

import (
	"fmt"
	"os"
	"strings"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/internal/sim/simulations"
)

// Resolve turns what the user named into a Spec: a built-in scenario
// (run alone with the seeds' load model), an embedded simulation from
// sim/simulations (e.g. "seed004-queue-fifo"), or a YAML/JSON file path.
func Resolve(name string) (Spec, error) {
	if _, err := Lookup(name); err == nil {
		s := DefaultSpec(name)
		return s, s.Validate()
	}
	if data, err := simulations.Get(name); err == nil {
		return ParseSpec(data)
	}
	if st, err := os.Stat(name); err == nil && !st.IsDir() {
		return LoadSpecFile(name)
	}
	var names []string
	for _, s := range Scenarios() {
		names = append(names, s.Name)
	}
	return Spec{}, fmt.Errorf("sim: %q is not a scenario (%s), a simulation (%s) or a file",
		name, strings.Join(names, ", "), strings.Join(simulations.Names(), ", "))
}

// Embedded starts Lode on a fresh temporary directory and returns its URI
// and a function that stops it and removes the directory.
func Embedded() (uri string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "lode-sim-")
	if err != nil {
		return "", nil, fmt.Errorf("sim: %w", err)
	}
	db, err := lode.Open(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("sim: start embedded lode: %w", err)
	}
	return db.URI(), func() {
		_ = db.Close()
		_ = os.RemoveAll(dir)
	}, nil
}
