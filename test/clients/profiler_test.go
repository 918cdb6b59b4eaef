package clients

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// logLines parses the server's JSON log lines, failing on any that is
// not one of mongod's structured records.
func logLines(t *testing.T, logs string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(logs))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("not a JSON log line: %q: %v", sc.Text(), err)
		}
		for _, k := range []string{"t", "s", "c", "id", "ctx", "msg"} {
			if _, ok := rec[k]; !ok {
				t.Fatalf("log line lacks %s: %s", k, sc.Text())
			}
		}
		out = append(out, rec)
	}
	return out
}

// TestSlowQueryJSONLog runs lode serve --log-format json --slowms 0 (every
// command is slow) and a find: exactly one "Slow query" line (id 51803)
// names it, with mongod's attributes. Then, with slowms 200 (set by the
// profile command), an awaitData getMore that waits 300 ms is not logged
// as slow. SIGINT is logged as mongod logs it (Received signal, 23377).
func TestSlowQueryJSONLog(t *testing.T) {
	s := startServer(t, "--log-format", "json", "--slowms", "0")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI(s.uri()).SetAppName("slowtest"))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	db := client.Database("logs")
	coll := db.Collection("events")
	docs := make([]any, 20)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "host", Value: "h"}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Find(ctx, bson.D{{Key: "host", Value: "h"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.M
	if err := cur.All(ctx, &got); err != nil || len(got) != 20 {
		t.Fatalf("find: %v %d", err, len(got))
	}
	// A command over mongod's 10 KB log limit: logged cut, with
	// "truncated" and "size" beside attr.
	big := make(bson.A, 2000)
	for i := range big {
		big[i] = fmt.Sprintf("value-%08d", i)
	}
	if err := db.Collection("big").FindOne(ctx, bson.D{{Key: "k", Value: bson.D{{Key: "$in", Value: big}}}}).Err(); err != mongo.ErrNoDocuments {
		t.Fatal(err)
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "profile", Value: -1}, {Key: "slowms", Value: 200}}).Err(); err != nil {
		t.Fatal(err)
	}
	// A tailable awaitData getMore waiting 300 ms for data.
	if err := db.CreateCollection(ctx, "capped", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20)); err != nil {
		t.Fatal(err)
	}
	capped := db.Collection("capped")
	if _, err := capped.InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	tc, err := capped.Find(ctx, bson.D{}, options.Find().SetCursorType(options.TailableAwait).SetMaxAwaitTime(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	tc.TryNext(ctx) // the first batch's document
	tc.TryNext(ctx) // a getMore that waits 300 ms
	_ = tc.Close(ctx)
	s.stop()

	recs := logLines(t, s.logs.String())
	var slow []map[string]any
	for _, r := range recs {
		if r["msg"] != "Slow query" {
			continue
		}
		attr := r["attr"].(map[string]any)
		cmd, _ := attr["command"].(map[string]any)
		if cmd["find"] == "events" {
			slow = append(slow, r)
		}
		if _, ok := cmd["getMore"]; ok && attr["ns"] == "logs.capped" {
			t.Errorf("an awaitData getMore logged as slow for waiting: %v", r)
		}
	}
	if len(slow) != 1 {
		t.Fatalf("want one Slow query line for the find, got %d:\n%s", len(slow), s.logs.String())
	}
	r := slow[0]
	if r["s"] != "I" || r["c"] != "COMMAND" || r["id"] != float64(51803) || !strings.HasPrefix(r["ctx"].(string), "conn") {
		t.Errorf("header: %v", r)
	}
	if _, ok := r["t"].(map[string]any)["$date"].(string); !ok {
		t.Errorf("t: %v", r["t"])
	}
	attr := r["attr"].(map[string]any)
	if attr["type"] != "command" || attr["ns"] != "logs.events" || attr["appName"] != "slowtest" ||
		attr["planSummary"] != "COLLSCAN" || attr["keysExamined"] != float64(0) || attr["docsExamined"] != float64(20) ||
		attr["nreturned"] != float64(20) || attr["protocol"] != "op_msg" {
		t.Errorf("attr: %v", attr)
	}
	if _, ok := attr["durationMillis"].(float64); !ok {
		t.Errorf("durationMillis: %v", attr["durationMillis"])
	}
	var truncated map[string]any
	for _, r := range recs {
		if a, ok := r["attr"].(map[string]any); ok && r["msg"] == "Slow query" && a["ns"] == "logs.big" {
			truncated = r
		}
	}
	if truncated == nil || truncated["truncated"] == nil || truncated["size"] == nil {
		t.Errorf("the big command's line: %v", truncated)
	}
	accepted := 0
	for _, r := range recs {
		if r["msg"] == "Connection accepted" && r["id"] == float64(22943) && r["c"] == "NETWORK" {
			accepted++
		}
	}
	if accepted == 0 {
		t.Errorf("no Connection accepted line (22943)")
	}
	var sig map[string]any
	for _, r := range recs {
		if r["msg"] == "Received signal" {
			sig = r
		}
	}
	if sig == nil || sig["id"] != float64(23377) || sig["c"] != "CONTROL" {
		t.Fatalf("Received signal line: %v", sig)
	}
	if a := sig["attr"].(map[string]any); a["signal"] != float64(2) || a["error"] != "Interrupt" {
		t.Errorf("signal attrs: %v", a)
	}
}

// TestShowProfileMongosh runs mongosh's `show profile`, which lists the
// five latest entries of system.profile that took at least a
// millisecond: a regular expression over 50,000 documents does.
func TestShowProfileMongosh(t *testing.T) {
	t.Parallel() // more load only makes the regular expression slower
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI(s.uri()))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	db := client.Database("t")
	docs := make([]any, 50000)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "s", Value: fmt.Sprintf("abc%d", i)}}
	}
	if _, err := db.Collection("c").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "profile", Value: 2}}).Err(); err != nil {
		t.Fatal(err)
	}
	re := bson.Regex{Pattern: "9999$"}
	if _, err := db.Collection("c").CountDocuments(ctx, bson.D{{Key: "s", Value: re}, {Key: "x", Value: bson.D{{Key: "$exists", Value: false}}}}); err != nil {
		t.Fatal(err)
	}
	mongosh := requireTool(t, "mongosh")
	cmd := exec.CommandContext(ctx, mongosh, "--quiet", "--norc", s.uri()+"t", "--eval", "show profile")
	cmd.Env = append(os.Environ(), "MONGOSH_SKIP_NODE_VERSION_CHECK=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mongosh: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "command\tt.c") || !strings.Contains(string(out), "docsExamined:50000") {
		t.Fatalf("show profile:\n%s", out)
	}
}
