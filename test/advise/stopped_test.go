package advise_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// startedRe finds the listen address in `lode serve`'s start line.
var startedRe = regexp.MustCompile(`lode started"?(?: addr=|,"attr":\{"addr":")([^"\s]+)`)

// serve runs `lode serve` on dir and returns its URI and a function that
// stops it with SIGINT (a clean shutdown, which saves the statistics).
func serve(t *testing.T, bin, dir string) (uri string, stop func()) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--dir", dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addrc := make(chan string, 1)
	var logs strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logs.WriteString(sc.Text() + "\n")
			if m := startedRe.FindStringSubmatch(sc.Text()); m != nil {
				addrc <- m[1]
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	var addr string
	select {
	case addr = <-addrc:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("lode serve did not start")
	}
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("lode serve did not stop on SIGINT")
		}
	}
	t.Cleanup(stop)
	return "mongodb://" + addr + "/?directConnection=true", stop
}

// advise runs `lode advise` and returns its output.
func runAdviseCmd(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, append([]string{"advise"}, args...)...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("lode advise %v: %v\n%s%s", args, err, out, stderr)
	}
	return string(out)
}

// TestAdviseStoppedDirectory is the README's path: a workload runs on
// `lode serve`, the server stops, and `lode advise --dir` reads the data
// directory. The workload runs a few shapes many times (one served by
// index host_1, one an $elemMatch on metadata without an index, two
// pipelines) and two queries once; index note_1 is never used. The
// advice must propose the metadata index only, with its dotted keys
// quoted, drop no index the workload used (the access counters were
// saved with the query statistics), give no verdict on note_1 (observed
// for seconds), name each pipeline by its stages, and paste into
// mongosh.
func TestAdviseStoppedDirectory(t *testing.T) {
	mongosh := testenv.RequireTool(t, "mongosh")
	bin, err := testenv.LodeBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	uri, stop := serve(t, bin, dir)
	ctx := testenv.Ctx(t)
	client, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatal(err)
	}
	c := client.Database("app").Collection("events")
	docs := make([]any, 1000)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "host", Value: "h" + string(rune('a'+i%20))},
			{Key: "kind", Value: i % 7}, {Key: "x", Value: i}, {Key: "age", Value: i % 90}, {Key: "note", Value: i},
			{Key: "metadata", Value: bson.A{bson.D{{Key: "key", Value: "k" + string(rune('a'+i%26))}, {Key: "value", Value: i % 50}}}}}
	}
	if _, err := c.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "host", Value: 1}}}, {Keys: bson.D{{Key: "note", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	all := func(cur *mongo.Cursor, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []bson.Raw
		if err := cur.All(ctx, &out); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 100; i++ {
		h := "h" + string(rune('a'+i%20))
		all(c.Find(ctx, bson.D{{Key: "host", Value: h}}))
		all(c.Find(ctx, bson.D{{Key: "metadata", Value: bson.D{{Key: "$elemMatch", Value: bson.D{
			{Key: "key", Value: "k" + string(rune('a'+i%26))}, {Key: "value", Value: i % 50}}}}}}))
		all(c.Aggregate(ctx, mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "host", Value: h}}}},
			{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$kind"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}}}))
		all(c.Aggregate(ctx, mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "host", Value: h}}}},
			{{Key: "$project", Value: bson.D{{Key: "kind", Value: 1}}}}}))
	}
	// The one-off queries of someone looking around.
	all(c.Find(ctx, bson.D{{Key: "x", Value: 1234}}))
	all(c.Find(ctx, bson.D{{Key: "age", Value: bson.D{{Key: "$gt", Value: 80}}}}))
	if err := client.Disconnect(ctx); err != nil {
		t.Fatal(err)
	}
	stop()

	// The text report runs last: lode advise's own $indexStats, recorded
	// by the earlier runs, is no shape of the workload.
	script := runAdviseCmd(t, bin, "--dir", dir, "--mongosh")
	drops := runAdviseCmd(t, bin, "--dir", dir, "--mongosh", "--min-observed", "0s")
	text := runAdviseCmd(t, bin, "--dir", dir)
	// Each `lode advise --dir` runs the embedded server, whose running
	// time extends an unused index's observed window (the counters are
	// saved when it closes), so the window's whole seconds may tick
	// between the script's run and the report's on a slow machine; the
	// rest must match.
	window := regexp.MustCompile(`during \d+s of running time`)
	if !strings.HasSuffix(window.ReplaceAllString(text, "during Ns of running time"), window.ReplaceAllString(script, "during Ns of running time")) {
		t.Errorf("the text report does not end with the --mongosh script:\n%s\n---\n%s", text, script)
	}
	for _, want := range []string{
		`db.getSiblingDB("app").getCollection("events").createIndex({ "metadata.key": 1, "metadata.value": 1 })`,
		"// proposed indexes (1):", "// unused indexes (0):", "// no verdict (1):", "// app.events note_1 { note: 1 }: 0 operations during",
		`aggregate [{"$match":{"host":{"$eq":"?string"}}},{"$group":{"_id":"$kind","n":{"$sum":"?number"}}}]`,
		`aggregate [{"$match":{"host":{"$eq":"?string"}}},{"$project":{"kind":true`,
		"too rare for a proposal: 1 run(s)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("lode advise --dir lacks %q:\n%s", want, text)
		}
	}
	for _, bad := range []string{"dropIndex(\"host_1\")", "createIndex({ x: 1 })", "createIndex({ age: 1 })", "aggregate {}", "$indexStats"} {
		if strings.Contains(text, bad) {
			t.Errorf("lode advise --dir has %q:\n%s", bad, text)
		}
	}
	// With no minimum observation time, note_1 is called unused and
	// host_1, used before the restart, still is not.
	if !strings.Contains(drops, `db.getSiblingDB("app").getCollection("events").dropIndex("note_1")`) || strings.Contains(drops, "host_1") {
		t.Errorf("lode advise --min-observed 0s:\n%s", drops)
	}

	// The scripts paste into mongosh: the server builds the proposal and
	// drops note_1.
	uri, _ = serve(t, bin, dir)
	// One mongosh run (a start costs about a second) on both scripts.
	advice := text[strings.Index(text, "// proposed indexes"):] + "\n" + drops
	f := filepath.Join(t.TempDir(), "advice.js")
	if err := os.WriteFile(f, []byte(advice), 0o644); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	out, err := exec.CommandContext(cctx, mongosh, "--quiet", uri, f).CombinedOutput()
	cancel()
	if err != nil || strings.Contains(string(out), "Error") {
		t.Fatalf("mongosh on the advice: %v\n%s\nscript:\n%s", err, out, advice)
	}
	client, err = mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	specs, err := client.Database("app").Collection("events").Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "_id_,host_1,metadata.key_1_metadata.value_1" {
		t.Errorf("indexes after the advice ran in mongosh: %s", got)
	}
}
