package crud_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// TestWriteBatchLimit sends write commands with 100,001 statements, one
// over MongoDB's maxWriteBatchSize: each fails whole with 16 InvalidLength,
// and 100,000 statements are accepted.
func TestWriteBatchLimit(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	stmts := func(n int, f func(i int) bson.D) bson.A {
		a := make(bson.A, n)
		for i := range a {
			a[i] = f(i)
		}
		return a
	}
	doc := func(i int) bson.D { return bson.D{{Key: "_id", Value: i}} }
	del := func(i int) bson.D { return bson.D{{Key: "q", Value: doc(i)}, {Key: "limit", Value: 1}} }
	upd := func(i int) bson.D {
		return bson.D{{Key: "q", Value: doc(i)}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}}}
	}
	for _, cmd := range []bson.D{
		{{Key: "insert", Value: "batch"}, {Key: "documents", Value: stmts(100001, doc)}},
		{{Key: "update", Value: "batch"}, {Key: "updates", Value: stmts(100001, upd)}},
		{{Key: "delete", Value: "batch"}, {Key: "deletes", Value: stmts(100001, del)}},
	} {
		err := d.RunCommand(c, cmd).Err()
		ce := testenv.WantCmdError(t, err, 16, "InvalidLength")
		if ce.Message != "Write batch sizes must be between 1 and 100000. Got 100001 operations." {
			t.Fatalf("%s: %q", cmd[0].Key, ce.Message)
		}
	}
	if n, err := d.Collection("batch").CountDocuments(c, bson.D{}); err != nil || n != 0 {
		t.Fatalf("a refused batch must write nothing: %d %v", n, err)
	}
	r, err := d.RunCommand(c, bson.D{{Key: "insert", Value: "batch"}, {Key: "documents", Value: stmts(100000, doc)}}).Raw()
	testenv.WantOK(t, r, err)
	testenv.WantInt32(t, r, "n", 100000)
}
