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

// TestIndexBuiltAfterTransactionSnapshot: an index built after a
// transaction took its snapshot does not exist at that snapshot: the
// transaction's reads plan without it and find every document their
// snapshot holds (before, they used it and found none of them); a hint
// naming it fails as an unknown index (BadValue) or reads correctly.
func TestIndexBuiltAfterTransactionSnapshot(t *testing.T) {
	db, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("ixsnap")
	var docs []any
	for i := range 100 {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i % 10}})
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	sess, ctx := inTxn(t, db)
	// The first read fixes the snapshot.
	if n, err := coll.CountDocuments(ctx, bson.D{{Key: "a", Value: 3}}); err != nil || n != 10 {
		t.Fatalf("count before the index: %d, %v", n, err)
	}
	if _, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	find := func(opts *options.FindOptionsBuilder) (int, error) {
		cur, err := coll.Find(ctx, bson.D{{Key: "a", Value: 3}}, opts)
		if err != nil {
			return 0, err
		}
		var got []bson.M
		err = cur.All(ctx, &got)
		return len(got), err
	}
	if n, err := find(options.Find()); err != nil || n != 10 {
		t.Errorf("find in the transaction after an index build: %d documents, %v; want 10", n, err)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{{Key: "a", Value: 3}}); err != nil || n != 10 {
		t.Errorf("count in the transaction after an index build: %d, %v; want 10", n, err)
	}
	n, err := find(options.Find().SetHint(bson.D{{Key: "a", Value: 1}}))
	var se mongo.ServerError
	if err != nil && !(errors.As(err, &se) && se.HasErrorCode(2)) || err == nil && n != 10 {
		t.Errorf("find hinting the new index: %d documents, %v; want 10 or BadValue", n, err)
	}
	_ = sess.AbortTransaction(context.Background())
	// Outside the transaction the index is used.
	if n, err := coll.CountDocuments(c, bson.D{{Key: "a", Value: 3}}, options.Count().SetHint(bson.D{{Key: "a", Value: 1}})); err != nil || n != 10 {
		t.Errorf("count hinting the index after the transaction: %d, %v", n, err)
	}
}
