package crud_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// A duplicate on a secondary unique index gets 11000 with MongoDB's errmsg
// and the index's keyPattern and the duplicate keyValue, from insert,
// update and findAndModify alike.
func TestDuplicateKeySecondaryUniqueIndex(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("users")
	if _, err := coll.Indexes().CreateOne(testenv.Ctx(t), mongo.IndexModel{
		Keys:    bson.D{{Key: "email", Value: 1}, {Key: "org", Value: -1}},
		Options: options.Index().SetUnique(true),
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertMany(testenv.Ctx(t), []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "email", Value: "a@x"}, {Key: "org", Value: 2}},
		bson.D{{Key: "_id", Value: 2}, {Key: "email", Value: "b@x"}, {Key: "org", Value: 2}},
	}); err != nil {
		t.Fatal(err)
	}
	const wantMsg = `E11000 duplicate key error collection: test.users index: email_1_org_-1 dup key: { email: "a@x", org: 2 }`
	const wantKP = `{"email": {"$numberInt":"1"},"org": {"$numberInt":"-1"}}`
	const wantKV = `{"email": "a@x","org": {"$numberInt":"2"}}`
	check := func(what string, code int, msg string, raw bson.Raw) {
		t.Helper()
		if code != 11000 || msg != wantMsg {
			t.Errorf("%s: code %d errmsg %q, want 11000 %q", what, code, msg, wantMsg)
		}
		if kp := raw.Lookup("keyPattern"); kp.String() != wantKP {
			t.Errorf("%s: keyPattern %s, want %s", what, kp, wantKP)
		}
		if kv := raw.Lookup("keyValue"); kv.String() != wantKV {
			t.Errorf("%s: keyValue %s, want %s", what, kv, wantKV)
		}
	}

	_, err := coll.InsertOne(testenv.Ctx(t), bson.D{{Key: "_id", Value: 3}, {Key: "email", Value: "a@x"}, {Key: "org", Value: 2}})
	var we mongo.WriteException
	if !errors.As(err, &we) || len(we.WriteErrors) != 1 {
		t.Fatalf("insert: want one write error, got %v", err)
	}
	check("insert", we.WriteErrors[0].Code, we.WriteErrors[0].Message, we.WriteErrors[0].Raw)

	_, err = coll.UpdateOne(testenv.Ctx(t), bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "$set", Value: bson.D{{Key: "email", Value: "a@x"}}}})
	if !errors.As(err, &we) || len(we.WriteErrors) != 1 {
		t.Fatalf("update: want one write error, got %v", err)
	}
	check("update", we.WriteErrors[0].Code, we.WriteErrors[0].Message, we.WriteErrors[0].Raw)

	err = coll.FindOneAndUpdate(testenv.Ctx(t), bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "$set", Value: bson.D{{Key: "email", Value: "a@x"}}}}).Err()
	ce := testenv.CmdErr(t, err)
	check("findAndModify", int(ce.Code), ce.Message, ce.Raw)

	// Nothing changed.
	if n := testenv.Count(t, coll, bson.D{{Key: "email", Value: "a@x"}}); n != 1 {
		t.Errorf("%d documents with a@x, want 1", n)
	}
	// A missing field is indexed as null: a second document without the
	// fields is a duplicate { email: null, org: null }.
	if _, err := coll.InsertOne(testenv.Ctx(t), bson.D{{Key: "_id", Value: 10}}); err != nil {
		t.Fatal(err)
	}
	_, err = coll.InsertOne(testenv.Ctx(t), bson.D{{Key: "_id", Value: 11}})
	if !errors.As(err, &we) || len(we.WriteErrors) != 1 {
		t.Fatalf("missing fields: want one write error, got %v", err)
	}
	if m := we.WriteErrors[0].Message; m != `E11000 duplicate key error collection: test.users index: email_1_org_-1 dup key: { email: null, org: null }` {
		t.Errorf("missing fields errmsg %q", m)
	}
	if kv := we.WriteErrors[0].Raw.Lookup("keyValue"); kv.String() != `{"email": null,"org": null}` {
		t.Errorf("missing fields keyValue %s", kv)
	}
}

