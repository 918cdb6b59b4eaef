package transactions_test

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// TestTxnConflictLabel checks that two transactions writing the same
// document conflict with WriteConflict labelled TransientTransactionError,
// and that a transaction reads its own writes while others do not.
func TestTxnConflictLabel(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("acc")
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	s1, _ := db.Client().StartSession()
	defer s1.EndSession(c)
	s2, _ := db.Client().StartSession()
	defer s2.EndSession(c)
	if err := s1.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	c1 := mongo.NewSessionContext(c, s1)
	inc := bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 1}}}}
	if _, err := coll.UpdateOne(c1, bson.D{{Key: "_id", Value: 1}}, inc); err != nil {
		t.Fatal(err)
	}
	var got bson.M
	if err := coll.FindOne(c1, bson.D{{Key: "_id", Value: 1}}).Decode(&got); err != nil || got["v"] != int32(1) {
		t.Fatalf("own write not visible: %v %v", got, err)
	}
	if err := coll.FindOne(c, bson.D{{Key: "_id", Value: 1}}).Decode(&got); err != nil || got["v"] != int32(0) {
		t.Fatalf("uncommitted write visible outside: %v %v", got, err)
	}
	if err := s2.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	c2 := mongo.NewSessionContext(c, s2)
	_, err := coll.UpdateOne(c2, bson.D{{Key: "_id", Value: 1}}, inc)
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(112) || !se.HasErrorLabel("TransientTransactionError") {
		t.Fatalf("second transaction: %v, want WriteConflict with TransientTransactionError", err)
	}
	_ = s2.AbortTransaction(c)
	if err := s1.CommitTransaction(c); err != nil {
		t.Fatal(err)
	}
	// A repeated commit succeeds (commitTransaction is retryable).
	if err := s1.CommitTransaction(c); err != nil {
		t.Fatalf("second commit: %v", err)
	}
	if err := coll.FindOne(c, bson.D{{Key: "_id", Value: 1}}).Decode(&got); err != nil || got["v"] != int32(1) {
		t.Fatalf("after commit: %v %v", got, err)
	}
	// DDL inside a transaction.
	if err := s2.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	err = d.RunCommand(mongo.NewSessionContext(c, s2), bson.D{{Key: "drop", Value: "acc"}}).Err()
	if !errors.As(err, &se) || !se.HasErrorCode(263) {
		t.Fatalf("drop in transaction: %v, want 263", err)
	}
	_ = s2.AbortTransaction(c)
}
