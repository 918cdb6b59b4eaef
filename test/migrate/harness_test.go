// Package migrate tests `lode migrate` end to end: two `lode serve`
// processes, the target standing in for a MongoDB deployment (same wire
// protocol, same driver calls), a source under load from the pattern
// packages, and kill -9 of each process in turn.
package migrate_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"sort"
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

func lodeBin(t *testing.T) string {
	t.Helper()
	bin, err := testenv.LodeBinary()
	if err != nil {
		t.Fatalf("build lode: %v", err)
	}
	return bin
}

// freePort returns a port nothing listens on now (a restarted server
// keeps its port, so that lode migrate finds it again).
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// server is a `lode serve` child process on a data directory and port.
type server struct {
	t    *testing.T
	bin  string
	dir  string
	port int
	cmd  *exec.Cmd
	log  *safeBuffer
	done chan struct{}
}

func startServer(t *testing.T, name string) *server {
	s := &server{t: t, bin: lodeBin(t), dir: filepath.Join(t.TempDir(), name), port: freePort(t)}
	s.start()
	t.Cleanup(s.kill)
	return s
}

func (s *server) uri() string { return fmt.Sprintf("mongodb://127.0.0.1:%d/", s.port) }

func (s *server) start() {
	s.t.Helper()
	for attempt := 0; ; attempt++ {
		s.cmd = exec.Command(s.bin, "serve", "--addr", fmt.Sprintf("127.0.0.1:%d", s.port), "--dir", s.dir, "--log-level", "info")
		s.log = &safeBuffer{}
		s.cmd.Stderr = s.log
		s.cmd.Stdout = s.log
		if err := s.cmd.Start(); err != nil {
			s.t.Fatal(err)
		}
		s.done = make(chan struct{})
		go func(c *exec.Cmd, done chan struct{}) { c.Wait(); close(done) }(s.cmd, s.done)
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if strings.Contains(s.log.String(), "lode started") {
				return
			}
			select {
			case <-s.done:
				deadline = time.Time{}
			case <-time.After(20 * time.Millisecond):
			}
		}
		s.kill()
		if attempt < 3 && strings.Contains(s.log.String(), "address already in use") {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		s.t.Fatalf("lode serve on port %d did not start:\n%s", s.port, s.log.String())
	}
}

// kill sends SIGKILL to the server's own process (by its PID).
func (s *server) kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}

func (s *server) restart() {
	s.kill()
	s.start()
}

// client connects to s with short timeouts, so that a writer notices a
// killed server quickly.
func (s *server) client(t *testing.T) *mongo.Client {
	t.Helper()
	return s.clientWith(t, options.Client())
}

// journaledClient is client with j: true writes, which a kill -9 of the
// server does not lose once acknowledged.
func (s *server) journaledClient(t *testing.T) *mongo.Client {
	t.Helper()
	return s.clientWith(t, options.Client().SetWriteConcern(writeconcern.Journaled()))
}

func (s *server) clientWith(t *testing.T, o *options.ClientOptions) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(o.ApplyURI(s.uri()).
		SetServerSelectionTimeout(2 * time.Second).SetTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Disconnect(context.Background()) })
	return c
}

type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *safeBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *safeBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// migrator is a `lode migrate` child process.
type migrator struct {
	t    *testing.T
	cmd  *exec.Cmd
	out  *safeBuffer
	done chan struct{}
	err  error
}

func startMigrate(t *testing.T, src, dst *server, args ...string) *migrator {
	t.Helper()
	m := &migrator{t: t, out: &safeBuffer{}, done: make(chan struct{})}
	m.cmd = exec.Command(lodeBin(t), append([]string{"migrate", "--from", src.uri(), "--to", dst.uri(), "--progress", "300ms"}, args...)...)
	m.cmd.Stdout = m.out
	m.cmd.Stderr = m.out
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { m.err = m.cmd.Wait(); close(m.done) }()
	t.Cleanup(func() {
		m.signal(syscall.SIGKILL)
		<-m.done
	})
	return m
}

func (m *migrator) signal(sig syscall.Signal) {
	select {
	case <-m.done:
	default:
		m.cmd.Process.Signal(sig)
	}
}

