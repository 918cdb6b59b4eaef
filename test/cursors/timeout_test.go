package cursors_test

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestCursorTimeoutMillis: setParameter cursorTimeoutMillis takes effect on
// open cursors, so a getMore after the timeout fails with CursorNotFound
// (43), while a cursor opened with noCursorTimeout survives it.
func TestCursorTimeoutMillis(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("items")
	var docs []any
	for i := 0; i < 10; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}})
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	admin := db.Client().Database("admin")
	var old bson.Raw
	if err := admin.RunCommand(c, bson.D{{Key: "setParameter", Value: 1}, {Key: "cursorTimeoutMillis", Value: 300}}).Decode(&old); err != nil {
		t.Fatal(err)
	}
	if v := old.Lookup("was").AsInt64(); v != 600000 {
		t.Errorf("cursorTimeoutMillis was %d, want the 10-minute default", v)
	}
	plain, err := coll.Find(c, bson.D{}, options.Find().SetBatchSize(2))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close(c)
	kept, err := coll.Find(c, bson.D{}, options.Find().SetBatchSize(2).SetNoCursorTimeout(true))
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close(c)
	time.Sleep(time.Second)
	// Drain the first batch of each, then getMore.
	for i := 0; i < 3; i++ {
		plain.Next(c)
	}
	if plain.Err() == nil {
		t.Fatal("getMore on a timed-out cursor succeeded")
	}
	if ce := testenv.CmdErr(t, plain.Err()); ce.Code != 43 || ce.Name != "CursorNotFound" {
		t.Errorf("timed-out cursor: %d %s %s", ce.Code, ce.Name, ce.Message)
	}
	n := 0
	for kept.Next(c) {
		n++
	}
	if err := kept.Err(); err != nil || n != 10 {
		t.Errorf("noCursorTimeout cursor: %d docs, err %v", n, err)
	}
}
