package crud_test

import (
	"fmt"
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// TestMaxTimeMSExpires runs a find that scans many documents under a 1 ms
// limit: MongoDB answers 50 MaxTimeMSExpired "operation exceeded time
// limit", and the same query without the limit succeeds.
func TestMaxTimeMSExpires(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("slow")
	docs := make([]any, 0, 1000)
	for i := 0; i < 60000; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "s", Value: fmt.Sprintf("value-%d", i)}})
		if len(docs) == cap(docs) {
			if _, err := coll.InsertMany(c, docs); err != nil {
				t.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	// No document matches, so the whole collection is scanned.
	filter := bson.D{{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{
		bson.D{{Key: "$concat", Value: bson.A{"$s", "-", "$s"}}}, "none"}}}}}
	err := d.RunCommand(c, bson.D{{Key: "find", Value: "slow"}, {Key: "filter", Value: filter}, {Key: "maxTimeMS", Value: 1}}).Err()
	ce := testenv.WantCmdError(t, err, 50, "MaxTimeMSExpired")
	if ce.Message != "operation exceeded time limit" {
		t.Fatalf("message %q", ce.Message)
	}
	r, err := d.RunCommand(c, bson.D{{Key: "find", Value: "slow"}, {Key: "filter", Value: filter}, {Key: "maxTimeMS", Value: 60000}}).Raw()
	testenv.WantOK(t, r, err)
	if len(testenv.FirstBatch(t, r)) != 0 {
		t.Fatal("no document matches")
	}
	// maxTimeMS must be an integral number in [0, 2^31-1] (mongod's
	// parseMaxTimeMS).
	for _, tc := range []struct {
		v    any
		want string
	}{
		{"x", "maxTimeMS must be a number"},
		{43.15, "maxTimeMS has non-integral value"},
		{-1, "-1 value for maxTimeMS is out of range"},
		{int64(math.MaxInt64), "9223372036854775807 value for maxTimeMS is out of range"},
		{int64(math.MaxInt32) + 1, "2147483648 value for maxTimeMS is out of range"},
	} {
		err = d.RunCommand(c, bson.D{{Key: "find", Value: "slow"}, {Key: "maxTimeMS", Value: tc.v}}).Err()
		if ce := testenv.WantCmdError(t, err, 2, "BadValue"); ce.Message != tc.want {
			t.Fatalf("maxTimeMS %v: %q, want %q", tc.v, ce.Message, tc.want)
		}
	}
}