// The unique check skips the seek for keys above an index's last entry;
// keys at or below it, and the last entry itself, are still checked.
func TestDuplicateKeyAtAndBelowTheIndexMax(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("u")
	ctx := context.Background()
	docs := make([]any, 0, 1000)
	for i := 1; i <= 1000; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "k", Value: fmt.Sprintf("k%04d", i)}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "k", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []bson.D{
		{{Key: "_id", Value: 1000}},                             // the _id index's last entry
		{{Key: "_id", Value: 500}},                              // below it
		{{Key: "_id", Value: 2000}, {Key: "k", Value: "k1000"}}, // k's last entry
		{{Key: "_id", Value: 2001}, {Key: "k", Value: "k0001"}}, // k's first
	} {
		if _, err := coll.InsertOne(ctx, d); !mongo.IsDuplicateKeyError(err) {
			t.Errorf("insert %v: %v, want a duplicate key error", d, err)
		}
	}
	// Above both maxima, and twice in one batch.
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 3000}, {Key: "k", Value: "k9999"}}); err != nil {
		t.Fatal(err)
	}
	_, err := coll.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 3001}, {Key: "k", Value: "z"}}, bson.D{{Key: "_id", Value: 3002}, {Key: "k", Value: "z"}}})
	if !mongo.IsDuplicateKeyError(err) {
		t.Errorf("two new equal keys in one batch: %v, want a duplicate key error", err)
	}
	if n, _ := coll.CountDocuments(ctx, bson.D{}); n != 1002 {
		t.Errorf("%d documents, want 1002", n)
	}
}

// TestUniqueUpperBoundCache: the collection caches an upper bound of each
// unique index so that ascending keys skip the seek; every way an entry can
// appear must keep the bound above it, or a duplicate would be accepted.
func TestUniqueUpperBoundCache(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	c := context.Background()
	coll := db.Collection("u")
	if _, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: bson.D{{Key: "k", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
		t.Fatal(err)
	}
	mustDup := func(what string, err error) {
		t.Helper()
		if !mongo.IsDuplicateKeyError(err) {
			t.Fatalf("%s: %v, want a duplicate key error", what, err)
		}
	}
	ins := func(id, k int) error {
		_, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: id}, {Key: "k", Value: k}})
		return err
	}
	for i := 1; i <= 10; i++ { // ascending: the bound grows with each
		if err := ins(i, i*10); err != nil {
			t.Fatal(err)
		}
	}
	mustDup("_id equal to the highest", ins(10, 1000))
	mustDup("k equal to the highest", ins(11, 100))
	mustDup("k below the highest", ins(12, 50))
	// An update raises the bound: k 200 is now taken.
	if _, err := coll.UpdateOne(c, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "k", Value: 200}}}}); err != nil {
		t.Fatal(err)
	}
	mustDup("k set by an update", ins(13, 200))
	// A removal leaves the value free again.
	if _, err := coll.DeleteOne(c, bson.D{{Key: "_id", Value: 10}}); err != nil {
		t.Fatal(err)
	}
	if err := ins(10, 100); err != nil {
		t.Fatalf("reinsert after delete: %v", err)
	}
	// A transaction's commit adds entries the bound must cover.
	sess, err := db.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(c)
	if _, err := sess.WithTransaction(c, func(sc context.Context) (any, error) {
		_, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: 500}, {Key: "k", Value: 5000}})
		return nil, err
	}); err != nil {
		t.Fatal(err)
	}
	mustDup("_id committed by a transaction", ins(500, 1))
	mustDup("k committed by a transaction", ins(501, 5000))
	// A findAndModify upsert takes a new highest key.
	if err := coll.FindOneAndUpdate(c, bson.D{{Key: "_id", Value: 600}}, bson.D{{Key: "$set", Value: bson.D{{Key: "k", Value: 6000}}}}, options.FindOneAndUpdate().SetUpsert(true)).Err(); err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		t.Fatal(err)
	}
	mustDup("k upserted by findAndModify", ins(601, 6000))
	if n, _ := coll.CountDocuments(c, bson.D{}); n != 12 {
		t.Fatalf("%d documents, want 12", n)
	}
}

