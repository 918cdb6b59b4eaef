package transactions_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// validateColl runs validate on coll and fails the test unless MongoDB's
// reply says valid with no errors.
func validateColl(t *testing.T, coll *mongo.Collection) bson.Raw {
	t.Helper()
	var res bson.Raw
	err := coll.Database().RunCommand(testenv.Ctx(t), bson.D{{Key: "validate", Value: coll.Name()}, {Key: "full", Value: true}}).Decode(&res)
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
	t.Parallel()
	for _, unique := range []bool{false, true} {
		name := "plain"
		if unique {
			name = "unique"
		}
		t.Run(name, func(t *testing.T) {
			db, d := testenv.Open(t)
			c := testenv.Ctx(t)
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
			ce := testenv.CmdErr(t, err)
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
	t.Parallel()
	db, d := testenv.Open(t)
	c := testenv.Ctx(t)
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
			ce := testenv.CmdErr(t, getMore(c, id))
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
			ce = testenv.CmdErr(t, getMore(sc, id))
			if ce.Code != 43 {
				t.Fatalf("getMore in the owning session after %s: %v, want CursorNotFound 43", end, ce)
			}
			ce = testenv.CmdErr(t, getMore(c, id))
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

// inTxn starts a transaction with opts on a new session and returns its
// context; the session ends with the test.
func inTxn(t *testing.T, db *lode.DB, opts ...options.Lister[options.TransactionOptions]) (*mongo.Session, context.Context) {
	t.Helper()
	sess, err := db.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.EndSession(context.Background()) })
	if err := sess.StartTransaction(opts...); err != nil {
		t.Fatal(err)
	}
	return sess, mongo.NewSessionContext(testenv.Ctx(t), sess)
}

// collNames lists the collections of d.
func collNames(t *testing.T, d *mongo.Database) map[string]bool {
	t.Helper()
	names, err := d.ListCollectionNames(testenv.Ctx(t), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out
}

// TestTxnDDLRules checks MongoDB 7.0's rules for collection and index
// creation inside transactions: createIndexes only on a collection the
// transaction creates (263 on an existing one, 263 on a non-empty new
// one), create/createIndexes only at readConcern local (72), writes to
// capped collections refused (263), and what a transaction created dropped
// again when it aborts.
func TestTxnDDLRules(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	c := testenv.Ctx(t)
	ixA := mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}}

	t.Run("existing collection", func(t *testing.T) {
		coll := d.Collection("exists")
		if _, err := coll.InsertOne(c, bson.D{{Key: "a", Value: 1}}); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Collection("exists_empty").Indexes().CreateOne(c, mongo.IndexModel{Keys: bson.D{{Key: "z", Value: 1}}}); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"exists", "exists_empty"} {
			sess, sc := inTxn(t, db)
			_, err := d.Collection(name).Indexes().CreateOne(sc, ixA)
			testenv.WantCode(t, "createIndexes on existing "+name, err, 263)
			testenv.WantCode(t, "commit after the refused createIndexes", sess.CommitTransaction(c), 251)
		}
		// An index that already exists is not an error (nothing to build).
		sess, sc := inTxn(t, db)
		if _, err := d.Collection("exists_empty").Indexes().CreateOne(sc, mongo.IndexModel{Keys: bson.D{{Key: "z", Value: 1}}}); err != nil {
			t.Fatalf("createIndexes of an existing index in a transaction: %v", err)
		}
		if err := sess.CommitTransaction(c); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("new collection committed", func(t *testing.T) {
		sess, sc := inTxn(t, db)
		coll := d.Collection("fresh")
		if _, err := coll.Indexes().CreateOne(sc, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
			t.Fatalf("createIndexes creating the collection in a transaction: %v", err)
		}
		if _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 7}}); err != nil {
			t.Fatal(err)
		}
		// The unique index built in the transaction is enforced in it.
		_, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: 7}})
		testenv.WantCode(t, "duplicate under the transaction's unique index", err, 11000)
		// The write error aborted the transaction, and with it the
		// collection and index it created.
		testenv.WantCode(t, "commit after the write error", sess.CommitTransaction(c), 251)
		if collNames(t, d)["fresh"] {
			t.Fatal("fresh survived its transaction's abort")
		}
		sess, sc = inTxn(t, db)
		if err := d.CreateCollection(sc, "fresh2"); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Collection("fresh2").Indexes().CreateOne(sc, ixA); err != nil {
			t.Fatalf("createIndexes on a collection created in the same transaction: %v", err)
		}
		if _, err := d.Collection("fresh2").InsertOne(sc, bson.D{{Key: "a", Value: 1}}); err != nil {
			t.Fatal(err)
		}
		// Another writer may not use the collection before the commit.
		_, err = d.Collection("fresh2").InsertOne(c, bson.D{{Key: "a", Value: 2}})
		testenv.WantCode(t, "plain insert into a collection an open transaction created", err, 112)
		// Not empty any more: a further index is refused.
		_, err = d.Collection("fresh2").Indexes().CreateOne(sc, mongo.IndexModel{Keys: bson.D{{Key: "b", Value: 1}}})
		testenv.WantCode(t, "createIndexes on a non-empty new collection", err, 263)
		testenv.WantCode(t, "commit after the refused createIndexes", sess.CommitTransaction(c), 251)
		if collNames(t, d)["fresh2"] {
			t.Fatal("fresh2 survived its transaction's abort")
		}

		sess, sc = inTxn(t, db)
		if err := d.CreateCollection(sc, "fresh3"); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Collection("fresh3").Indexes().CreateOne(sc, ixA); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Collection("fresh3").InsertOne(sc, bson.D{{Key: "a", Value: 1}}); err != nil {
			t.Fatal(err)
		}
		if err := sess.CommitTransaction(c); err != nil {
			t.Fatalf("commit of create + createIndexes + insert: %v", err)
		}
		coll3 := d.Collection("fresh3")
		if n, err := coll3.CountDocuments(c, bson.D{{Key: "a", Value: 1}}, options.Count().SetHint("a_1")); err != nil || n != 1 {
			t.Fatalf("a:1 via a_1 after commit: %d, %v", n, err)
		}
		validateColl(t, coll3)
		// Now an ordinary collection: plain writes work.
		if _, err := coll3.InsertOne(c, bson.D{{Key: "a", Value: 2}}); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("aborted creation is rolled back", func(t *testing.T) {
		sess, sc := inTxn(t, db)
		if err := d.CreateCollection(sc, "gone"); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Collection("gone").Indexes().CreateOne(sc, ixA); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Collection("gone_implicit").InsertOne(sc, bson.D{{Key: "a", Value: 1}}); err != nil {
			t.Fatal(err)
		}
		if err := sess.AbortTransaction(c); err != nil {
			t.Fatal(err)
		}
		names := collNames(t, d)
		if names["gone"] || names["gone_implicit"] {
			t.Fatalf("collections created by an aborted transaction remain: %v", names)
		}
		// The names are free again, outside transactions.
		if err := d.CreateCollection(c, "gone"); err != nil {
			t.Fatal(err)
		}
		ixs, err := d.Collection("gone").Indexes().ListSpecifications(c)
		if err != nil || len(ixs) != 1 {
			t.Fatalf("indexes of the re-created collection: %v, %v; want only _id_", ixs, err)
		}
	})

	t.Run("readConcern snapshot", func(t *testing.T) {
		snap := options.Transaction().SetReadConcern(readconcern.Snapshot())
		sess, sc := inTxn(t, db, snap)
		testenv.WantCode(t, "create at readConcern snapshot", d.CreateCollection(sc, "rc_snap"), 72)
		testenv.WantCode(t, "commit after the refused create", sess.CommitTransaction(c), 251)
		sess, sc = inTxn(t, db, snap)
		_, err := d.Collection("rc_snap2").Indexes().CreateOne(sc, ixA)
		testenv.WantCode(t, "createIndexes at readConcern snapshot", err, 72)
		_ = sess.AbortTransaction(c)
		if names := collNames(t, d); names["rc_snap"] || names["rc_snap2"] {
			t.Fatalf("refused DDL created collections: %v", names)
		}
		sess, sc = inTxn(t, db, options.Transaction().SetReadConcern(readconcern.Local()))
		if err := d.CreateCollection(sc, "rc_local"); err != nil {
			t.Fatalf("create at readConcern local: %v", err)
		}
		if err := sess.CommitTransaction(c); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("capped", func(t *testing.T) {
		if err := d.CreateCollection(c, "capped", options.CreateCollection().SetCapped(true).SetSizeInBytes(4096)); err != nil {
			t.Fatal(err)
		}
		capped := d.Collection("capped")
		if _, err := capped.InsertOne(c, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}}); err != nil {
			t.Fatal(err)
		}
		sess, sc := inTxn(t, db)
		_, err := capped.InsertOne(sc, bson.D{{Key: "a", Value: 2}})
		testenv.WantCode(t, "insert into a capped collection in a transaction", err, 263)
		testenv.WantCode(t, "commit after the refused write", sess.CommitTransaction(c), 251)
		sess, sc = inTxn(t, db)
		_, err = capped.UpdateOne(sc, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 3}}}})
		testenv.WantCode(t, "update of a capped collection in a transaction", err, 263)
		_ = sess.AbortTransaction(c)
		// Reads are allowed.
		sess, sc = inTxn(t, db)
		if n, err := capped.CountDocuments(sc, bson.D{}); err != nil || n != 1 {
			t.Fatalf("read of a capped collection in a transaction: %d, %v", n, err)
		}
		if err := sess.CommitTransaction(c); err != nil {
			t.Fatal(err)
		}
	})
}

