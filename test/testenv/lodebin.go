package testenv

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// lodePkg is the command the client, crash and network tests run as a
// child process.
const lodePkg = "github.com/lodedb/lode/cmd/lode"

var lodeBin struct {
	once sync.Once
	path string
	err  error
}

// LodeBinary returns the path of a built `lode` command (cmd/lode) for
// tests that run `lode serve` as a child process. It asks
// `go run -exec echo`, which keeps the linked program in the Go build
// cache, so the link happens once per change of the sources rather than
// once per test package and run. The first call after a change gets a
// temporary path that go run removes when it exits, so it asks again for
// the cached one; without one it falls back to go build into a temporary
// directory.
func LodeBinary() (string, error) {
	lodeBin.once.Do(func() { lodeBin.path, lodeBin.err = findLodeBinary() })
	return lodeBin.path, lodeBin.err
}

func findLodeBinary() (string, error) {
	for range 2 {
		cmd := exec.Command("go", "run", "-exec", "echo", lodePkg)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("go run -exec echo %s: %v\n%s", lodePkg, err, stderr.String())
		}
		p := strings.TrimSpace(string(out))
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	dir, err := os.MkdirTemp("", "lode-bin-")
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, "lode")
	build := exec.Command("go", "build", "-o", p, lodePkg)
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", lodePkg, err, out)
	}
	return p, nil
}