// TestUniqueKeysOutOfOrder: keys that arrive a little out of order, as
// ObjectIds from many clients do, are checked against what the
// collection knows of the index's highest entries. Every existing key,
// near the top or far below it, must still be refused, and every new one
// accepted, from several clients at once.
func TestUniqueKeysOutOfOrder(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("ooo")
	c := context.Background()
	const n = 3000
	// Even _ids, each block of 50 in descending order.
	for lo := 0; lo < n; lo += 50 {
		for i := lo + 49; i >= lo; i-- {
			if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 2 * i}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A removal near the top frees its key again.
	if _, err := coll.DeleteOne(c, bson.D{{Key: "_id", Value: 2 * (n - 10)}}); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 4)
	for w := 0; w < 4; w++ {
		go func(w int) {
			for i := n - 1 - w; i >= 0; i -= 4 {
				_, errEven := coll.InsertOne(c, bson.D{{Key: "_id", Value: 2 * i}})
				_, errOdd := coll.InsertOne(c, bson.D{{Key: "_id", Value: 2*i + 1}})
				switch {
				case i == n-10 && errEven != nil:
					errc <- fmt.Errorf("_id %d, removed: %v, want it inserted", 2*i, errEven)
					return
				case i != n-10 && !mongo.IsDuplicateKeyError(errEven):
					errc <- fmt.Errorf("_id %d again: %v, want a duplicate key error", 2*i, errEven)
					return
				case errOdd != nil:
					errc <- fmt.Errorf("new _id %d: %v", 2*i+1, errOdd)
					return
				}
			}
			errc <- nil
		}(w)
	}
	for range 4 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := coll.CountDocuments(c, bson.D{}); got != 2*n {
		t.Fatalf("%d documents, want %d", got, 2*n)
	}
}

// TestBulkInsertThenDuplicateIDs checks the _id index after bulk inserts
// (batches of thousands, which Lode commits by ingestion and whose keys it
// notes as a rising run): an _id from inside an earlier batch is refused
// with 11000, alone or among new ones in another bulk insert, and a new
// _id below the highest so far is accepted.
func TestBulkInsertThenDuplicateIDs(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("bulkdup")
	ids := make([]bson.ObjectID, 3000)
	docs := make([]any, len(ids))
	for i := range ids {
		ids[i] = bson.NewObjectID()
		docs[i] = bson.D{{Key: "_id", Value: ids[i]}, {Key: "n", Value: i}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: ids[1500]}})
	if we := testenv.WriteErr(t, err); we.Code != 11000 {
		t.Fatalf("insert of an _id from inside the bulk insert: %v, want 11000", err)
	}
	// Another bulk insert: new rising _ids, with every other one of the
	// first batch's in between.
	var mixed []any
	for i := 0; i < 2000; i++ {
		if i%2 == 0 {
			mixed = append(mixed, bson.D{{Key: "_id", Value: ids[i]}})
		} else {
			mixed = append(mixed, bson.D{{Key: "_id", Value: bson.NewObjectID()}})
		}
	}
	_, err = coll.InsertMany(ctx, mixed, options.InsertMany().SetOrdered(false))
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1000 {
		t.Fatalf("mixed bulk insert: %v, want 1000 write errors", err)
	}
	for _, we := range bwe.WriteErrors {
		if we.Code != 11000 || we.Index%2 != 0 {
			t.Fatalf("mixed bulk insert: write error at %d code %d, want 11000 at even indexes", we.Index, we.Code)
		}
	}
	// A new _id below the highest: an hour in the past.
	old := bson.NewObjectIDFromTimestamp(ids[0].Timestamp().Add(-time.Hour))
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: old}}); err != nil {
		t.Fatalf("insert of a new _id below the highest: %v", err)
	}
	if n := testenv.Count(t, coll, bson.D{}); n != 4001 {
		t.Fatalf("%d documents, want 4001", n)
	}
}

