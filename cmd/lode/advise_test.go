package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/internal/advise"
	"github.com/lodedb/lode/patterns/recent"
)

// adviseFixture builds a data directory with seed 000's documents and no
// {cat: 1, ts: -1}, runs recent.Latest through a recording client, and
// writes the recorded shapes as a --stats file. Collection "other" has an
// unused index {a: 1} that is a prefix of {a: 1, b: 1}.
func adviseFixture(t *testing.T) (dir, stats string) {
	t.Helper()
	ctx := context.Background()
	dir = t.TempDir()
	db, err := lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := advise.NewRecorder()
	client, err := mongo.Connect(options.Client().ApplyURI(db.URI()).SetMonitor(rec.Monitor()))
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]any, 5000)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "cat", Value: fmt.Sprintf("c%d", i%10)}, {Key: "ts", Value: int64(i)}}
	}
	coll := client.Database("app").Collection("docs")
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	other := client.Database("app").Collection("other")
	if _, err := other.InsertOne(ctx, bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "a", Value: 1}}}, {Keys: bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		if _, err := recent.Latest(ctx, coll, "cat", []any{"c1", "c2", "c3"}, 50); err != nil {
			t.Fatal(err)
		}
	}
	raws, err := rec.Source(client, 0)(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range raws {
		js, err := bson.MarshalExtJSON(r, true, false)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(js))
	}
	stats = filepath.Join(t.TempDir(), "stats.jsonl")
	if err := os.WriteFile(stats, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	client.Disconnect(ctx)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, stats
}

