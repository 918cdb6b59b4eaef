package aggregation_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestResultDocumentTooLarge checks that a result document past mongod's
// BSONObjMaxInternalSize (16 MiB + 16 KiB) is refused with 10334
// BSONObjectTooLarge and mongod's message instead of being returned: a
// $group whose $push gathers 20 MB, and a find or $project that copies
// a 9 MB field; the same documents are fine while they stay inside the
// pipeline (a later stage shrinks them), and at 16 MiB exactly.
func TestResultDocumentTooLarge(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("c")
	mb := strings.Repeat("x", 1<<20)
	var docs []any
	for i := 0; i < 20; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "s", Value: mb}})
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	msg := regexp.MustCompile(`^BSONObj size: (\d+) \(0x([0-9A-F]+)\) is invalid\. Size must be between 0 and 16793600\(16MB\) First element: (.*)$`)
	check := func(what string, err error, first string) {
		t.Helper()
		ce := testenv.WantCmdError(t, err, 10334, "BSONObjectTooLarge")
		m := msg.FindStringSubmatch(ce.Message)
		if m == nil || m[3] != first || fmt.Sprintf("%X", atoi(m[1])) != m[2] {
			t.Fatalf("%s: message %q", what, ce.Message)
		}
	}
	_, err, _ := aggOne(t, d, `[{"$group":{"_id":null,"all":{"$push":"$s"}}}]`, 0)
	check("$group $push of 20 MB", err, "_id: null")
	// Inside the pipeline the large document is fine.
	r, err, _ := aggOne(t, d, `[{"$group":{"_id":null,"all":{"$push":"$s"}}},{"$project":{"n":{"$size":"$all"}}}]`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := testenv.FirstBatch(t, r)[0].Lookup("n").Int32(); n != 20 {
		t.Fatalf("n = %d", n)
	}

	// A 9 MB field copied twice by a projection, from find and aggregate.
	nine := strings.Repeat("y", 9<<20)
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: "big"}, {Key: "s", Value: nine}}); err != nil {
		t.Fatal(err)
	}
	_, err, _ = aggOne(t, d, `[{"$match":{"_id":"big"}},{"$project":{"a":"$s","b":"$s"}}]`, 0)
	check("$project copying 9 MB twice", err, `_id: "big"`)
	cur, err := coll.Find(c, bson.D{{Key: "_id", Value: "big"}}, options.Find().SetProjection(bson.D{{Key: "a", Value: "$s"}, {Key: "b", Value: "$s"}}))
	if err == nil {
		cur.Next(c)
		err = cur.Err()
		cur.Close(c)
	}
	check("find projection copying 9 MB twice", err, `_id: "big"`)
	// Later in a cursor: the first batch is fine, the getMore fails.
	res := d.RunCommand(c, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{0, 1, "big"}}}}}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "a", Value: "$s"}, {Key: "b", Value: "$s"}}}}}},
		{Key: "cursor", Value: bson.D{{Key: "batchSize", Value: 2}}}})
	var first struct {
		Cursor struct {
			ID int64 `bson:"id"`
		} `bson:"cursor"`
	}
	if err := res.Decode(&first); err != nil || first.Cursor.ID == 0 {
		t.Fatalf("first batch: %v", err)
	}
	// No deadline: the driver would send it as maxTimeMS, which getMore
	// refuses on this cursor.
	err = d.RunCommand(context.Background(), bson.D{{Key: "getMore", Value: first.Cursor.ID}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: 100}}).Err()
	check("getMore reaching the 18 MB document", err, `_id: "big"`)

	// Exactly 16 MiB is returned: {_id: 0, a: 8 MiB, b: 8 MiB - 30}.
	r, err, _ = aggOne(t, d, `[{"$match":{"_id":0}},{"$project":{"a":{"$concat":[`+strings.Repeat(`"$s",`, 7)+`"$s"]},"b":{"$concat":[`+strings.Repeat(`"$s",`, 7)+`{"$substrBytes":["$s",0,1048546]}]}}}]`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if raw := testenv.FirstBatch(t, r)[0]; len(raw) != 16<<20 {
		t.Fatalf("the document is %d bytes", len(raw))
	}
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// TestDistinctTooBig checks distinct's 16 MB cap: distinct values whose
// elements add up to 16 MiB - 4 KiB or more fail with 17217 "distinct too
// big, 16mb cap" instead of a reply past the limit; fewer are returned.
func TestDistinctTooBig(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("dist")
	var docs []any
	for i := 0; i < 17; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "s", Value: strings.Repeat(string(rune('a'+i)), 1<<20)}})
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	err := d.RunCommand(c, bson.D{{Key: "distinct", Value: "dist"}, {Key: "key", Value: "s"}}).Err()
	if ce := testenv.WantCmdError(t, err, 17217, "Location17217"); ce.Message != "distinct too big, 16mb cap" {
		t.Fatalf("message %q", ce.Message)
	}
	vals, err := coll.Distinct(c, "s", bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 15}}}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := vals.Values(); len(n) != 15 {
		t.Fatalf("%d values", len(n))
	}
}