// TestTxnReadsSeeOwnWrites checks that aggregate (with $lookup),
// countDocuments and distinct inside a transaction see the transaction's
// own uncommitted writes while others do not, and that the count command
// is refused inside a transaction with 263, as in MongoDB 7.0.
func TestTxnReadsSeeOwnWrites(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	c := testenv.Ctx(t)
	orders, items := d.Collection("orders"), d.Collection("items")
	if _, err := orders.InsertOne(c, bson.D{{Key: "_id", Value: 1}, {Key: "item", Value: "a"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := items.InsertOne(c, bson.D{{Key: "_id", Value: "a"}, {Key: "kind", Value: "x"}}); err != nil {
		t.Fatal(err)
	}
	sess, sc := inTxn(t, db)
	if _, err := orders.InsertOne(sc, bson.D{{Key: "_id", Value: 2}, {Key: "item", Value: "b"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := items.InsertOne(sc, bson.D{{Key: "_id", Value: "b"}, {Key: "kind", Value: "y"}}); err != nil {
		t.Fatal(err)
	}
	if n, err := orders.CountDocuments(sc, bson.D{}); err != nil || n != 2 {
		t.Fatalf("countDocuments in the transaction = %d, %v; want 2", n, err)
	}
	if n, err := orders.CountDocuments(c, bson.D{}); err != nil || n != 1 {
		t.Fatalf("countDocuments outside = %d, %v; want 1", n, err)
	}
	kinds := items.Distinct(sc, "kind", bson.D{})
	var ks []string
	if err := kinds.Decode(&ks); err != nil || len(ks) != 2 {
		t.Fatalf("distinct in the transaction = %v, %v; want [x y]", ks, err)
	}
	cur, err := orders.Aggregate(sc, mongo.Pipeline{
		{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "items"}, {Key: "localField", Value: "item"}, {Key: "foreignField", Value: "_id"}, {Key: "as", Value: "it"}}}},
		{{Key: "$unwind", Value: "$it"}},
		{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var joined []bson.M
	if err := cur.All(sc, &joined); err != nil || len(joined) != 2 {
		t.Fatalf("aggregate with $lookup in the transaction = %v, %v; want 2 joined orders", joined, err)
	}
	err = d.RunCommand(sc, bson.D{{Key: "count", Value: "orders"}}).Err()
	testenv.WantCode(t, "count in a transaction", err, 263)
	testenv.WantCode(t, "commit after the refused count", sess.CommitTransaction(c), 251)
}

// TestTxnCreatedCollectionInvisible checks what the transactions
// specification expects of DDL in a transaction: a collection created
// inside it (and an index on it) is not listed outside until the commit,
// is listed after it, and is gone after an abort.
func TestTxnCreatedCollectionInvisible(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	c := testenv.Ctx(t)
	names := func() []string {
		t.Helper()
		n, err := d.ListCollectionNames(c, bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	has := func(n []string, name string) bool {
		for _, x := range n {
			if x == name {
				return true
			}
		}
		return false
	}
	for _, commit := range []bool{true, false} {
		name := fmt.Sprintf("ddl_%v", commit)
		s, err := db.Client().StartSession()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.StartTransaction(); err != nil {
			t.Fatal(err)
		}
		sc := mongo.NewSessionContext(c, s)
		if err := d.CreateCollection(sc, name); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Collection(name).Indexes().CreateOne(sc, mongo.IndexModel{Keys: bson.D{{Key: "t", Value: 1}}}); err != nil {
			t.Fatal(err)
		}
		if has(names(), name) {
			t.Fatalf("%s listed outside its transaction before the commit", name)
		}
		// listIndexes gives NamespaceNotFound, which the driver turns
		// into an empty list.
		_, err = testenv.RunCmd(t, d, bson.D{{Key: "listIndexes", Value: name}})
		testenv.WantCode(t, "listIndexes before the commit", err, 26)
		if commit {
			err = s.CommitTransaction(c)
		} else {
			err = s.AbortTransaction(c)
		}
		if err != nil {
			t.Fatal(err)
		}
		s.EndSession(c)
		if has(names(), name) != commit {
			t.Fatalf("%s listed: %v after commit=%v", name, has(names(), name), commit)
		}
	}
}
