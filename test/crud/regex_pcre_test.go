package crud_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// TestRegexPCREFeatures runs patterns that mongod's PCRE accepts and RE2
// does not (backreferences, lookahead, lookbehind, counted repetition
// above 1000), in a filter's $regex and in $regexFind/$regexMatch, with
// the options applied as PCRE applies them.
func TestRegexPCREFeatures(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("re")
	docs := []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "s", Value: "xaay"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "s", Value: "xAby"}},
		bson.D{{Key: "_id", Value: 3}, {Key: "s", Value: "foobar"}},
		bson.D{{Key: "_id", Value: 4}, {Key: "s", Value: "foobaz"}},
		bson.D{{Key: "_id", Value: 5}, {Key: "s", Value: "xbar"}},
		bson.D{{Key: "_id", Value: 6}, {Key: "s", Value: strings.Repeat("a", 1001)}},
		bson.D{{Key: "_id", Value: 7}, {Key: "s", Value: strings.Repeat("a", 1000)}},
		bson.D{{Key: "_id", Value: 8}, {Key: "s", Value: "xAay"}},
		bson.D{{Key: "_id", Value: 9}, {Key: "s", Value: "x\naa"}},
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	ids := func(pattern, options string) []int32 {
		t.Helper()
		r, err := d.RunCommand(c, bson.D{{Key: "find", Value: "re"},
			{Key: "filter", Value: bson.D{{Key: "s", Value: bson.D{{Key: "$regex", Value: pattern}, {Key: "$options", Value: options}}}}},
			{Key: "sort", Value: bson.D{{Key: "_id", Value: 1}}}}).Raw()
		testenv.WantOK(t, r, err)
		var out []int32
		for _, doc := range testenv.FirstBatch(t, r) {
			out = append(out, doc.Lookup("_id").Int32())
		}
		return out
	}
	for _, tc := range []struct {
		pattern, options string
		want             []int32
	}{
		{`(a)\1`, "", []int32{1, 6, 7, 9}},
		{`^x(a)\1y$`, "", []int32{1}},
		{`^x(a)\1y$`, "i", []int32{1, 8}},
		{`foo(?=bar)`, "", []int32{3}},
		{`(?<=foo)bar`, "", []int32{3}},
		{`(?<!foo)bar`, "", []int32{5}},
		{`ba(?!r)`, "", []int32{4}},
		{`^a{1001}$`, "", []int32{6}},
		{`^a{1000,}$`, "", []int32{6, 7}},
		{"^ x (a) \\1 y $ # comment", "x", []int32{1}},
		// m and s mean what they mean to PCRE on the backtracking engine.
		{`^(a)\1$`, "", nil},
		{`^(a)\1$`, "m", []int32{9}},
		{`x.(a)\1`, "", nil},
		{`x.(a)\1`, "s", []int32{9}},
		{`x.(a)\1`, "su", []int32{9}},
	} {
		got := ids(tc.pattern, tc.options)
		if len(got) != len(tc.want) {
			t.Fatalf("/%s/%s: ids %v, want %v", tc.pattern, tc.options, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("/%s/%s: ids %v, want %v", tc.pattern, tc.options, got, tc.want)
			}
		}
	}

	// The same engine behind the aggregation operators.
	r, err := d.RunCommand(c, bson.D{{Key: "aggregate", Value: "re"}, {Key: "cursor", Value: bson.D{}},
		{Key: "pipeline", Value: bson.A{
			bson.D{{Key: "$match", Value: bson.D{{Key: "_id", Value: 1}}}},
			bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0},
				{Key: "f", Value: bson.D{{Key: "$regexFind", Value: bson.D{{Key: "input", Value: "$s"}, {Key: "regex", Value: `(a)\1`}}}}},
				{Key: "all", Value: bson.D{{Key: "$regexFindAll", Value: bson.D{{Key: "input", Value: "abab cdcd"}, {Key: "regex", Value: `(\w\w)\1`}}}}},
				{Key: "m", Value: bson.D{{Key: "$regexMatch", Value: bson.D{{Key: "input", Value: "$s"}, {Key: "regex", Value: `(?<=x)a`}}}}},
			}}},
		}}}).Raw()
	testenv.WantOK(t, r, err)
	got := testenv.FirstBatch(t, r)[0]
	want := bson.D{
		{Key: "f", Value: bson.D{{Key: "match", Value: "aa"}, {Key: "idx", Value: int32(1)}, {Key: "captures", Value: bson.A{"a"}}}},
		{Key: "all", Value: bson.A{
			bson.D{{Key: "match", Value: "abab"}, {Key: "idx", Value: int32(0)}, {Key: "captures", Value: bson.A{"ab"}}},
			bson.D{{Key: "match", Value: "cdcd"}, {Key: "idx", Value: int32(5)}, {Key: "captures", Value: bson.A{"cd"}}},
		}},
		{Key: "m", Value: true},
	}
	wantRaw, _ := bson.Marshal(want)
	if !bytes.Equal(wantRaw, got) {
		t.Fatalf("got %v, want %v", got, bson.Raw(wantRaw))
	}

	// A pattern neither RE2 nor PCRE accepts is still 51091.
	err = d.RunCommand(c, bson.D{{Key: "find", Value: "re"}, {Key: "filter", Value: bson.D{{Key: "s", Value: bson.D{{Key: "$regex", Value: "(a"}}}}}}).Err()
	testenv.WantCmdError(t, err, 51091, "Location51091")
}

