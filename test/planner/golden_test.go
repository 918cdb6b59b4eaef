package planner_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestPlanGolden runs the explain golden files in testdata/: each file
// gets its own embedded Lode, sets up collections, indexes and documents
// with directives, and prints parts of the explain of a command. The
// expected outputs are the plans mongod 7.0 documents for these query
// shapes. `go test ./test/planner -run TestPlanGolden -rewrite` rewrites
// them from the current output (review the diff before committing it).
//
// Directives (one lode instance per file, database "test"):
//
//	insert coll=C                  one extended-JSON document per input line
//	generate coll=C fixture=F n=N  N documents of a fixture (see fixtures)
//	index coll=C [unique] [sparse] the input is the key pattern; prints its name
//	count coll=C                   the input is a filter; prints the count command's n
//	run                            the input is a command; prints ok or the error
//	set-parameter name=P value=V   setParameter on admin (V is JSON)
//	explain [verbosity=V] [stage=S] [show=(...)]
//	                               the input is a command; prints its winning plan
//
// explain prints the winning plan's stage tree, one stage per line indented
// by depth, scans followed by their index name; stage=S prints only the
// first stage S instead. verbosity is queryPlanner, executionStats,
// allPlansExecution or all (the default: the three must agree). show adds:
//
//	bounds     a scan's indexBounds, one field per line
//	multikey   a scan's isMultiKey and multiKeyPaths
//	direction  a scan's direction
//	filter     the filter of FETCH and COLLSCAN
//	transform  a projection's transformBy
//	sort       SORT's sortPattern and limitAmount
//	returned   executionStats.nReturned
//	examined   executionStats.totalKeysExamined and totalDocsExamined
//	stats      returned and examined
//	write      the write stage's nMatched, nWouldModify, nWouldUpsert, nWouldDelete
//	explode    queryPlanner.maxScansToExplodeReached
//	rejected   the rejected plans' stage trees
//
// Every explain reply is also checked for mongod's shape: serverInfo and
// command present, executionStats present unless the verbosity is
// queryPlanner.
//
// Files that set a process-wide parameter (internalQueryMaxScansToExplode
// and the other query knobs are package variables of the engine) run one
// at a time; the others in parallel.
func TestPlanGolden(t *testing.T) {
	// Not parallel itself: its serial files must not overlap other tests.
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if !setsParameter(t, path) {
			t.Parallel()
		}
		_, db := testenv.Open(t)
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			return runDirective(t, db, td)
		})
	})
}

// setsParameter reports whether the file at path uses set-parameter.
func setsParameter(t *testing.T, path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "set-parameter") {
			return true
		}
	}
	return false
}

func runDirective(t *testing.T, db *mongo.Database, td *datadriven.TestData) string {
	coll := func() *mongo.Collection {
		var name string
		td.ScanArgs(t, "coll", &name)
		return db.Collection(name)
	}
	switch td.Cmd {
	case "insert":
		var docs []any
		for _, line := range strings.Split(strings.TrimSpace(td.Input), "\n") {
			docs = append(docs, parseJSON(t, td, line))
		}
		if _, err := coll().InsertMany(testenv.Ctx(t), docs); err != nil {
			td.Fatalf(t, "insert: %v", err)
		}
		return fmt.Sprintf("inserted %d", len(docs))
	case "generate":
		var fixture string
		var n int
		td.ScanArgs(t, "fixture", &fixture)
		td.ScanArgs(t, "n", &n)
		gen, ok := fixtures[fixture]
		if !ok {
			td.Fatalf(t, "unknown fixture %q", fixture)
		}
		testenv.InsertBatches(t, coll(), n, gen(n))
		return fmt.Sprintf("inserted %d", n)
	case "index":
		opts := options.Index()
		if td.HasArg("unique") {
			opts.SetUnique(true)
		}
		if td.HasArg("sparse") {
			opts.SetSparse(true)
		}
		name, err := coll().Indexes().CreateOne(testenv.Ctx(t), mongo.IndexModel{Keys: parseJSON(t, td, td.Input), Options: opts})
		if err != nil {
			td.Fatalf(t, "createIndexes: %v", err)
		}
		return name
	case "count":
		return fmt.Sprintf("n=%d", testenv.Count(t, coll(), parseJSON(t, td, td.Input)))
	case "run":
		_, err := testenv.RunCmd(t, db, parseJSON(t, td, td.Input))
		if err != nil {
			ce := testenv.CmdErr(t, err)
			return fmt.Sprintf("error %d %s: %s", ce.Code, ce.Name, ce.Message)
		}
		return "ok"
	case "set-parameter":
		var name, value string
		td.ScanArgs(t, "name", &name)
		td.ScanArgs(t, "value", &value)
		var v bson.D
		if err := bson.UnmarshalExtJSON([]byte(`{"v": `+value+`}`), false, &v); err != nil {
			td.Fatalf(t, "value %s: %v", value, err)
		}
		testenv.SetParameter(t, db, name, v[0].Value)
		return "ok"
	case "explain":
		return explainDirective(t, db, td)
	}
	td.Fatalf(t, "unknown directive %q", td.Cmd)
	return ""
}

