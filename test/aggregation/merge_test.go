package aggregation_test

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// TestMergeWhenMatchedPipeline runs MongoDB's $merge examples with a
// pipeline-style whenMatched: $$new is the source document, let variables
// are bound per document, and the errors of misuse.
func TestMergeWhenMatchedPipeline(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	votes := d.Collection("votes")
	day := func(n int) time.Time { return time.Date(2019, 5, n, 0, 0, 0, 0, time.UTC) }
	if _, err := votes.InsertMany(c, []any{
		bson.D{{Key: "date", Value: day(6)}, {Key: "thumbsup", Value: 10}, {Key: "thumbsdown", Value: 2}},
		bson.D{{Key: "date", Value: day(7)}, {Key: "thumbsup", Value: 14}, {Key: "thumbsdown", Value: 10}},
	}); err != nil {
		t.Fatal(err)
	}
	totals := d.Collection("monthlytotals")
	if _, err := totals.InsertOne(c, bson.D{{Key: "_id", Value: "2019-05"}, {Key: "thumbsup", Value: 26}, {Key: "thumbsdown", Value: 31}}); err != nil {
		t.Fatal(err)
	}
	pipeline := bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "date", Value: bson.D{{Key: "$gte", Value: day(7)}, {Key: "$lt", Value: day(8)}}}}}},
		bson.D{{Key: "$project", Value: bson.D{
			{Key: "_id", Value: bson.D{{Key: "$dateToString", Value: bson.D{{Key: "format", Value: "%Y-%m"}, {Key: "date", Value: "$date"}}}}},
			{Key: "thumbsup", Value: 1}, {Key: "thumbsdown", Value: 1}}}},
		bson.D{{Key: "$merge", Value: bson.D{{Key: "into", Value: "monthlytotals"}, {Key: "on", Value: "_id"},
			{Key: "whenMatched", Value: bson.A{bson.D{{Key: "$addFields", Value: bson.D{
				{Key: "thumbsup", Value: bson.D{{Key: "$add", Value: bson.A{"$thumbsup", "$$new.thumbsup"}}}},
				{Key: "thumbsdown", Value: bson.D{{Key: "$add", Value: bson.A{"$thumbsdown", "$$new.thumbsdown"}}}},
			}}}}},
			{Key: "whenNotMatched", Value: "insert"}}}},
	}
	cur, err := votes.Aggregate(c, pipeline)
	if err != nil {
		t.Fatal(err)
	}
	cur.Close(c)
	got := testenv.FindDoc(t, totals, "2019-05")
	if got["thumbsup"] != int32(40) || got["thumbsdown"] != int32(41) {
		t.Fatalf("monthlytotals = %v, want thumbsup 40, thumbsdown 41", got)
	}

	// let variables (evaluated per source document) reach the pipeline.
	cur, err = votes.Aggregate(c, bson.A{
		bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: "2019-05"}, {Key: "up", Value: "$thumbsup"}}}},
		bson.D{{Key: "$limit", Value: 1}},
		bson.D{{Key: "$merge", Value: bson.D{{Key: "into", Value: "monthlytotals"},
			{Key: "let", Value: bson.D{{Key: "year", Value: "2019"}, {Key: "up", Value: "$up"}}},
			{Key: "whenMatched", Value: bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "salesYear", Value: "$$year"}, {Key: "lastUp", Value: "$$up"}}}}}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	cur.Close(c)
	got = testenv.FindDoc(t, totals, "2019-05")
	if got["salesYear"] != "2019" || got["lastUp"] != int32(10) || got["thumbsup"] != int32(40) {
		t.Fatalf("after let merge: %v", got)
	}

	for _, tc := range []struct {
		name  string
		merge bson.D
		code  int32
	}{
		{"let with merge mode", bson.D{{Key: "into", Value: "monthlytotals"}, {Key: "let", Value: bson.D{{Key: "x", Value: 1}}}, {Key: "whenMatched", Value: "merge"}}, 51199},
		{"new redefined", bson.D{{Key: "into", Value: "monthlytotals"}, {Key: "let", Value: bson.D{{Key: "new", Value: "$x"}}}, {Key: "whenMatched", Value: bson.A{}}}, 51273},
		{"stage not allowed", bson.D{{Key: "into", Value: "monthlytotals"}, {Key: "whenMatched", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{}}}}}}, 72},
	} {
		_, err := votes.Aggregate(c, bson.A{bson.D{{Key: "$merge", Value: tc.merge}}})
		if ce := testenv.CmdErr(t, err); ce.Code != tc.code {
			t.Errorf("%s: %d %q, want %d", tc.name, ce.Code, ce.Message, tc.code)
		}
	}
}

// TestMergeFailDuplicateKeyInfo checks that $merge with whenMatched
// "fail" reports DuplicateKey with keyPattern and keyValue, as mongod 5.1+
// does, and that $out and $merge refuse readConcern linearizable
// (InvalidOptions).
func TestMergeFailDuplicateKeyInfo(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	if _, err := d.Collection("tgt").InsertOne(c, bson.D{{Key: "_id", Value: 2}, {Key: "x", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	_, err := testenv.RunCmd(t, d, bson.D{{Key: "aggregate", Value: 1}, {Key: "pipeline", Value: bson.A{
		bson.D{{Key: "$documents", Value: bson.A{bson.D{{Key: "_id", Value: 2}, {Key: "x", Value: 1}}}}},
		bson.D{{Key: "$merge", Value: bson.D{{Key: "into", Value: "tgt"}, {Key: "whenMatched", Value: "fail"}}}},
	}}, {Key: "cursor", Value: bson.D{}}})
	ce := testenv.WantCmdError(t, err, 11000, "DuplicateKey")
	if got := ce.Raw.Lookup("keyPattern").String(); got != `{"_id": {"$numberInt":"1"}}` {
		t.Fatalf("keyPattern %s in %v", got, ce.Raw)
	}
	if got := ce.Raw.Lookup("keyValue").String(); got != `{"_id": {"$numberInt":"2"}}` {
		t.Fatalf("keyValue %s in %v", got, ce.Raw)
	}
	for _, st := range []string{"$out", "$merge"} {
		_, err = testenv.RunCmd(t, d, bson.D{{Key: "aggregate", Value: "tgt"}, {Key: "pipeline", Value: bson.A{
			bson.D{{Key: st, Value: "other"}},
		}}, {Key: "cursor", Value: bson.D{}}, {Key: "readConcern", Value: bson.D{{Key: "level", Value: "linearizable"}}}})
		testenv.WantCmdError(t, err, 72, "InvalidOptions")
	}
}