// TestRegexCatastrophicBacktracking runs (a+)+$ against a long string
// that does not match. PCRE gives up at its match limit: a filter's
// $regex counts that as no match (mongod's RegexMatchExpression), and
// $regexMatch fails with 51156 naming PCRE's error. Either returns in
// well under a second instead of the many years the full search takes.
func TestRegexCatastrophicBacktracking(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("redos")
	subject := strings.Repeat("a", 64) + "b"
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 1}, {Key: "s", Value: subject}}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r, err := d.RunCommand(c, bson.D{{Key: "find", Value: "redos"},
		{Key: "filter", Value: bson.D{{Key: "s", Value: bson.D{{Key: "$regex", Value: `^(a+)+\1$`}}}}}}).Raw()
	testenv.WantOK(t, r, err)
	if n := len(testenv.FirstBatch(t, r)); n != 0 {
		t.Fatalf("%d documents match", n)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("find took %v", el)
	}

	// Over many documents the operation's maxTimeMS still ends it: each
	// match is bounded, and the deadline is checked between documents.
	many := make([]any, 0, 30)
	for i := 2; i < 32; i++ {
		many = append(many, bson.D{{Key: "_id", Value: i}, {Key: "s", Value: subject}})
	}
	if _, err := coll.InsertMany(c, many); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	err = d.RunCommand(c, bson.D{{Key: "find", Value: "redos"}, {Key: "maxTimeMS", Value: 300},
		{Key: "filter", Value: bson.D{{Key: "s", Value: bson.D{{Key: "$regex", Value: `^(a+)+\1$`}}}}}}).Err()
	testenv.WantCmdError(t, err, 50, "MaxTimeMSExpired")
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("find with maxTimeMS 300 took %v", el)
	}

	start = time.Now()
	err = d.RunCommand(c, bson.D{{Key: "aggregate", Value: "redos"}, {Key: "cursor", Value: bson.D{}},
		{Key: "pipeline", Value: bson.A{bson.D{{Key: "$limit", Value: 1}}, bson.D{{Key: "$project", Value: bson.D{
			{Key: "m", Value: bson.D{{Key: "$regexMatch", Value: bson.D{{Key: "input", Value: "$s"}, {Key: "regex", Value: `^(a+)+\1$`}}}}}}}}}}}).Err()
	ce := testenv.WantCmdError(t, err, 51156, "Location51156")
	if want := "Error occurred while executing the regular expression in $regexMatch. Result code: match limit exceeded"; ce.Message != want {
		t.Fatalf("message %q, want %q", ce.Message, want)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("aggregate took %v", el)
	}
}
