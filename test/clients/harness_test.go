// Package clients runs the seeds' own shell and Python code, through the
// real clients (mongosh, pymongo), against a `lode serve` child process.
package clients

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"github.com/lodedb/lode/test/testenv"
)

var lodeBin string

func TestMain(m *testing.M) {
	var err error
	lodeBin, err = testenv.LodeBinary()
	if err != nil {
		fmt.Fprintln(os.Stderr, "building lode:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// requireTool returns the path of an external client, skipping the test
// when it is missing (recorded for the test command's summary), unless
// LODE_REQUIRE_CLIENTS=1 (as in CI), where a missing client fails the
// test (testenv.RequireTool).
func requireTool(t *testing.T, name string) string {
	t.Helper()
	return testenv.RequireTool(t, name)
}

// server is a `lode serve` child process.
type server struct {
	cmd  *exec.Cmd
	addr string
	dir  string
	logs *testenv.LogBuffer
	// stopped: stop ran (the test restarts servers on the same data).
	stopped bool
}

// startedRe finds the listen address in the text log line or, with
// --log-format json, in the JSON one.
var startedRe = regexp.MustCompile(`lode started"?(?: addr=|,"attr":\{"addr":")([^"\s]+)`)

// startServer runs `lode serve` on a free loopback port with a temporary
// data directory and waits until it listens.
func startServer(t *testing.T, extra ...string) *server {
	t.Helper()
	return startServerDir(t, t.TempDir(), extra...)
}

// startServerDir is startServer on an existing data directory (to
// restart a server on the same data).
func startServerDir(t *testing.T, dir string, extra ...string) *server {
	t.Helper()
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--dir", dir}, extra...)
	cmd := exec.Command(lodeBin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, dir: dir, logs: &testenv.LogBuffer{}}
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			_, _ = s.logs.Write([]byte(line + "\n"))
			if m := startedRe.FindStringSubmatch(line); m != nil && !sent {
				addrc <- m[1]
				sent = true
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case s.addr = <-addrc:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("lode serve did not start; logs:\n%s", s.logs.String())
	}
	t.Cleanup(s.stop)
	return s
}

// stop shuts the server down with SIGINT (killing it after 10 s); a
// second call does nothing.
func (s *server) stop() {
	if s.stopped {
		return
	}
	s.stopped = true
	cmd := s.cmd
	_ = cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

func (s *server) uri() string { return "mongodb://" + s.addr + "/" }

// runMongosh runs a script file in mongosh against s and fails the test
// if mongosh exits non-zero. It returns mongosh's output.
func runMongosh(t *testing.T, s *server, script string) string {
	t.Helper()
	mongosh := requireTool(t, "mongosh")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, mongosh, "--quiet", "--norc", s.uri(), script)
	cmd.Env = append(os.Environ(), "MONGOSH_SKIP_NODE_VERSION_CHECK=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mongosh %s: %v\n%s", script, err, out)
	}
	return string(out)
}

// requirePython returns Debian's /usr/bin/python3 when it can import
// pymongo, and skips the test otherwise (fails it under
// LODE_REQUIRE_CLIENTS=1).
func requirePython(t *testing.T) string {
	t.Helper()
	return testenv.RequirePymongo(t)
}

// runPython runs a script with Debian's /usr/bin/python3 (pymongo 3.11).
func runPython(t *testing.T, s *server, script string) string {
	t.Helper()
	py := requirePython(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, script, s.uri())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python %s: %v\n%s", script, err, out)
	}
	return string(out)
}
