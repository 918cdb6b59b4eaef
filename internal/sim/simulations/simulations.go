// Package simulations embeds the simulation files shipped with lode sim
// (the seeds' two simulations, and seed 004's with a change-stream
// subscriber), so `lode sim run NAME` finds them from any directory.
package simulations

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.yaml
var files embed.FS

// Names returns the names of the embedded simulations (file names
// without .yaml), sorted.
func Names() []string {
	ents, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// Get returns the contents of the embedded simulation called name.
func Get(name string) ([]byte, error) {
	data, err := files.ReadFile(name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("simulations: no simulation %q", name)
	}
	return data, nil
}
