package engine

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of datadriven test files")

// ddCase is one case of a datadriven file: a command with arguments and
// input lines, and the expected output.
type ddCase struct {
	line     int
	cmd      string
	args     string
	input    []string
	expected []string
}

// parseDD reads cases separated by blank lines:
//
//	command args
//	input line...
//	----
//	expected line...
func parseDD(t *testing.T, path string) []ddCase {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []ddCase
	var cur *ddCase
	inExpected := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil:
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			cmd, args, _ := strings.Cut(line, " ")
			cases = append(cases, ddCase{line: n, cmd: cmd, args: args})
			cur = &cases[len(cases)-1]
			inExpected = false
		case line == "----":
			inExpected = true
		case strings.TrimSpace(line) == "" && inExpected:
			cur = nil
		case strings.TrimSpace(line) == "":
		case inExpected:
			cur.expected = append(cur.expected, line)
		default:
			cur.input = append(cur.input, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

func extDoc(t *testing.T, s string) bsoncore.Document {
	t.Helper()
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(s), false, &d); err != nil {
		t.Fatalf("bad JSON %q: %v", s, err)
	}
	raw, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestPlansDatadriven runs testdata/*.txt: each file builds a collection
// (docs, index, dropindex) and checks query plans with their key and
// document counts (explain).
func TestPlansDatadriven(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			e := openTest(t, "")
			cases := parseDD(t, path)
			for i := range cases {
				c := &cases[i]
				got := runDD(t, e, c)
				if *rewrite {
					c.expected = got
					continue
				}
				if strings.Join(got, "\n") != strings.Join(c.expected, "\n") {
					t.Errorf("%s:%d: %s %s\n got:\n%s\nwant:\n%s", path, c.line, c.cmd, c.args, strings.Join(got, "\n"), strings.Join(c.expected, "\n"))
				}
			}
			if *rewrite {
				writeDD(t, path, cases)
			}
		})
	}
}

func writeDD(t *testing.T, path string, cases []ddCase) {
	var sb strings.Builder
	for _, c := range cases {
		sb.WriteString(strings.TrimSpace(c.cmd + " " + c.args))
		sb.WriteByte('\n')
		for _, l := range c.input {
			sb.WriteString(l + "\n")
		}
		sb.WriteString("----\n")
		for _, l := range c.expected {
			sb.WriteString(l + "\n")
		}
		sb.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runDD runs one case and returns its output lines.
func runDD(t *testing.T, e *Engine, c *ddCase) []string {
	ctx := context.Background()
	switch c.cmd {
	case "docs":
		var docs []bsoncore.Document
		for _, l := range c.input {
			docs = append(docs, extDoc(t, l))
		}
		res, err := e.Insert(ctx, "db", "c", docs, WriteOptions{Ordered: true})
		if err != nil {
			return []string{"error: " + err.Error()}
		}
		return []string{fmt.Sprintf("inserted %d", res.N)}
	case "index":
		spec := IndexSpec{Key: extDoc(t, c.input[0])}
		for _, o := range strings.Fields(c.args) {
			switch o {
			case "unique":
				spec.Unique = true
			case "sparse":
				spec.Sparse = true
			}
		}
		if len(c.input) > 1 {
			spec.PartialFilterExpression = extDoc(t, c.input[1])
		}
		if _, err := e.CreateIndex("db", "c", spec); err != nil {
			return []string{"error: " + err.Error()}
		}
		return []string{"ok"}
	case "dropindex":
		if err := e.DropIndex("db", "c", strings.TrimSpace(c.args)); err != nil {
			return []string{"error: " + err.Error()}
		}
		return []string{"ok"}
	case "find", "count", "distinct":
		spec := ExplainSpec{Verbosity: VerbosityExecutionStats}
		switch c.cmd {
		case "count":
			spec.Kind = ExplainCountOp
		case "distinct":
			spec.Kind = ExplainDistinctOp
		}
		for _, l := range c.input {
			k, v, _ := strings.Cut(l, ":")
			v = strings.TrimSpace(v)
			switch k {
			case "filter":
				spec.Find.Filter = extDoc(t, v)
			case "sort":
				spec.Find.Sort = extDoc(t, v)
			case "projection":
				spec.Find.Projection = extDoc(t, v)
			case "hint":
				if strings.HasPrefix(v, "{") {
					d := extDoc(t, v)
					spec.Find.Hint = bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: d}
				} else {
					spec.Find.Hint = bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, v)}
				}
			case "limit":
				fmt.Sscan(v, &spec.Find.Limit)
			case "skip":
				fmt.Sscan(v, &spec.Find.Skip)
			case "key":
				spec.Key = v
			}
		}
		out, err := e.Explain(ctx, "db", "c", spec)
		if err != nil {
			return []string{"error: " + err.Error()}
		}
		return summarize(out)
	}
	t.Fatalf("line %d: unknown command %q", c.line, c.cmd)
	return nil
}

// summarize renders the winning plan as "STAGE > STAGE index" with bounds
// and the execution counts.
func summarize(out bsoncore.Document) []string {
	wp := out.Lookup("queryPlanner", "winningPlan").Document()
	var stages, bounds []string
	var walk func(d bsoncore.Document, depth int)
	walk = func(d bsoncore.Document, depth int) {
		s := d.Lookup("stage").StringValue()
		if n, ok := d.Lookup("indexName").StringValueOK(); ok {
			s += " " + n
			if dir, ok := d.Lookup("direction").StringValueOK(); ok && dir == "backward" {
				s += " backward"
			}
		}
		stages = append(stages, s)
		if b, err := d.LookupErr("indexBounds"); err == nil && depth < 3 && len(bounds) == 0 {
			if sk, err := b.Document().LookupErr("startKey"); err == nil {
				// COUNT_SCAN: one key range.
				open, end := "(", ")"
				if b.Document().Lookup("startKeyInclusive").Boolean() {
					open = "["
				}
				if b.Document().Lookup("endKeyInclusive").Boolean() {
					end = "]"
				}
				bounds = append(bounds, "  "+open+sk.String()+", "+b.Document().Lookup("endKey").String()+end)
				return
			}
			elems, _ := b.Document().Elements()
			for _, e := range elems {
				vals, _ := e.Value().Array().Values()
				var ivs []string
				for _, v := range vals {
					ivs = append(ivs, v.StringValue())
				}
				bounds = append(bounds, fmt.Sprintf("  %s: %s", e.Key(), strings.Join(ivs, " ")))
			}
		}
		if in, err := d.LookupErr("inputStage"); err == nil {
			walk(in.Document(), depth)
		}
		if ins, err := d.LookupErr("inputStages"); err == nil {
			vals, _ := ins.Array().Values()
			stages = append(stages, fmt.Sprintf("[%d scans]", len(vals)))
			walk(vals[0].Document(), depth+1)
		}
	}
	walk(wp, 0)
	lines := []string{"plan: " + strings.Join(stages, " > ")}
	if len(bounds) > 0 {
		lines = append(lines, "bounds:")
		lines = append(lines, bounds...)
	}
	es := out.Lookup("executionStats").Document()
	rej, _ := out.Lookup("queryPlanner", "rejectedPlans").Array().Values()
	n := fmt.Sprintf("n=%d", es.Lookup("nReturned").AsInt64())
	if c, err := es.LookupErr("executionStages", "nCounted"); err == nil {
		n = fmt.Sprintf("counted=%d", c.AsInt64())
	}
	lines = append(lines, fmt.Sprintf("%s keys=%d docs=%d rejected=%d",
		n, es.Lookup("totalKeysExamined").AsInt64(),
		es.Lookup("totalDocsExamined").AsInt64(), len(rej)))
	return lines
}
