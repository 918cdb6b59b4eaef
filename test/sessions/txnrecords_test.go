package sessions_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// txnRecords returns config.transactions.
func txnRecords(t *testing.T, ctx context.Context, c *mongo.Client) []bson.Raw {
	t.Helper()
	cur, err := c.Database("config").Collection("transactions").Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var out []bson.Raw
	if err := cur.All(ctx, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTransactionsRecords: a retryable write and a committed transaction
// leave their session's record in config.transactions, in mongod's shape
// ({_id: {id}, txnNum, lastWriteDate, state for a transaction}), one per
// session whatever the number of writes; endSessions removes it.
func TestTransactionsRecords(t *testing.T) {
	t.Parallel()
	db, _ := testenv.Open(t)
	ctx := testenv.Ctx(t)
	c := db.Client()
	coll := c.Database("test").Collection("records")
	w, err := c.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer w.EndSession(ctx)
	wctx := mongo.NewSessionContext(ctx, w)
	for i := range 5 {
		if _, err := coll.InsertOne(wctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := coll.UpdateOne(wctx, bson.D{{Key: "_id", Value: 0}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	tx, err := c.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.EndSession(ctx)
	if _, err := tx.WithTransaction(ctx, func(ctx context.Context) (any, error) {
		return coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "t"}})
	}); err != nil {
		t.Fatal(err)
	}
	recs := txnRecords(t, ctx, c)
	wid, tid := sessionID(t, w), sessionID(t, tx)
	wr, tr := find(recs, wid), find(recs, tid)
	if wr == nil || tr == nil {
		t.Fatalf("config.transactions lacks the sessions' records: %v", recs)
	}
	n := 0
	for _, r := range recs {
		if _, id := r.Lookup("_id", "id").Binary(); string(id) == string(wid) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("session with 6 retryable writes has %d records, want 1", n)
	}
	if wr.Lookup("txnNum").Int64() != 6 || wr.Lookup("lastWriteDate").Type != bson.TypeDateTime {
		t.Fatalf("retryable write record: %v", wr)
	}
	if _, err := wr.LookupErr("state"); err == nil {
		t.Fatalf("retryable write record has a state: %v", wr)
	}
	if tr.Lookup("state").StringValue() != "committed" || tr.Lookup("txnNum").Int64() != 1 {
		t.Fatalf("transaction record: %v", tr)
	}
	// A filter and a projection apply.
	cur, err := c.Database("config").Collection("transactions").Find(ctx, bson.D{{Key: "state", Value: "committed"}})
	if err != nil {
		t.Fatal(err)
	}
	var committed []bson.Raw
	if err := cur.All(ctx, &committed); err != nil {
		t.Fatal(err)
	}
	if len(committed) != 1 || find(committed, tid) == nil {
		t.Fatalf("{state: committed}: %v", committed)
	}
	// endSessions ends the history of the session.
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "endSessions", Value: bson.A{bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: wid}}}}}}).Err(); err != nil {
		t.Fatal(err)
	}
	recs = txnRecords(t, ctx, c)
	if find(recs, wid) != nil || find(recs, tid) == nil {
		t.Fatalf("after endSessions of the first session: %v", recs)
	}
}