// wrapID is an ObjectId of one second and one process with counter n:
// the Go driver's counter starts anywhere and wraps after 2^24.
func wrapID(n uint32) bson.ObjectID {
	var id bson.ObjectID
	copy(id[:], []byte{0x65, 0x00, 0x00, 0x01, 1, 2, 3, 4, 5})
	id[9], id[10], id[11] = byte(n>>16), byte(n>>8), byte(n)
	return id
}

// TestUniqueChecksAfterCounterWrap: the ObjectIds of one second whose
// counter wrapped fall below the highest _id so far, each between two
// existing ones; Lode seeks the _id index once per gap between existing
// _ids rather than once per key (storage.IndexProbe), and must still
// refuse exactly the _ids that exist, in a bulk insert and one by one, and
// on a secondary unique index likewise.
func TestUniqueChecksAfterCounterWrap(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("wrap")
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{
		Keys: bson.D{{Key: "u", Value: 1}}, Options: options.Index().SetUnique(true),
	}); err != nil {
		t.Fatal(err)
	}
	// Before the wrap: the counter's top; and a few low counters (from
	// another time the counter passed there).
	var first []any
	exists := map[uint32]bool{}
	for _, n := range []uint32{40, 700, 701, 3000} {
		exists[n] = true
	}
	for n := uint32(1<<24 - 2000); n < 1<<24; n++ {
		exists[n] = true
	}
	for n := range exists {
		first = append(first, bson.D{{Key: "_id", Value: wrapID(n)}, {Key: "u", Value: int64(n)}})
	}
	if _, err := coll.InsertMany(ctx, first); err != nil {
		t.Fatal(err)
	}
	// After the wrap: counters 0..4999 in order, in bulk.
	var after []any
	for n := uint32(0); n < 5000; n++ {
		after = append(after, bson.D{{Key: "_id", Value: wrapID(n)}, {Key: "u", Value: int64(n) + 1<<40}})
	}
	_, err := coll.InsertMany(ctx, after, options.InsertMany().SetOrdered(false))
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) {
		t.Fatalf("bulk insert across existing _ids: %v, want write errors", err)
	}
	var dups []int
	for _, we := range bwe.WriteErrors {
		if we.Code != 11000 {
			t.Fatalf("write error %d at %d, want 11000", we.Code, we.Index)
		}
		dups = append(dups, we.Index)
	}
	if fmt.Sprint(dups) != "[40 700 701 3000]" {
		t.Fatalf("duplicates at %v, want [40 700 701 3000]", dups)
	}
	// One by one (each insert its own batch), then on the unique index u.
	for _, n := range []uint32{6000, 6001, 1<<24 - 1000, 6002} {
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: wrapID(n)}, {Key: "u", Value: int64(n) + 1<<41}})
		if dup := n == 1<<24-1000; dup != (err != nil) || dup && testenv.WriteErr(t, err).Code != 11000 {
			t.Fatalf("insert of counter %d: %v (exists: %v)", n, err, dup)
		}
	}
	var byU []any
	for n := int64(0); n < 3500; n++ {
		byU = append(byU, bson.D{{Key: "u", Value: n}})
	}
	_, err = coll.InsertMany(ctx, byU, options.InsertMany().SetOrdered(false))
	dups = dups[:0]
	if !errors.As(err, &bwe) {
		t.Fatalf("bulk insert on u: %v, want write errors", err)
	}
	for _, we := range bwe.WriteErrors {
		dups = append(dups, we.Index)
	}
	if fmt.Sprint(dups) != "[40 700 701 3000]" {
		t.Fatalf("u duplicates at %v, want [40 700 701 3000]", dups)
	}
	if n := testenv.Count(t, coll, bson.D{}); n != int64(len(first)+5000-4+3+3500-4) {
		t.Fatalf("%d documents, want %d", n, len(first)+5000-4+3+3500-4)
	}
}
