package clients

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lodedb/lode/test/testenv"
)

var tokenRe = regexp.MustCompile(`(?m)^TOKEN (.+)$`)

// changeStreamAcrossRestart runs phase 1 of a change-stream script (every
// event kind, printing a resume token), restarts lode serve on the same
// data, and runs phase 2 (resuming from that token).
func changeStreamAcrossRestart(t *testing.T, run func(s *server, phase, token string) (string, error)) {
	t.Helper()
	s := startServer(t)
	out, err := run(s, "1", "")
	if err != nil || !strings.Contains(out, "changestream phase 1 OK") {
		t.Fatalf("phase 1: %v\n%s\nserver logs:\n%s", err, out, s.logs.String())
	}
	m := tokenRe.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("phase 1 printed no token:\n%s", out)
	}
	s.stop()
	s2 := startServerDir(t, s.dir)
	out, err = run(s2, "2", m[1])
	if err != nil || !strings.Contains(out, "changestream phase 2 OK") {
		t.Fatalf("phase 2 (after restart): %v\n%s\nserver logs:\n%s", err, out, s2.logs.String())
	}
}

func clientCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// changeStreamOneProcess runs a change-stream script that makes both
// phases of changeStreamAcrossRestart in one process (a mongosh start
// costs about a second of CPU, a pymongo one half a second): once the
// script printed phase 1's end, it restarts lode serve on the same data
// and writes the new URI to the file whose path it passed to start,
// which the script waits for before phase 2.
func changeStreamOneProcess(t *testing.T, start func(s *server, next string) *exec.Cmd) {
	t.Helper()
	s := startServer(t)
	next := filepath.Join(t.TempDir(), "next-uri")
	cmd := start(s, next)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout // after StdoutPipe: the same pipe
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The reader owns out until done closes; phase 1's output goes to
	// the test through phase1 (empty: the script ended before it).
	var out strings.Builder
	phase1 := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if !sent && sc.Text() == "changestream phase 1 OK" {
				phase1 <- out.String()
				sent = true
			}
		}
		if !sent {
			phase1 <- ""
		}
	}()
	first := <-phase1
	if first == "" {
		<-done
		err := cmd.Wait()
		t.Fatalf("phase 1: %v\n%s\nserver logs:\n%s", err, out.String(), s.logs.String())
	}
	if !tokenRe.MatchString(first) {
		t.Errorf("phase 1 printed no token:\n%s", first)
	}
	s.stop()
	s2 := startServerDir(t, s.dir)
	if err := os.WriteFile(next+".tmp", []byte(s2.uri()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next+".tmp", next); err != nil {
		t.Fatal(err)
	}
	<-done
	err = cmd.Wait()
	if err != nil || !strings.Contains(out.String(), "changestream phase 2 OK") {
		t.Fatalf("phase 2 (after restart): %v\n%s\nserver logs:\n%s", err, out.String(), s2.logs.String())
	}
}

// TestChangeStreamMongosh: db.watch() with showExpandedEvents sees every
// event kind in commit order and resumes after a restart, in one mongosh
// process.
func TestChangeStreamMongosh(t *testing.T) {
	t.Parallel()
	mongosh := requireTool(t, "mongosh")
	changeStreamOneProcess(t, func(s *server, next string) *exec.Cmd {
		cmd := exec.CommandContext(clientCtx(t), mongosh, "--quiet", "--norc", s.uri(), "changestream_mongosh.js")
		cmd.Env = append(os.Environ(), "MONGOSH_SKIP_NODE_VERSION_CHECK=1", "LODE_CS_NEXT_URI_FILE="+next)
		return cmd
	})
}

// TestChangeStreamPymongo: the same through pymongo 3.11, in one Python
// process.
func TestChangeStreamPymongo(t *testing.T) {
	t.Parallel()
	py := testenv.RequirePymongo(t)
	changeStreamOneProcess(t, func(s *server, next string) *exec.Cmd {
		return exec.CommandContext(clientCtx(t), py, "-u", "changestream_pymongo.py", s.uri(), next)
	})
}

// TestChangeStreamNode: a collection stream with updateLookup through the
// Node driver.
func TestChangeStreamNode(t *testing.T) {
	t.Parallel()
	node := requireNodeDriver(t)
	changeStreamAcrossRestart(t, func(s *server, phase, token string) (string, error) {
		args := []string{"changestream_node.js", s.uri(), phase}
		if token != "" {
			args = append(args, token)
		}
		out, err := exec.CommandContext(clientCtx(t), node, args...).CombinedOutput()
		return string(out), err
	})
}

// requireNodeDriver returns node when the Node driver is installed in
// test/clients/node.
func requireNodeDriver(t *testing.T) string {
	t.Helper()
	node := requireTool(t, "node")
	if _, err := os.Stat(filepath.Join("node", "node_modules", "mongodb")); err != nil || testenv.Hidden("node-driver") {
		testenv.MissingClient(t, testenv.GroupNodeDriver, "Node driver not installed (npm ci in test/clients/node)", err)
	}
	return node
}
