package cursors_test

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// TestKillCursorsKillsOpenCursor opens a cursor through find with a small
// batch and kills it: cursorsKilled names it and a getMore then fails with
// CursorNotFound.
func TestKillCursorsKillsOpenCursor(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	for i := 0; i < 5; i++ {
		if _, err := d.Collection("kc").InsertOne(c, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := d.RunCommand(c, bson.D{{Key: "find", Value: "kc"}, {Key: "batchSize", Value: 2}}).Raw()
	testenv.WantOK(t, r, err)
	id := testenv.Field(t, r, "cursor.id").Int64()
	if id == 0 {
		t.Fatal("cursor must stay open")
	}
	r, err = d.RunCommand(c, bson.D{{Key: "killCursors", Value: "kc"}, {Key: "cursors", Value: bson.A{id}}}).Raw()
	testenv.WantOK(t, r, err)
	killed, _ := testenv.Field(t, r, "cursorsKilled").Array().Values()
	if len(killed) != 1 || killed[0].Int64() != id {
		t.Fatalf("cursorsKilled: %v", r)
	}
	err = d.RunCommand(c, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "kc"}}).Err()
	ce := testenv.WantCmdError(t, err, 43, "CursorNotFound")
	if ce.Message != fmt.Sprintf("cursor id %d not found", id) {
		t.Fatalf("getMore after kill: %q", ce.Message)
	}
}
