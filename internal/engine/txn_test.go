package engine

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

func findAllCtx(t *testing.T, ctx context.Context, e *Engine, spec FindSpec) int {
	t.Helper()
	it, err := e.Find(ctx, "db", "c", spec)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for {
		d, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if d == nil {
			return n
		}
		n++
	}
}

func TestTxnVisibilityAndCommit(t *testing.T) {
	e := openTest(t, "")
	bg := context.Background()
	if _, err := e.Insert(bg, "db", "c", []bsoncore.Document{D(t, bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: 1}})}, WriteOptions{Ordered: true}); err != nil {
		t.Fatal(err)
	}
	tx, err := e.BeginTxn()
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithTxn(bg, tx)
	if _, err := e.Insert(ctx, "db", "c", []bsoncore.Document{D(t, bson.D{{Key: "_id", Value: 2}})}, WriteOptions{Ordered: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Delete(ctx, "db", "c", []DeleteSpec{{Filter: D(t, bson.D{{Key: "_id", Value: 1}}), Limit: 1}}, WriteOptions{Ordered: true}); err != nil {
		t.Fatal(err)
	}
	if n := findAllCtx(t, ctx, e, FindSpec{}); n != 1 {
		t.Fatalf("inside txn: %d docs, want 1 (own insert, own delete hidden)", n)
	}
	if n := findAllCtx(t, bg, e, FindSpec{}); n != 1 {
		t.Fatalf("outside txn: %d docs, want 1 (only _id 1)", n)
	}
	if got := findAll(t, e, "db", "c", FindSpec{Filter: D(t, bson.D{{Key: "_id", Value: 2}})}); len(got) != 0 {
		t.Fatalf("uncommitted insert visible outside: %v", jsonOf(got))
	}
	if err := tx.Commit(bg, true); err != nil {
		t.Fatal(err)
	}
	if got := findAll(t, e, "db", "c", FindSpec{}); len(got) != 1 || got[0].Lookup("_id").Int32() != 2 {
		t.Fatalf("after commit: %v", jsonOf(got))
	}
	// Index consistency: the _id index finds the committed insert.
	if got := findAll(t, e, "db", "c", FindSpec{Filter: D(t, bson.D{{Key: "_id", Value: 2}})}); len(got) != 1 {
		t.Fatalf("_id lookup after commit: %v", jsonOf(got))
	}
}

func TestTxnWriteConflict(t *testing.T) {
	e := openTest(t, "")
	bg := context.Background()
	if _, err := e.Insert(bg, "db", "c", []bsoncore.Document{D(t, bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: 1}})}, WriteOptions{Ordered: true}); err != nil {
		t.Fatal(err)
	}
	inc := []UpdateSpec{{Filter: D(t, bson.D{{Key: "_id", Value: 1}}), Update: val(t, bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 1}}}})}}
	cases := []struct {
		name   string
		second func(t *testing.T) (UpdateResult, error)
	}{
		{"other transaction", func(t *testing.T) (UpdateResult, error) {
			tx2, _ := e.BeginTxn()
			defer tx2.Abort()
			return e.Update(WithTxn(bg, tx2), "db", "c", inc, WriteOptions{Ordered: true})
		}},
		{"plain write", func(t *testing.T) (UpdateResult, error) {
			return e.Update(bg, "db", "c", inc, WriteOptions{Ordered: true})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tx, _ := e.BeginTxn()
			defer tx.Abort()
			if res, err := e.Update(WithTxn(bg, tx), "db", "c", inc, WriteOptions{Ordered: true}); err != nil || res.NModified != 1 {
				t.Fatalf("first: %+v %v", res, err)
			}
			res, err := tc.second(t)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.WriteErrors) != 1 || res.WriteErrors[0].Err.Code != errs.WriteConflict {
				t.Fatalf("second writer: %+v, want WriteConflict", res)
			}
		})
	}
	// A plain write committed after a transaction began makes that
	// transaction's write to the same record conflict.
	tx, _ := e.BeginTxn()
	defer tx.Abort()
	if _, err := e.Update(bg, "db", "c", inc, WriteOptions{Ordered: true}); err != nil {
		t.Fatal(err)
	}
	res, _ := e.Update(WithTxn(bg, tx), "db", "c", inc, WriteOptions{Ordered: true})
	if len(res.WriteErrors) != 1 || res.WriteErrors[0].Err.Code != errs.WriteConflict || tx.Err() == nil {
		t.Fatalf("stale txn write: %+v", res)
	}
}