// waitFor waits until the output has a line containing s.
func (m *migrator) waitFor(s string, timeout time.Duration) {
	m.t.Helper()
	deadline := time.Now().Add(timeout)
	for !strings.Contains(m.out.String(), s) {
		select {
		case <-m.done:
			if strings.Contains(m.out.String(), s) {
				return
			}
			m.t.Fatalf("lode migrate ended (%v) before printing %q:\n%s", m.err, s, m.out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("lode migrate did not print %q in %v:\n%s", s, timeout, m.out.String())
		}
	}
}

// wait waits for the process to end and returns its error.
func (m *migrator) wait(timeout time.Duration) error {
	m.t.Helper()
	select {
	case <-m.done:
		return m.err
	case <-time.After(timeout):
		m.signal(syscall.SIGKILL)
		<-m.done
		m.t.Fatalf("lode migrate did not end in %v:\n%s", timeout, m.out.String())
	}
	return nil
}

// stop interrupts the migration (as Ctrl-C) and waits for it to save its
// checkpoint and exit.
func (m *migrator) stop() {
	m.t.Helper()
	m.signal(syscall.SIGINT)
	if err := m.wait(30 * time.Second); err != nil {
		m.t.Fatalf("lode migrate after SIGINT: %v\n%s", err, m.out.String())
	}
}

// lines returns the output lines containing s.
func (m *migrator) lines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(m.out.String()))
	for sc.Scan() {
		if strings.Contains(sc.Text(), s) {
			out = append(out, sc.Text())
		}
	}
	return out
}

// sameData checks independently of lode migrate that every user
// collection of src is on dst with the same documents (in _id order,
// byte for byte), the same options and the same indexes, and that dst
// has no other user collection.
func sameData(t *testing.T, ctx context.Context, src, dst *mongo.Client) {
	t.Helper()
	dbs, err := src.ListDatabaseNames(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, db := range dbs {
		if db == "admin" || db == "local" || db == "config" {
			continue
		}
		specs := listColls(t, ctx, src.Database(db))
		tspecs := listColls(t, ctx, dst.Database(db))
		for name, spec := range specs {
			want[db+"."+name] = true
			tspec, ok := tspecs[name]
			if !ok {
				t.Errorf("%s.%s missing on the target", db, name)
				continue
			}
			if a, b := spec.Lookup("options").String(), tspec.Lookup("options").String(); a != b {
				t.Errorf("%s.%s options: %s on the source, %s on the target", db, name, a, b)
			}
			if typ, _ := spec.Lookup("type").StringValueOK(); typ == "view" {
				continue
			}
			sd := allDocs(t, ctx, src.Database(db).Collection(name))
			td := allDocs(t, ctx, dst.Database(db).Collection(name))
			if len(sd) != len(td) {
				t.Errorf("%s.%s: %d documents on the source, %d on the target", db, name, len(sd), len(td))
			}
			diffs := 0
			for i := 0; i < len(sd) && i < len(td) && diffs < 5; i++ {
				if !bytes.Equal(sd[i], td[i]) {
					t.Errorf("%s.%s document %d: %s on the source, %s on the target", db, name, i, sd[i], td[i])
					diffs++
				}
			}
			if a, b := indexes(t, ctx, src.Database(db).Collection(name)), indexes(t, ctx, dst.Database(db).Collection(name)); a != b {
				t.Errorf("%s.%s indexes:\n%s on the source,\n%s on the target", db, name, a, b)
			}
		}
	}
	tdbs, err := dst.ListDatabaseNames(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range tdbs {
		if db == "admin" || db == "local" || db == "config" || db == "lode_migrate" {
			continue
		}
		for name := range listColls(t, ctx, dst.Database(db)) {
			if !want[db+"."+name] {
				t.Errorf("%s.%s only on the target", db, name)
			}
		}
	}
}

func listColls(t *testing.T, ctx context.Context, d *mongo.Database) map[string]bson.Raw {
	t.Helper()
	cur, err := d.ListCollections(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var specs []bson.Raw
	if err := cur.All(ctx, &specs); err != nil {
		t.Fatal(err)
	}
	out := map[string]bson.Raw{}
	for _, s := range specs {
		name := s.Lookup("name").StringValue()
		if !strings.HasPrefix(name, "system.") {
			out[name] = s
		}
	}
	return out
}

func allDocs(t *testing.T, ctx context.Context, c *mongo.Collection) []bson.Raw {
	t.Helper()
	cur, err := c.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).
		SetCollation(&options.Collation{Locale: "simple"}))
	if err != nil {
		t.Fatal(err)
	}
	var out []bson.Raw
	if err := cur.All(ctx, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func indexes(t *testing.T, ctx context.Context, c *mongo.Collection) string {
	t.Helper()
	cur, err := c.Indexes().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var specs []bson.D
	if err := cur.All(ctx, &specs); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range specs {
		var d bson.D
		for _, e := range s {
			if e.Key != "v" && e.Key != "ns" {
				d = append(d, e)
			}
		}
		sort.Slice(d, func(i, j int) bool { return d[i].Key < d[j].Key })
		b, _ := bson.MarshalExtJSON(d, true, false)
		out = append(out, string(b))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}
