package lode_test

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// validateColl runs validate on coll and fails the test unless MongoDB's
// reply says valid with no errors.
func validateColl(t *testing.T, coll *mongo.Collection) bson.Raw {
	t.Helper()
	var res bson.Raw
	err := coll.Database().RunCommand(ctx(t), bson.D{{Key: "validate", Value: coll.Name()}, {Key: "full", Value: true}}).Decode(&res)
	if err != nil {
		t.Fatalf("validate %s: %v", coll.Name(), err)
	}
	if v, ok := res.Lookup("valid").BooleanOK(); !ok || !v {
		t.Fatalf("validate %s: not valid: %v", coll.Name(), res)
	}
	if errsArr, ok := res.Lookup("errors").ArrayOK(); ok {
		if vals, _ := errsArr.Values(); len(vals) > 0 {
			t.Fatalf("validate %s: errors: %v", coll.Name(), res)
		}
	}
	return res
}

// TestTxnCommitAfterConcurrentIndexBuild reproduces an index built outside
// a transaction while the transaction has staged writes to the same
// collection: the commit must fail with WriteConflict (112) labelled
// TransientTransactionError, leaving the collection and its new indexes
// consistent (for the unique index: no duplicate a:1).
func TestTxnCommitAfterConcurrentIndexBuild(t *testing.T) {
	for _, unique := range []bool{false, true} {
		name := "plain"
		if unique {
			name = "unique"
		}
		t.Run(name, func(t *testing.T) {
			db, d := open(t)
			c := ctx(t)
			coll := d.Collection("ixrace")
			if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}}); err != nil {
				t.Fatal(err)
			}
			sess, err := db.Client().StartSession()
			if err != nil {
				t.Fatal(err)
			}
			defer sess.EndSession(c)
			if err := sess.StartTransaction(); err != nil {
				t.Fatal(err)
			}
			sc := mongo.NewSessionContext(c, sess)
			if _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: 1}}); err != nil {
				t.Fatal(err)
			}
			if _, err := coll.UpdateOne(sc, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: 5}}}}); err != nil {
				t.Fatal(err)
			}
			// Outside the transaction: only one committed a:1, so the
			// build succeeds.
			ixName, err := coll.Indexes().CreateOne(c, mongo.IndexModel{
				Keys:    bson.D{{Key: "a", Value: 1}},
				Options: options.Index().SetUnique(unique),
			})
			if err != nil {
				t.Fatalf("createIndex outside the transaction: %v", err)
			}
			if _, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: bson.D{{Key: "b", Value: 1}}}); err != nil {
				t.Fatal(err)
			}
			err = sess.CommitTransaction(c)
			ce := cmdErr(t, err)
			if ce.Code != 112 || !ce.HasErrorLabel("TransientTransactionError") {
				t.Fatalf("commit after a concurrent index build: got %v (labels %v), want WriteConflict 112 with TransientTransactionError", err, ce.Labels)
			}
			if ce.HasErrorLabel("UnknownTransactionCommitResult") {
				t.Fatalf("a refused commit must not be labelled UnknownTransactionCommitResult: %v", ce.Labels)
			}
			validateColl(t, coll)
			if n, err := coll.CountDocuments(c, bson.D{}); err != nil || n != 1 {
				t.Fatalf("documents after the failed commit: %d, %v; want 1", n, err)
			}
			// The transaction's update is not applied, and the new indexes
			// answer queries consistently with the data.
			if n, err := coll.CountDocuments(c, bson.D{{Key: "b", Value: 5}}, options.Count().SetHint("b_1")); err != nil || n != 0 {
				t.Fatalf("b:5 via b_1 = %d, %v; want 0", n, err)
			}
			if n, err := coll.CountDocuments(c, bson.D{{Key: "a", Value: 1}}, options.Count().SetHint(ixName)); err != nil || n != 1 {
				t.Fatalf("a:1 via %s = %d, %v; want 1", ixName, n, err)
			}
			// The driver's retry loop reruns the transaction against the
			// new indexes; a unique index then refuses the duplicate.
			sess2, _ := db.Client().StartSession()
			defer sess2.EndSession(c)
			_, err = sess2.WithTransaction(c, func(sc context.Context) (any, error) {
				return coll.InsertOne(sc, bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: 1}})
			})
			if unique {
				var we mongo.WriteException
				if !errors.As(err, &we) || len(we.WriteErrors) != 1 || we.WriteErrors[0].Code != 11000 {
					t.Fatalf("rerun under the unique index: got %v, want duplicate key 11000", err)
				}
			} else if err != nil {
				t.Fatalf("rerun: %v", err)
			}
			validateColl(t, coll)
		})
	}
}

// TestTxnCursorsEndWithTransaction checks that a cursor opened inside a
// transaction belongs to it: another session's getMore fails with
// mongod's session-mismatch error (50738), the owning transaction can
// drain it, and once the transaction aborts or commits the cursor is gone
// (CursorNotFound 43), as in MongoDB.
func TestTxnCursorsEndWithTransaction(t *testing.T) {
	db, d := open(t)
	c := ctx(t)
	coll := d.Collection("txcur")
	for i := 0; i < 6; i++ {
		if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	getMore := func(ctx context.Context, id int64) error {
		return d.RunCommand(ctx, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: coll.Name()}, {Key: "batchSize", Value: 1}}).Err()
	}
	for _, end := range []string{"abort", "commit"} {
		t.Run(end, func(t *testing.T) {
			sess, err := db.Client().StartSession()
			if err != nil {
				t.Fatal(err)
			}
			defer sess.EndSession(c)
			if err := sess.StartTransaction(); err != nil {
				t.Fatal(err)
			}
			sc := mongo.NewSessionContext(c, sess)
			// A write of the transaction that the cursor must see.
			if _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: 100}}); err != nil {
				t.Fatal(err)
			}
			cur, err := coll.Find(sc, bson.D{}, options.Find().SetBatchSize(2))
			if err != nil {
				t.Fatal(err)
			}
			id := cur.ID()
			if id == 0 {
				t.Fatal("want an open cursor after a batch of 2")
			}
			// Another session (the driver's implicit one) may not use it.
			ce := cmdErr(t, getMore(c, id))
			if ce.Code != 50738 {
				t.Fatalf("getMore from another session: %v, want code 50738", ce)
			}
			// The refused getMore leaves the cursor usable by its owner.
			if !cur.Next(sc) || !cur.Next(sc) || !cur.Next(sc) {
				t.Fatalf("iterating the cursor inside its transaction: %v", cur.Err())
			}
			if end == "abort" {
				err = sess.AbortTransaction(c)
			} else {
				err = sess.CommitTransaction(c)
			}
			if err != nil {
				t.Fatal(err)
			}
			ce = cmdErr(t, getMore(sc, id))
			if ce.Code != 43 {
				t.Fatalf("getMore in the owning session after %s: %v, want CursorNotFound 43", end, ce)
			}
			ce = cmdErr(t, getMore(c, id))
			if ce.Code != 43 {
				t.Fatalf("getMore from another session after %s: %v, want CursorNotFound 43", end, ce)
			}
			_ = cur.Close(c)
			if end == "commit" {
				if _, err := coll.DeleteOne(c, bson.D{{Key: "_id", Value: 100}}); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