func parseJSON(t *testing.T, td *datadriven.TestData, s string) bson.D {
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(s), false, &d); err != nil {
		td.Fatalf(t, "parsing %q: %v", s, err)
	}
	return d
}

func explainDirective(t *testing.T, db *mongo.Database, td *datadriven.TestData) string {
	cmd := parseJSON(t, td, td.Input)
	verbosity := "all"
	td.MaybeScanArgs(t, "verbosity", &verbosity)
	var show []string
	if a, ok := td.Arg("show"); ok {
		show = a.Vals
	}
	stage := ""
	td.MaybeScanArgs(t, "stage", &stage)
	verbosities := []string{verbosity}
	if verbosity == "all" {
		verbosities = []string{"queryPlanner", "executionStats", "allPlansExecution"}
	}
	var out string
	for _, v := range verbosities {
		res := testenv.Explain(t, db, cmd, v)
		if res.Lookup("serverInfo", "version").StringValue() == "" || res.Lookup("command").Type != bson.TypeEmbeddedDocument {
			td.Fatalf(t, "%s: reply without serverInfo or command: %v", v, res)
		}
		if _, err := res.LookupErr("executionStats"); (err == nil) != (v != "queryPlanner") {
			td.Fatalf(t, "%s: executionStats present=%v", v, err == nil)
		}
		// The plan part must be the same at every verbosity; figures
		// need executionStats.
		s := printPlan(t, td, res, stage, show, v == "queryPlanner")
		if out != "" && s != out {
			if !slices.ContainsFunc(show, statsShow) {
				td.Fatalf(t, "%s prints\n%s\nbut the verbosity before\n%s", v, s, out)
			}
		}
		out = s
	}
	return out
}

func statsShow(s string) bool {
	return s == "stats" || s == "returned" || s == "examined" || s == "write"
}

// printPlan renders the winning plan (or its first stage named stage)
// with the attributes show asks for.
func printPlan(t *testing.T, td *datadriven.TestData, res bson.Raw, stage string, show []string, plannerOnly bool) string {
	has := func(s string) bool { return slices.Contains(show, s) }
	var b strings.Builder
	wp := testenv.WinningPlan(res)
	if stage != "" {
		st := testenv.FindStage(wp, stage)
		if st == nil {
			td.Fatalf(t, "no %s in %v", stage, wp)
		}
		printStage(&b, st, 0, has)
	} else {
		printTree(&b, wp, has)
	}
	if has("explode") {
		fmt.Fprintf(&b, "maxScansToExplodeReached: %v\n", res.Lookup("queryPlanner", "maxScansToExplodeReached").Boolean())
	}
	if has("rejected") {
		vals, _ := res.Lookup("queryPlanner", "rejectedPlans").Array().Values()
		for _, v := range vals {
			b.WriteString("rejected:\n")
			testenv.WalkStages(v.Document(), func(st bson.Raw, depth int) { printStage(&b, st, depth+1, has) })
		}
	}
	if plannerOnly {
		return b.String()
	}
	es := res.Lookup("executionStats").Document()
	var figures []string
	if has("stats") || has("returned") {
		figures = append(figures, fmt.Sprintf("nReturned=%d", es.Lookup("nReturned").AsInt64()))
	}
	if has("stats") || has("examined") {
		figures = append(figures, fmt.Sprintf("keysExamined=%d docsExamined=%d",
			es.Lookup("totalKeysExamined").AsInt64(), es.Lookup("totalDocsExamined").AsInt64()))
	}
	if len(figures) > 0 {
		b.WriteString(strings.Join(figures, " ") + "\n")
	}
	if has("write") {
		ws := es.Lookup("executionStages").Document()
		var fs []string
		for _, f := range []string{"nMatched", "nWouldModify", "nWouldUpsert", "nWouldDelete"} {
			if v, err := ws.LookupErr(f); err == nil {
				fs = append(fs, fmt.Sprintf("%s=%d", f, v.AsInt64()))
			}
		}
		fmt.Fprintf(&b, "%s: %s\n", ws.Lookup("stage").StringValue(), strings.Join(fs, " "))
	}
	return b.String()
}

func printTree(b *strings.Builder, plan bson.Raw, has func(string) bool) {
	testenv.WalkStages(plan, func(st bson.Raw, depth int) { printStage(b, st, depth, has) })
}

