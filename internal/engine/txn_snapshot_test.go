package engine

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// TestTxnSnapshotEngine checks at the engine level that a transaction
// reads the state of its start, that a plain write committed after its
// start conflicts with its write, and that the engine closes cleanly with
// a transaction (and its snapshot) still open.
func TestTxnSnapshotEngine(t *testing.T) {
	e, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	bg := context.Background()
	wo := WriteOptions{Ordered: true}
	if _, err := e.Insert(bg, "db", "c", []bsoncore.Document{D(t, bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: 1}})}, wo); err != nil {
		t.Fatal(err)
	}
	tx, err := e.BeginTxn()
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithTxn(bg, tx)
	if _, err := e.Insert(bg, "db", "c", []bsoncore.Document{D(t, bson.D{{Key: "_id", Value: 2}})}, wo); err != nil {
		t.Fatal(err)
	}
	upd := []UpdateSpec{{Filter: D(t, bson.D{{Key: "_id", Value: 1}}), Update: val(t, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: 2}}}})}}
	if _, err := e.Update(bg, "db", "c", upd, wo); err != nil {
		t.Fatal(err)
	}
	if n := findAllCtx(t, ctx, e, FindSpec{}); n != 1 {
		t.Fatalf("inside txn: %d docs, want 1 (insert committed after the snapshot hidden)", n)
	}
	res, err := e.Update(ctx, "db", "c", upd, wo)
	if err == nil && len(res.WriteErrors) > 0 {
		err = res.WriteErrors[0].Err
	}
	var ee *errs.Error
	if !errors.As(err, &ee) || ee.Code != errs.WriteConflict || tx.Err() == nil {
		t.Fatalf("update of a record changed after the snapshot: %v, want WriteConflict", err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("close with an open transaction: %v", err)
	}
	tx.Abort() // after Close: must not panic
}
