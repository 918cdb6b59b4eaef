package clients

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// fileServer is a `lode serve` child process that logs to a file.
type fileServer struct {
	cmd    *exec.Cmd
	log    string
	done   chan struct{}
	output testenv.LogBuffer // stdout and stderr: empty while it logs to the file
	err    error             // Wait's result, once done is closed
}

// startFileServer runs lode serve with args, which send its log to the
// file logPath, and waits until that file says it started.
func startFileServer(t *testing.T, logPath string, args ...string) *fileServer {
	t.Helper()
	s := &fileServer{cmd: exec.Command(lodeBin, append([]string{"serve"}, args...)...), log: logPath, done: make(chan struct{})}
	s.cmd.Stdout, s.cmd.Stderr = &s.output, &s.output
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.err = s.cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			_ = s.cmd.Process.Signal(os.Interrupt)
			select {
			case <-s.done:
			case <-time.After(10 * time.Second):
				_ = s.cmd.Process.Kill()
				<-s.done
			}
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(logPath)
		if startedRe.Match(b) {
			return s
		}
		select {
		case <-s.done:
			t.Fatalf("lode serve %v exited: %v\n%s\nlog file:\n%s", args, s.err, s.output.String(), b)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("lode serve %v did not log its start to %s:\n%s", args, logPath, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitExit waits for the server to exit and returns its exit status.
func (s *fileServer) waitExit(t *testing.T) int {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		t.Fatal("lode serve did not exit after the shutdown command")
	}
	var ee *exec.ExitError
	if errors.As(s.err, &ee) {
		return ee.ExitCode()
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	return 0
}

// TestServeMongodConfig starts `lode serve --config` with a mongod YAML
// configuration file (port, bind address, data path, log file) and runs
// logRotate, compact and db.shutdownServer() from mongosh: the server
// listens on the file's port, keeps its data in the file's path, logs to
// the file's log, renames that log with mongod's UTC suffix on
// logRotate, and exits with status 0 on the shutdown command, whose
// client sees its connection close.
func TestServeMongodConfig(t *testing.T) {
	requireTool(t, "mongosh")
	dir := t.TempDir()
	port := freePort(t)
	data := filepath.Join(dir, "db")
	logPath := filepath.Join(dir, "mongod.log")
	conf := filepath.Join(dir, "mongod.conf")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	yaml := fmt.Sprintf(`# mongod.conf
storage:
  dbPath: %s
  wiredTiger:
    engineConfig:
      cacheSizeGB: 0.25
systemLog:
  destination: file
  path: %s
  logAppend: false
net:
  port: %d
  bindIp: 127.0.0.1
security:
  authorization: disabled
operationProfiling:
  slowOpThresholdMs: 200
setParameter:
  localLogicalSessionTimeoutMinutes: 45
`, data, logPath, port)
	if err := os.WriteFile(conf, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	// logAppend false: an older log is renamed aside at start, as mongod
	// does.
	if err := os.WriteFile(logPath, []byte("an older server's log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startFileServer(t, logPath, "--config", conf)
	b, _ := os.ReadFile(logPath)
	if m := startedRe.FindSubmatch(b); m == nil || string(m[1]) != fmt.Sprintf("127.0.0.1:%d", port) {
		t.Fatalf("lode started on %q, want the file's 127.0.0.1:%d", m, port)
	}
	if strings.Contains(string(b), "an older server's log") {
		t.Error("without logAppend the old log file was appended to")
	}
	if s.output.String() != "" {
		t.Errorf("with systemLog.path the server wrote to stderr: %q", s.output.String())
	}
	if ents, _ := os.ReadDir(data); len(ents) == 0 {
		t.Errorf("storage.dbPath %s holds no data files", data)
	}

	// The old log was renamed with this second's suffix at start; as
	// mongod's, a rotation within the same second would find its name
	// taken (FileRenameFailed).
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))

	// mongosh: logRotate, compact, shutdown (operations_mongosh.js).
	mongosh := requireTool(t, "mongosh")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script, _ := filepath.Abs("operations_mongosh.js")
	cmd := exec.CommandContext(ctx, mongosh, "--quiet", "--norc", fmt.Sprintf("mongodb://127.0.0.1:%d/", port), script)
	cmd.Env = append(os.Environ(), "MONGOSH_SKIP_NODE_VERSION_CHECK=1")
	outb, err := cmd.CombinedOutput()
	out := string(outb)
	if err != nil || !strings.Contains(out, "checks passed") {
		t.Fatalf("mongosh: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`shutdownServer: MongoNetworkError: .*closed`).MatchString(out) {
		t.Errorf("db.shutdownServer(): want the connection closed under the client, as by mongod; mongosh printed:\n%s", out)
	}
	if code := s.waitExit(t); code != 0 {
		t.Errorf("lode serve exited with status %d after the shutdown command, want 0", code)
	}

	// The log files: the old one renamed at start, the one renamed by
	// logRotate, and the current one ending with the shutdown.
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	suffix := regexp.MustCompile(`^mongod\.log\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d$`)
	var rotated []string
	for _, e := range ents {
		if suffix.MatchString(e.Name()) {
			rotated = append(rotated, e.Name())
		}
	}
	if len(rotated) != 2 {
		t.Fatalf("rotated log files %v, want 2 (the old log at start, then logRotate's)", rotated)
	}
	first, _ := os.ReadFile(filepath.Join(dir, rotated[0]))
	second, _ := os.ReadFile(filepath.Join(dir, rotated[1]))
	if !strings.Contains(string(first), "an older server's log") {
		t.Errorf("%s does not hold the older log:\n%s", rotated[0], first)
	}
	if !startedRe.Match(second) || !strings.Contains(string(second), "Log rotation initiated") {
		t.Errorf("%s does not hold the log up to the rotation:\n%s", rotated[1], second)
	}
	cur, _ := os.ReadFile(logPath)
	for _, want := range []string{"Terminating via shutdown command", "Now exiting"} {
		if !strings.Contains(string(cur), want) {
			t.Errorf("the log after the rotation lacks %q:\n%s", want, cur)
		}
	}
	if startedRe.Match(cur) {
		t.Errorf("the log after the rotation still holds the lines before it:\n%s", cur)
	}
}

// TestServeMongodFlags starts lode serve with mongod's flag names
// (--port, --bind_ip, --dbpath, --logpath, --logappend) over a
// configuration file whose port and path they override, as mongod's
// command line overrides its file, and shuts it down with the shutdown
// command through the Go driver.
func TestServeMongodFlags(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	data := filepath.Join(dir, "data")
	logPath := filepath.Join(dir, "lode.log")
	conf := filepath.Join(dir, "mongod.yaml")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logPath, []byte("kept: logappend\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The file names a port and a path the flags override.
	yaml := fmt.Sprintf("net:\n  port: %d\nstorage:\n  dbPath: %s\n", freePort(t), filepath.Join(dir, "not-this-one"))
	if err := os.WriteFile(conf, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startFileServer(t, logPath, "--config", conf, "--port", strconv.Itoa(port), "--bind_ip", "127.0.0.1",
		"--dbpath", data, "--logpath", logPath, "--logappend")
	b, _ := os.ReadFile(logPath)
	if !strings.HasPrefix(string(b), "kept: logappend\n") {
		t.Errorf("--logappend: the log file's earlier lines are gone:\n%s", b)
	}
	if m := startedRe.FindSubmatch(b); m == nil || string(m[1]) != fmt.Sprintf("127.0.0.1:%d", port) {
		t.Fatalf("lode started on %q, want --port's 127.0.0.1:%d", m, port)
	}
	if _, err := os.Stat(filepath.Join(dir, "not-this-one")); err == nil {
		t.Error("the configuration file's dbPath was used although --dbpath was given")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI(fmt.Sprintf("mongodb://127.0.0.1:%d/?directConnection=true", port)))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(context.Background())
	if _, err := client.Database("x").Collection("c").InsertOne(ctx, bson.D{{Key: "a", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(data); len(ents) == 0 {
		t.Errorf("--dbpath %s holds no data files", data)
	}
	// getCmdLineOpts (db.serverCmdLineOpts()) reports what was used under
	// mongod's option names, as mongod's parsed does.
	var opts struct {
		Parsed struct {
			Config string
			Net    struct {
				BindIP string `bson:"bindIp"`
				Port   int32
			}
			Storage struct {
				DBPath string `bson:"dbPath"`
			}
			SystemLog struct {
				Destination, Path string
				LogAppend         bool `bson:"logAppend"`
			} `bson:"systemLog"`
		}
	}
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "getCmdLineOpts", Value: 1}}).Decode(&opts); err != nil {
		t.Fatal(err)
	}
	p := opts.Parsed
	if p.Config != conf || p.Net.Port != int32(port) || p.Net.BindIP != "127.0.0.1" || p.Storage.DBPath != data ||
		p.SystemLog.Destination != "file" || p.SystemLog.Path != logPath || !p.SystemLog.LogAppend {
		t.Errorf("getCmdLineOpts parsed = %+v", p)
	}
	// The shutdown command, with force and timeoutSecs as mongod takes
	// them: no reply, the connection closes, the server exits 0.
	err = client.Database("admin").RunCommand(ctx, bson.D{{Key: "shutdown", Value: 1}, {Key: "force", Value: true}, {Key: "timeoutSecs", Value: 5}}).Err()
	if err == nil || !mongo.IsNetworkError(err) {
		t.Errorf("shutdown: got %v, want a network error (the server closes the connection without a reply, as mongod)", err)
	}
	if code := s.waitExit(t); code != 0 {
		t.Errorf("lode serve exited with status %d after the shutdown command, want 0", code)
	}
	b, _ = os.ReadFile(logPath)
	if !regexp.MustCompile(`Terminating via shutdown command.*force=true timeoutSecs=5`).Match(b) {
		t.Errorf("the log lacks the shutdown command's line with force and timeoutSecs:\n%s", b)
	}
}

// TestServeRefusesBadOptions: an unknown flag is answered with the
// nearest known one, a configuration option Lode cannot honour is
// refused by name, and either stops lode serve with status 2 (mongod's
// EXIT_BADOPTIONS) before it creates its data directory.
func TestServeRefusesBadOptions(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	n := 0
	conf := func(body string) string {
		n++
		p := filepath.Join(dir, fmt.Sprintf("c%d.conf", n))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--dbpth", data}, "unknown flag --dbpth; did you mean --dbpath?"},
		{[]string{"--bindIp", "127.0.0.1"}, "unknown flag --bindIp; did you mean --bind_ip?"},
		{[]string{"--logPath", "x.log"}, "unknown flag --logPath; did you mean --logpath?"},
		{[]string{"--no-such-option-at-all"}, "unknown flag --no-such-option-at-all (lode serve --help lists the flags)"},
		{[]string{"--addr", "127.0.0.1:0", "--port", "27017"}, "give either --addr host:port or mongod's --bind_ip and --port, not both"},
		{[]string{"--config", conf("storage:\n  dbPath: " + data + "\n  journal:\n    enabled: true\n")}, "storage.journal.enabled: not supported by Lode"},
		{[]string{"--config", conf("net:\n  port: 27017\n  compression:\n    compressors: zstd\n")}, "net.compression.compressors: not supported by Lode"},
		{[]string{"--config", conf("processManagement:\n  fork: true\n")}, "processManagement.fork: not supported by Lode: Lode does not daemonize"},
		{[]string{"--config", conf("systemLog:\n  destination: syslog\n")}, "systemLog.destination: syslog is not supported by Lode"},
		{[]string{"--config", conf("systemLog:\n  path: /tmp/x.log\n")}, "systemLog.path requires systemLog.destination to be set to \"file\""},
		{[]string{"--config", conf("setParameter:\n  notAParameter: 1\n")}, "setParameter.notAParameter"},
		{[]string{"--config", conf("net: [\n")}, "is not valid YAML"},
	}
	for _, tc := range cases {
		out, err := exec.Command(lodeBin, append([]string{"serve"}, tc.args...)...).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("%v: exit %v, want status 2\n%s", tc.args, err, out)
			continue
		}
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("%v: output %q, want %q", tc.args, out, tc.want)
		}
		if strings.Contains(string(out), "Usage of") || strings.Count(string(out), "\n") > 2 {
			t.Errorf("%v: the refusal prints more than its own line:\n%s", tc.args, out)
		}
	}
	if _, err := os.Stat(data); err == nil {
		t.Errorf("a refused start created the data directory %s", data)
	}
}
