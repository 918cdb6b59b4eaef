package transactions_test

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestTxnSnapshotReads checks that a transaction reads one stable snapshot:
// a value committed by another writer after the transaction's first read
// stays invisible to it, its own writes are visible, an index scan sees
// its own inserts, and writing a document changed after the snapshot is a
// WriteConflict.
func TestTxnSnapshotReads(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("snap")
	if _, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: bson.D{{Key: "k", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	docs := []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: 0}, {Key: "k", Value: "a"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "v", Value: 0}, {Key: "k", Value: "b"}},
		bson.D{{Key: "_id", Value: 3}, {Key: "v", Value: 0}, {Key: "k", Value: "c"}},
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	readV := func(c context.Context, id int) int32 {
		t.Helper()
		var got struct {
			V int32 `bson:"v"`
		}
		if err := coll.FindOne(c, bson.D{{Key: "_id", Value: id}}).Decode(&got); err != nil {
			t.Fatalf("find %d: %v", id, err)
		}
		return got.V
	}
	set := func(c context.Context, id int, v int32) error {
		_, err := coll.UpdateOne(c, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: v}}}})
		return err
	}

	sa, _ := db.Client().StartSession()
	defer sa.EndSession(c)
	if err := sa.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	ca := mongo.NewSessionContext(c, sa)
	if v := readV(ca, 1); v != 0 {
		t.Fatalf("first read of X = %d, want 0", v)
	}

	// Transaction B updates X and doc 3 and commits; a plain write updates doc 2.
	sb, _ := db.Client().StartSession()
	defer sb.EndSession(c)
	if err := sb.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	cb := mongo.NewSessionContext(c, sb)
	if err := set(cb, 1, 10); err != nil {
		t.Fatal(err)
	}
	if err := set(cb, 3, 30); err != nil {
		t.Fatal(err)
	}
	if err := sb.CommitTransaction(c); err != nil {
		t.Fatal(err)
	}
	if err := set(c, 2, 20); err != nil {
		t.Fatal(err)
	}
	// Outside any transaction the new values are visible.
	if v := readV(c, 1); v != 10 {
		t.Fatalf("committed read of X = %d, want 10", v)
	}

	tests := []struct {
		name string
		id   int
		want int32
	}{
		{"updated by a transaction", 1, 0},
		{"updated by a plain write", 2, 0},
		{"updated and not yet read", 3, 0},
	}
	for _, tc := range tests {
		if v := readV(ca, tc.id); v != tc.want {
			t.Errorf("%s: transaction read %d, want %d (snapshot value)", tc.name, v, tc.want)
		}
	}

	// A's own writes stay visible to A; a find through the index on k sees
	// A's insert and A's change of a key, and not B's.
	if _, err := coll.InsertOne(ca, bson.D{{Key: "_id", Value: 4}, {Key: "v", Value: 4}, {Key: "k", Value: "b"}}); err != nil {
		t.Fatal(err)
	}
	if v := readV(ca, 4); v != 4 {
		t.Errorf("own insert: read %d, want 4", v)
	}
	cur, err := coll.Find(ca, bson.D{{Key: "k", Value: bson.D{{Key: "$gte", Value: "b"}}}},
		options.Find().SetHint(bson.D{{Key: "k", Value: 1}}).SetSort(bson.D{{Key: "k", Value: 1}, {Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var found []struct {
		ID int32 `bson:"_id"`
		V  int32 `bson:"v"`
	}
	if err := cur.All(ca, &found); err != nil {
		t.Fatal(err)
	}
	type idv struct{ id, v int32 }
	want := []idv{{2, 0}, {4, 4}, {3, 0}}
	if len(found) != len(want) {
		t.Fatalf("index find in transaction: %+v, want %v", found, want)
	}
	for i, f := range found {
		if (idv{f.ID, f.V}) != want[i] {
			t.Errorf("index find in transaction [%d] = %+v, want %v", i, f, want[i])
		}
	}

	// Writing X, changed by B after A's snapshot, is a write conflict.
	err = set(ca, 1, 99)
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(112) || !se.HasErrorLabel("TransientTransactionError") {
		t.Fatalf("update of a document changed after the snapshot: %v, want WriteConflict with TransientTransactionError", err)
	}
	_ = sa.AbortTransaction(c)
	if v := readV(c, 1); v != 10 {
		t.Fatalf("after abort X = %d, want 10", v)
	}
	if n, err := coll.CountDocuments(c, bson.D{{Key: "_id", Value: 4}}); err != nil || n != 0 {
		t.Fatalf("aborted insert visible: %d %v", n, err)
	}
}

// TestTxnSnapshotOwnWrites checks that a document a transaction updated
// reads back with its own value even after another writer commits other
// documents, and that a deleted document stays deleted for it.
func TestTxnSnapshotOwnWrites(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("own")
	if _, err := coll.InsertMany(c, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: 1}},
		bson.D{{Key: "_id", Value: 2}, {Key: "v", Value: 2}},
	}); err != nil {
		t.Fatal(err)
	}
	s, _ := db.Client().StartSession()
	defer s.EndSession(c)
	if err := s.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	cs := mongo.NewSessionContext(c, s)
	if _, err := coll.UpdateOne(cs, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: 100}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteOne(cs, bson.D{{Key: "_id", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 3}, {Key: "v", Value: 3}}); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Find(cs, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.D
	if err := cur.All(cs, &got); err != nil {
		t.Fatal(err)
	}
	want := []bson.D{{{Key: "_id", Value: int32(1)}, {Key: "v", Value: int32(100)}}}
	if len(got) != len(want) || len(got[0]) != 2 || got[0][1].Value != want[0][1].Value {
		t.Fatalf("transaction scan = %v, want %v", got, want)
	}
	if err := s.CommitTransaction(c); err != nil {
		t.Fatal(err)
	}
	if n, err := coll.CountDocuments(c, bson.D{}); err != nil || n != 2 {
		t.Fatalf("after commit count = %d %v, want 2", n, err)
	}
}
