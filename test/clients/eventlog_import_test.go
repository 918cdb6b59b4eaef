package clients

import (
	"context"
	"fmt"
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
)

// TestEventlogImport runs `lode eventlog import` against a `lode serve`
// child on a log with good and bad lines, and checks the events inserted,
// the report of skipped lines (line numbers and errors) and the indexes.
func TestEventlogImport(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	lines := []string{
		`127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"`,
		`10.0.0.2 - - [10/Oct/2000:14:00:00 -0700] "GET /index.html HTTP/1.1" 200 512 "-" "curl/8.0"`,
		`this is not a log line`, // line 3
		``,                       // blank: neither imported nor skipped
		`10.0.0.3 - - [11/Oct/2000:09:00:00 +0000] "POST /form HTTP/1.1" 302 - "-" "-"`,
		`10.0.0.4 - - [11/Oct/2000:09:00:01 +0000] "GET / HTTP/1.1" 2OO 12 "-" "-"`,                // line 6: bad status
		`10.0.0.5 - - [11/Oct/2000:09:00:02 +0000] "GET / HTTP/1.1" 200 12 "-" "ua" trailing junk`, // line 7
		`10.0.0.6 - - [11/Oct/2000:09:00:03 +0000] "GET /common HTTP/1.0" 200 7`,                   // common format
	}
	var b strings.Builder
	for i := 0; i < 300; i++ { // more than one batch
		b.WriteString(`192.168.1.9 - - [12/Oct/2000:10:00:00 +0000] "GET /bulk HTTP/1.1" 200 1 "-" "-"` + "\n")
	}
	file := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"+b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, lodeBin, "eventlog", "import", file, "--uri", s.uri()+"?directConnection=true",
		"--db", "logs", "--coll", "access", "--batch", "100")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("lode eventlog import: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	out := stdout.String()
	const good = 4 + 300 // lines 1, 2, 5 and 8, and the bulk lines
	total := len(lines) + 300
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^imported ` + strconv.Itoa(good) + ` events from ` + strconv.Itoa(total) + ` lines of .*access\.log in \S+ \(w=w1\)$`),
		regexp.MustCompile(`(?m)^skipped 3 lines that are not Apache combined log lines:$`),
		regexp.MustCompile(`(?m)^  line 3, column \d+: .+$`),
		regexp.MustCompile(`(?m)^  line 6, column ` + strconv.Itoa(strings.Index(lines[5], "2OO")+1) + `: status "2OO" is not a 3-digit number$`),
		regexp.MustCompile(`(?m)^  line 7, column ` + strconv.Itoa(strings.Index(lines[6], "trailing")+1) + `: unexpected text "trailing junk" after the user agent$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("output does not match %s:\n%s", want, out)
		}
	}
	// stderr is not a terminal here: plain progress lines, no bar.
	if !regexp.MustCompile(`(?m)^`+strconv.Itoa(good)+` events imported, 100% of the file read$`).MatchString(stderr.String()) ||
		strings.Contains(stderr.String(), "[#") || strings.Contains(stderr.String(), "\r") {
		t.Errorf("want plain progress lines ending at 100%% on stderr:\n%s", stderr.String())
	}

	client, err := mongo.Connect(options.Client().ApplyURI(s.uri() + "?directConnection=true"))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	coll := client.Database("logs").Collection("access")
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != good {
		t.Fatalf("collection holds %d events (%v), want %d", n, err, good)
	}
	var ev bson.M
	if err := coll.FindOne(ctx, bson.D{{Key: "path", Value: "/apache_pb.gif"}}).Decode(&ev); err != nil {
		t.Fatal(err)
	}
	if ev["host"] != "127.0.0.1" || ev["user"] != "frank" || ev["status"] != int64(200) && ev["status"] != int32(200) ||
		ev["time"].(bson.DateTime).Time().UTC() != time.Date(2000, 10, 10, 20, 55, 36, 0, time.UTC) {
		t.Errorf("seed event stored as %v", ev)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{{Key: "path", Value: "/bulk"}}); err != nil || n != 300 {
		t.Errorf("%d /bulk events (%v), want 300", n, err)
	}
	specs, err := coll.Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, sp := range specs {
		names[sp.Name] = true
	}
	for _, n := range []string{"_id_", "path_1", "time_1", "host_1_time_1"} {
		if !names[n] {
			t.Errorf("index %s missing; have %v", n, names)
		}
	}
}

// TestEventlogImportTimeSeries: `lode eventlog import --timeseries`
// stores the events in a time series collection with time as its
// timeField and host as its metaField, with the granularity and the
// retention asked for; the events read back as in a plain collection.
func TestEventlogImportTimeSeries(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	var b strings.Builder
	for i := 0; i < 250; i++ {
		fmt.Fprintf(&b, `10.0.0.%d - - [12/Oct/2000:10:%02d:%02d +0000] "GET /p%d HTTP/1.1" 200 %d "-" "-"`+"\n", i%5, i/60, i%60, i%7, i)
	}
	file := filepath.Join(t.TempDir(), "access.log")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	uri := s.uri() + "?directConnection=true"
	// The bucket options alone are refused: they mean nothing to a plain
	// collection.
	out, err := exec.CommandContext(ctx, lodeBin, "eventlog", "import", file, "--uri", uri, "--granularity", "hours").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--granularity needs --timeseries") {
		t.Fatalf("--granularity without --timeseries: %v\n%s", err, out)
	}
	// Fifty years of retention: the events of 2000 stay.
	out, err = exec.CommandContext(ctx, lodeBin, "eventlog", "import", file, "--uri", uri, "--db", "logs", "--coll", "ts",
		"--batch", "100", "--timeseries", "--granularity", "minutes", "--expire-after", "438000h").CombinedOutput()
	if err != nil {
		t.Fatalf("lode eventlog import --timeseries: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^imported 250 events into a time series collection from 250 lines of `).Match(out) {
		t.Errorf("output:\n%s", out)
	}
	client, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	db := client.Database("logs")
	specs, err := db.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "ts"}})
	if err != nil || len(specs) != 1 {
		t.Fatalf("listCollections: %v, %v", specs, err)
	}
	sp := specs[0]
	ts, _ := sp.Options.Lookup("timeseries").DocumentOK()
	exp, _ := sp.Options.Lookup("expireAfterSeconds").AsInt64OK()
	if sp.Type != "timeseries" || ts.Lookup("timeField").StringValue() != "time" || ts.Lookup("metaField").StringValue() != "host" ||
		ts.Lookup("granularity").StringValue() != "minutes" || exp != 438000*3600 {
		t.Fatalf("collection: type %s, options %v", sp.Type, sp.Options)
	}
	coll := db.Collection("ts")
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 250 {
		t.Fatalf("%d events (%v), want 250", n, err)
	}
	var ev bson.M
	if err := coll.FindOne(ctx, bson.D{{Key: "response_size", Value: 61}}).Decode(&ev); err != nil {
		t.Fatal(err)
	}
	if ev["host"] != "10.0.0.1" || ev["path"] != "/p5" || ev["time"].(bson.DateTime).Time().UTC() != time.Date(2000, 10, 12, 10, 1, 1, 0, time.UTC) {
		t.Errorf("event 61 stored as %v", ev)
	}
	// Five hosts, 50 events each over about four minutes (granularity
	// minutes: a bucket spans up to a day): one bucket per host.
	if n, err := db.Collection("system.buckets.ts").CountDocuments(ctx, bson.D{}); err != nil || n != 5 {
		t.Errorf("%d buckets (%v), want 5", n, err)
	}
}