// TestAdviseCommand runs `lode advise --dir` on the fixture: the text
// table, --json and --apply.
func TestAdviseCommand(t *testing.T) {
	dir, stats := adviseFixture(t)
	var out bytes.Buffer
	if err := runAdvise([]string{"--dir", dir, "--stats", stats}, &out); err != nil {
		t.Fatal(err)
	}
	// The default thresholds: five runs are too few for a proposal, and
	// the indexes were observed for seconds, too short for a verdict.
	text := out.String()
	for _, want := range []string{
		"too rare for a proposal: 5 run(s)", "// proposed indexes (0): for query shapes that ran at least 100 times, or at least 10 times and took at least 5.0% of the execution time",
		"// unused indexes (0): no operation used them during at least 7d of observed running time",
		"// no verdict (2):", "// app.other a_1 { a: 1 }: 0 operations during",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("lode advise output lacks %q:\n%s", want, text)
		}
	}

	out.Reset()
	if err := runAdvise([]string{"--dir", dir, "--stats", stats, "--min-runs", "5", "--min-observed", "0s"}, &out); err != nil {
		t.Fatal(err)
	}
	text = out.String()
	for _, want := range []string{
		"app.docs", `find {"cat":{"$in":"?array<?string>"}} sort {"ts":-1} limit`, "COLLSCAN", "{ cat: 1, ts: -1 }",
		"IXSCAN { cat: 1, ts: -1 }", "proposed indexes (1):", "unused indexes (2):", "// app.other a_1 { a: 1 }: 0 operations",
		`db.getSiblingDB("app").getCollection("docs").createIndex({ cat: 1, ts: -1 })`,
		`db.getSiblingDB("app").getCollection("other").dropIndex("a_1")`,
		"prefix indexes (1):", "a_1 { a: 1 } is a prefix of a_1_b_1",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("lode advise output lacks %q:\n%s", want, text)
		}
	}

	out.Reset()
	if err := runAdvise([]string{"--dir", dir, "--stats", stats, "--json", "--db", "app", "--coll", "docs", "--min-runs", "5"}, &out); err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, out.Bytes()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(compact.String(), `"key":{"cat":1,"ts":-1}`) {
		t.Errorf("--json output lacks the ordered key:\n%s", out.String())
	}
	var rep struct {
		Shapes []struct {
			Plan          string  `json:"plan"`
			Docs          float64 `json:"docsExaminedPerResult"`
			PredictedDocs float64 `json:"predictedDocsExaminedPerResult"`
			PredictedKeys float64 `json:"predictedKeysExaminedPerResult"`
			Index         map[string]int
		} `json:"shapes"`
		Proposals []struct {
			Name  string `json:"name"`
			Bytes int64  `json:"estimatedIndexBytes"`
		} `json:"proposals"`
		Unused []struct{ Name string } `json:"unusedIndexes"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Shapes) != 1 || rep.Shapes[0].Plan != "COLLSCAN" || rep.Shapes[0].Docs < 50 {
		t.Fatalf("--json shapes %+v, want one COLLSCAN shape reading 5000 documents for 50", rep.Shapes)
	}
	if s := rep.Shapes[0]; s.PredictedDocs < 0.9 || s.PredictedDocs > 1.1 || s.PredictedKeys < 0.9 || s.PredictedKeys > 1.2 {
		t.Errorf("predicted %.2f keys %.2f docs per result, want about 1 each", s.PredictedKeys, s.PredictedDocs)
	}
	if len(rep.Proposals) != 1 || rep.Proposals[0].Name != "cat_1_ts_-1" || rep.Proposals[0].Bytes <= 0 {
		t.Errorf("--json proposals %+v", rep.Proposals)
	}
	if len(rep.Unused) != 0 {
		t.Errorf("--coll docs reports unused indexes of other collections: %+v", rep.Unused)
	}

	out.Reset()
	if err := runAdvise([]string{"--dir", dir, "--stats", stats, "--apply", "--min-runs", "5"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "built 1 index(es):\n//   app.docs  cat_1_ts_-1 { cat: 1, ts: -1 }") {
		t.Errorf("--apply output:\n%s", out.String())
	}
	db, err := lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	names, err := db.Client().Database("app").Collection("docs").Indexes().ListSpecifications(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range names {
		found = found || n.Name == "cat_1_ts_-1"
	}
	if !found {
		t.Errorf("after --apply the indexes are %+v", names)
	}
}

// TestAdviseCommandErrors: the command line is checked, and a server
// without $queryStats is reported as such.
func TestAdviseCommandErrors(t *testing.T) {
	var out bytes.Buffer
	if err := runAdvise([]string{"--dir", "x", "--uri", "mongodb://127.0.0.1:1"}, &out); err == nil {
		t.Error("--dir with --uri accepted")
	}
	if err := runAdvise([]string{}, &out); err == nil {
		t.Error("neither --dir nor --uri accepted")
	}
	if err := runAdvise([]string{"--dir", t.TempDir(), "extra"}, &out); err == nil {
		t.Error("an extra argument accepted")
	}
	if err := runAdvise([]string{"--dir", t.TempDir(), "--min-share", "150"}, &out); err == nil {
		t.Error("--min-share 150 accepted")
	}
	if err := runAdvise([]string{"--dir", t.TempDir(), "--json", "--mongosh"}, &out); err == nil {
		t.Error("--json with --mongosh accepted")
	}
	err := runAdvise([]string{"--dir", t.TempDir()}, &out)
	if err != nil && !errors.Is(err, advise.ErrNoQueryStats) {
		t.Errorf("advise on a fresh directory: %v", err)
	}
	if err == nil && !strings.Contains(out.String(), "proposed indexes (0):") {
		t.Errorf("advise on a fresh directory proposes:\n%s", out.String())
	}
}

// TestAdviseCommandQueryStats is the intended flow: the workload runs on
// a Lode directory, the server records its shapes ($queryStats, kept
// across the restart), and `lode advise --dir` reads them.
func TestAdviseCommandQueryStats(t *testing.T) {
	dir, _ := adviseFixture(t)
	var out bytes.Buffer
	err := runAdvise([]string{"--dir", dir, "--db", "app", "--min-runs", "5"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`find {"cat":{"$in":"?array<?string>"}} sort {"ts":-1} limit`, "IXSCAN { cat: 1, ts: -1 }", "proposed indexes (1):"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("lode advise --dir (server statistics) lacks %q:\n%s", want, out.String())
		}
	}
	// The same through --uri against a running server.
	db, err := lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out.Reset()
	if err := runAdvise([]string{"--uri", db.URI(), "--db", "app", "--json", "--min-runs", "5"}, &out); err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, out.Bytes()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(compact.String(), `"proposals":[{"db":"app","coll":"docs","key":{"cat":1,"ts":-1}`) {
		t.Errorf("lode advise --uri --json:\n%s", out.String())
	}
}
