package clients

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestMongoshCurrentOpKillOp: a getMore waiting on a tailable cursor (Go
// driver) is found by mongosh's db.currentOp() and stopped by its
// db.killOp(); the getMore then fails with Interrupted (11601).
func TestMongoshCurrentOpKillOp(t *testing.T) {
	t.Parallel()
	// Skipped before the tailing goroutine starts: a skip after it would
	// close the cursor under it.
	requireTool(t, "mongosh")
	s := startServer(t)
	ctx := context.Background()
	client, err := mongo.Connect(options.Client().ApplyURI(s.uri()))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	d := client.Database("test")
	if err := d.CreateCollection(ctx, "events", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20)); err != nil {
		t.Fatal(err)
	}
	coll := d.Collection("events")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetCursorType(options.TailableAwait).SetMaxAwaitTime(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(ctx)
	if !cur.Next(ctx) {
		t.Fatal(cur.Err())
	}
	done := make(chan error, 1)
	go func() {
		if cur.TryNext(ctx) {
			done <- errors.New("unexpected document")
			return
		}
		done <- cur.Err()
	}()
	out := runMongosh(t, s, "ops_currentop.js")
	if !strings.Contains(out, "ops killed") {
		t.Fatalf("script did not finish:\n%s", out)
	}
	select {
	case err := <-done:
		var se mongo.ServerError
		if !errors.As(err, &se) || !se.HasErrorCode(11601) {
			t.Fatalf("killed getMore: want Interrupted, got %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("killed getMore did not return")
	}
}

// TestMongoshStatsSizes: db.coll.stats() (mongosh builds it from
// $collStats), db.stats() and listDatabases report sizes that are not 0
// and add up, and `show dbs` shows the database with a non-zero size.
// One mongosh process runs both: the script in a first --eval, the shell
// command `show dbs` in a second (--eval code is one JavaScript program,
// in which a shell command cannot follow statements).
func TestMongoshStatsSizes(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	const marker = "<<<show dbs>>>"
	out := runMongoshEval(t, s, `load("ops_stats.js"); print("`+marker+`")`, "show dbs")
	before, shown, found := strings.Cut(out, marker)
	if !found || !strings.Contains(before, "ops stats OK") {
		t.Fatalf("ops_stats.js did not finish:\n%s", out)
	}
	for _, line := range strings.Split(shown, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == "test" {
			if f[1] == "0" || f[1] == "0.00" {
				t.Fatalf("show dbs lists test with size 0:\n%s", shown)
			}
			return
		}
	}
	t.Fatalf("show dbs does not list test:\n%s", shown)
}

// runMongoshEval runs shell input (such as "show dbs"), one --eval per
// argument, in one mongosh process and returns its output.
func runMongoshEval(t *testing.T, s *server, code ...string) string {
	t.Helper()
	mongosh := requireTool(t, "mongosh")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"--quiet", "--norc", s.uri()}
	for _, c := range code {
		args = append(args, "--eval", c)
	}
	cmd := exec.CommandContext(ctx, mongosh, args...)
	cmd.Env = append(os.Environ(), "MONGOSH_SKIP_NODE_VERSION_CHECK=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mongosh --eval %q: %v\n%s", code, err, out)
	}
	return string(out)
}
