package crash

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/lodedb/lode/test/testenv"
)

// mountTmpfs mounts a tmpfs of size (mount's syntax, e.g. "64m") on a new
// directory and unmounts it when the test ends. It skips the test when
// mounting is not permitted (not root, or a container without
// CAP_SYS_ADMIN).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		testenv.Skip(t, testenv.GroupTmpfs, fmt.Sprintf("cannot mount a %s tmpfs for the disk-full test (needs root and permission to mount): %v: %s", size, err, bytes.TrimSpace(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// cappedLog keeps the first max bytes a process writes and counts the
// rest, so a log flood is measured without being kept.
type cappedLog struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	total int64
	lines int64
	max   int
}

func (c *cappedLog) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (c *cappedLog) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

func (c *cappedLog) size() (bytes, lines int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total, c.lines
}

// serveProc is one `lode serve` child whose log is captured.
type serveProc struct {
	cmd  *exec.Cmd
	log  *cappedLog
	done chan struct{} // closed when the process has exited
	err  error         // Wait's result, once done
}

// startServe starts `lode serve` with a JSON log on dataDir; it does not
// wait for it to listen.
func startServe(t *testing.T, bin, dataDir, logFormat string) *serveProc {
	t.Helper()
	args := []string{"serve", "--addr", "127.0.0.1:0", "--dir", dataDir, "--log-format", logFormat}
	p := &serveProc{cmd: exec.Command(bin, args...), log: &cappedLog{max: 4 << 20}, done: make(chan struct{})}
	p.cmd.Stderr = p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// addr waits for the "lode started" line and returns the address.
func (p *serveProc) addr(t *testing.T) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		sc := bufio.NewScanner(strings.NewReader(p.log.String()))
		for sc.Scan() {
			var line struct {
				Msg  string
				Attr struct{ Addr string }
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "lode started" {
				return line.Attr.Addr
			}
			if m := addrRE.FindStringSubmatch(sc.Text()); m != nil {
				return m[1]
			}
		}
		select {
		case <-p.done:
			t.Fatalf("lode serve exited before listening (%v):\n%s", p.err, p.log.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("lode serve did not start:\n%s", p.log.String())
	return ""
}

// wait waits up to d for the process to exit and returns its exit code.
func (p *serveProc) wait(t *testing.T, what string, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(d):
		n, lines := p.log.size()
		p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("%s: lode serve did not exit within %v (it had logged %d lines, %d bytes); log starts:\n%s", what, d, lines, n, truncate(p.log.String(), 4000))
	}
	return 0
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n…"
}

// fatalLine returns the first JSON log line of severity F, decoded.
func fatalLine(log string) map[string]any {
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil && m["s"] == "F" {
			return m
		}
	}
	return nil
}

// TestDiskFullServeExitsAndRecovers fills a small tmpfs with j:true
// inserts until the server reports an error: `lode serve` must then log
// a fatal line naming the data path and the free space and exit non-zero
// promptly (mongod logs a fatal assertion and aborts on ENOSPC, then
// recovers from its journal on restart); a restart while the filesystem
// is still full must refuse with a clear message; after the filesystem
// grows, a restart must find every acknowledged write.
func TestDiskFullServeExitsAndRecovers(t *testing.T) {
	for _, format := range []string{"json", "text"} {
		t.Run(format, func(t *testing.T) { testDiskFull(t, format) })
	}
}

func testDiskFull(t *testing.T, logFormat string) {
	size, docBytes, writers := "64m", 8<<10, 1
	if testenv.Acceptance() {
		size, writers = "256m", 4 // writers racing the failure
	}
	mnt := mountTmpfs(t, size)
	bin := buildLode(t)
	dataDir := filepath.Join(mnt, "data")
	ctx := context.Background()

	start := time.Now()
	srv := startServe(t, bin, dataDir, logFormat)
	addr := srv.addr(t)
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr + "/?directConnection=true").
		SetTimeout(15 * time.Second).SetRetryWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		// The server is gone: endSessions would wait for server
		// selection.
		dctx, cancel := context.WithTimeout(ctx, time.Second)
		client.Disconnect(dctx)
		cancel()
	}()
	coll := client.Database("full").Collection("docs",
		options.Collection().SetWriteConcern(writeconcern.Journaled()))

	pad := strings.Repeat("x", docBytes)
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	fillDeadline := time.Now().Add(2 * time.Minute)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for batch := 0; ; batch++ {
				if time.Now().After(fillDeadline) {
					t.Errorf("writer %d: the filesystem did not fill within 2 minutes", w)
					return
				}
				docs := make([]any, 32)
				ids := make([]string, len(docs))
				for i := range docs {
					ids[i] = fmt.Sprintf("w%d-b%d-%d", w, batch, i)
					docs[i] = bson.D{{Key: "_id", Value: ids[i]}, {Key: "pad", Value: pad}}
				}
				// An error acknowledges nothing of the batch (j:true).
				if _, err := coll.InsertMany(ctx, docs); err != nil {
					t.Logf("%v: writer %d stops: %v", time.Since(start), w, err)
					return
				}
				mu.Lock()
				acked = append(acked, ids...)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%v: %d documents acknowledged before the errors", time.Since(start), len(acked))

	code := srv.wait(t, "after the disk filled", 20*time.Second)
	t.Logf("%v: exited with %d", time.Since(start), code)
	if out, err := exec.Command("sh", "-c", "df -k "+mnt+"; ls -la "+dataDir).CombinedOutput(); err == nil {
		t.Logf("%s", out)
	}
	if code == 0 {
		t.Errorf("lode serve exited with status 0 after the disk filled, want non-zero")
	}
	logText := srv.log.String()
	n, lines := srv.log.size()
	if lines > 200 {
		t.Errorf("lode serve logged %d lines (%d bytes) for the full disk, want a few", lines, n)
	}
	if logFormat == "json" {
		fl := fatalLine(logText)
		if fl == nil {
			t.Fatalf("no fatal (\"s\":\"F\") log line; log:\n%s", truncate(logText, 4000))
		}
		t.Logf("fatal line: %v", fl)
		attr, _ := fl["attr"].(map[string]any)
		if attr["dataPath"] != dataDir {
			t.Errorf("fatal line's attr.dataPath = %v, want %s: %v", attr["dataPath"], dataDir, fl)
		}
		if _, ok := attr["freeBytes"].(float64); !ok {
			t.Errorf("fatal line has no attr.freeBytes: %v", fl)
		}
		if msg, _ := fl["msg"].(string); !strings.Contains(strings.ToLower(msg), "space") {
			t.Errorf("fatal line's msg %q does not say the disk is full", msg)
		}
	} else {
		var fl string
		for _, l := range strings.Split(logText, "\n") {
			if strings.Contains(l, "level=FATAL") {
				fl = l
				break
			}
		}
		t.Logf("fatal line: %s", fl)
		if fl == "" || !strings.Contains(fl, "dataPath="+dataDir) || !strings.Contains(fl, "freeBytes=") ||
			!strings.Contains(strings.ToLower(fl), "space") {
			t.Fatalf("no level=FATAL line naming the disk space, dataPath and freeBytes; log:\n%s", truncate(logText, 4000))
		}
	}

	// Still full: a restart refuses, promptly and clearly.
	again := startServe(t, bin, dataDir, logFormat)
	if code := again.wait(t, "restart on the full filesystem", 20*time.Second); code == 0 {
		t.Errorf("lode serve started on a full filesystem (status 0), want a refusal")
	}
	t.Logf("refusal: %s", again.log.String())
	if out := again.log.String(); !strings.Contains(out, "free") || !strings.Contains(out, dataDir) {
		t.Errorf("the refusal does not name the data directory and its free space:\n%s", truncate(out, 4000))
	}

	// More space: every acknowledged write is there.
	if out, err := exec.Command("mount", "-o", "remount,size=512m", mnt).CombinedOutput(); err != nil {
		t.Fatalf("remount bigger: %v: %s", err, out)
	}
	final := startServe(t, bin, dataDir, logFormat)
	addr = final.addr(t)
	defer func() {
		final.cmd.Process.Signal(syscall.SIGTERM)
		final.wait(t, "SIGTERM after recovery", 20*time.Second)
	}()
	c2, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr + "/?directConnection=true").SetTimeout(30 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Disconnect(ctx)
	cur, err := c2.Database("full").Collection("docs").Find(ctx, bson.D{}, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for cur.Next(ctx) {
		found[cur.Current.Lookup("_id").StringValue()] = true
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	missing := 0
	for _, id := range acked {
		if !found[id] {
			missing++
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d acknowledged documents missing after the restart", missing, len(acked))
	}
	if _, err := c2.Database("full").Collection("docs").InsertOne(ctx, bson.D{{Key: "_id", Value: "after"}}); err != nil {
		t.Fatalf("insert after recovery: %v", err)
	}
	t.Logf("%v: recovered %d documents", time.Since(start), len(found))
}