// printStage writes one stage: its name, the index of a scan, and the
// attributes has selects.
func printStage(b *strings.Builder, st bson.Raw, depth int, has func(string) bool) {
	ind := strings.Repeat("  ", depth)
	b.WriteString(ind + st.Lookup("stage").StringValue())
	if ix, ok := st.Lookup("indexName").StringValueOK(); ok {
		b.WriteString(" " + ix)
	}
	if d, ok := st.Lookup("direction").StringValueOK(); ok && has("direction") {
		b.WriteString(" " + d)
	}
	if f, err := st.LookupErr("filter"); err == nil && has("filter") {
		b.WriteString(" filter=" + relaxed(f))
	}
	if f, err := st.LookupErr("transformBy"); err == nil && has("transform") {
		b.WriteString(" transformBy=" + relaxed(f))
	}
	if has("sort") {
		if f, err := st.LookupErr("sortPattern"); err == nil {
			b.WriteString(" sortPattern=" + relaxed(f))
		}
		if f, err := st.LookupErr("limitAmount"); err == nil {
			fmt.Fprintf(b, " limitAmount=%d", f.AsInt64())
		}
	}
	b.WriteString("\n")
	if has("multikey") {
		if v, err := st.LookupErr("isMultiKey"); err == nil {
			fmt.Fprintf(b, "%s  isMultiKey: %v\n", ind, v.Boolean())
		}
		if v, err := st.LookupErr("multiKeyPaths"); err == nil {
			fmt.Fprintf(b, "%s  multiKeyPaths: %s\n", ind, relaxed(v))
		}
	}
	if ib, err := st.LookupErr("indexBounds"); err == nil && has("bounds") {
		els, _ := ib.Document().Elements()
		for _, el := range els {
			v := el.Value()
			if arr, ok := v.ArrayOK(); ok {
				vals, _ := arr.Values()
				var ss []string
				for _, x := range vals {
					ss = append(ss, x.StringValue())
				}
				fmt.Fprintf(b, "%s  %s: %s\n", ind, el.Key(), strings.Join(ss, ", "))
			} else {
				fmt.Fprintf(b, "%s  %s: %s\n", ind, el.Key(), relaxed(v))
			}
		}
	}
}

// relaxed renders a value as relaxed extended JSON, with a space after
// each colon and comma as in mongosh's output.
func relaxed(v bson.RawValue) string {
	var out []byte
	var err error
	if v.Type == bson.TypeEmbeddedDocument {
		out, err = bson.MarshalExtJSON(v.Document(), false, false)
	} else {
		out, err = bson.MarshalExtJSON(bson.D{{Key: "v", Value: v}}, false, false)
		out = []byte(strings.TrimSuffix(strings.TrimPrefix(string(out), `{"v":`), "}"))
	}
	if err != nil {
		return v.String()
	}
	var b strings.Builder
	inString, escaped := false, false
	for _, c := range string(out) {
		b.WriteRune(c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// fixtures generate the documents of the generate directive: each takes
// the number of documents and returns document i.
var fixtures = map[string]func(n int) func(i int) any{
	// a-mod-10: {a: i%10, b: i, s: 100-i}.
	"a-mod-10": func(int) func(int) any {
		return func(i int) any {
			return bson.D{{Key: "a", Value: i % 10}, {Key: "b", Value: i}, {Key: "s", Value: 100 - i}}
		}
	},
	// recent: the most-recent-in-categories pattern, {cat: i*7919 % 100,
	// ts: i}: every category holds one document in a hundred.
	"recent": func(int) func(int) any {
		return func(i int) any { return bson.D{{Key: "cat", Value: (i * 7919) % 100}, {Key: "ts", Value: i}} }
	},
	// queue: jobs of the queue pattern, one in three already started
	// (startTime set), created one second apart in reverse order, priority
	// i%5.
	"queue": func(n int) func(int) any {
		base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		return func(i int) any {
			var start any
			if i%3 == 0 {
				start = base
			}
			return bson.D{{Key: "startTime", Value: start}, {Key: "endTime", Value: nil},
				{Key: "createdOn", Value: base.Add(time.Duration(n-i) * time.Second)}, {Key: "priority", Value: i % 5},
				{Key: "payload", Value: bson.D{{Key: "type", Value: "convertImage"}}}}
		}
	},
	// bucket-ids: the bucket pattern's string _ids "<owner>_<n>", owners
	// 0 to 499.
	"bucket-ids": func(int) func(int) any {
		return func(i int) any { return bson.D{{Key: "_id", Value: fmt.Sprintf("%d_%d", i%500, i)}} }
	},
	// metadata: testenv.MetadataImage, twelve key/value pairs per image.
	"metadata": func(int) func(int) any { return func(i int) any { return testenv.MetadataImage(i) } },
	// shuffled-ts: {_id: i, cat: i%10, ts: a fixed permutation of 0..n-1,
	// x: i%7}, so an index on ts orders record ids randomly.
	"shuffled-ts": func(n int) func(int) any {
		perm := rand.New(rand.NewPCG(12, 1)).Perm(n)
		return func(i int) any {
			return bson.D{{Key: "_id", Value: int32(i)}, {Key: "cat", Value: int32(i % 10)}, {Key: "ts", Value: int32(perm[i])}, {Key: "x", Value: int32(i % 7)}}
		}
	},
	// a-with-gaps: {a: i%10, b: i}, except that one document in a hundred
	// lacks a and one holds a: null.
	"a-with-gaps": func(int) func(int) any {
		return func(i int) any {
			switch {
			case i%100 == 7:
				return bson.D{{Key: "b", Value: i}}
			case i%100 == 8:
				return bson.D{{Key: "a", Value: nil}, {Key: "b", Value: i}}
			}
			return bson.D{{Key: "a", Value: i % 10}, {Key: "b", Value: i}}
		}
	},
}
