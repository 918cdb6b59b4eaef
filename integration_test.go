package lode_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
)

func open(t *testing.T) (*lode.DB, *mongo.Database) {
	t.Helper()
	db, err := lode.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, db.Client().Database("test")
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

func cmdErr(t *testing.T, err error) mongo.CommandError {
	t.Helper()
	var ce mongo.CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("want a command error, got %T %v", err, err)
	}
	return ce
}

// count runs the count command (CountDocuments needs aggregate).
func count(t *testing.T, coll *mongo.Collection, filter bson.D) int64 {
	t.Helper()
	var res bson.Raw
	err := coll.Database().RunCommand(context.Background(), bson.D{{Key: "count", Value: coll.Name()}, {Key: "query", Value: filter}}).Decode(&res)
	if err != nil {
		t.Fatal(err)
	}
	return res.Lookup("n").AsInt64()
}

func TestInsertFindSortSkipLimit(t *testing.T) {
	_, d := open(t)
	c := ctx(t)
	coll := d.Collection("docs")
	var docs []any
	for i := 0; i < 250; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "v", Value: i % 7}, {Key: "s", Value: "x"}})
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	// The driver drains the cursor with getMore after the first batch of 101.
	cur, err := coll.Find(c, bson.D{{Key: "v", Value: bson.D{{Key: "$gte", Value: 3}}}},
		options.Find().SetSort(bson.D{{Key: "v", Value: -1}, {Key: "_id", Value: 1}}).SetSkip(5).SetLimit(120).SetBatchSize(50))
	if err != nil {
		t.Fatal(err)
	}
	var got []struct {
		ID int `bson:"_id"`
		V  int `bson:"v"`
	}
	if err := cur.All(c, &got); err != nil {
		t.Fatal(err)
	}
	// Expected: values 6,5,4,3 in that order, _id ascending within, skip 5.
	var want []int
	for v := 6; v >= 3; v-- {
		for i := 0; i < 250; i++ {
			if i%7 == v {
				want = append(want, i)
			}
		}
	}
	want = want[5:125]
	if len(got) != len(want) {
		t.Fatalf("got %d docs, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i] {
			t.Fatalf("doc %d: got _id %d want %d", i, got[i].ID, want[i])
		}
	}
}

func TestCursorExhaustedBatchHasIDZero(t *testing.T) {
	_, d := open(t)
	c := ctx(t)
	coll := d.Collection("c")
	for i := 0; i < 3; i++ {
		if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	var res bson.Raw
	err := d.RunCommand(c, bson.D{{Key: "find", Value: "c"}, {Key: "batchSize", Value: 2}}).Decode(&res)
	if err != nil {
		t.Fatal(err)
	}
	id := res.Lookup("cursor", "id").Int64()
	if id == 0 {
		t.Fatal("first batch of 2 out of 3 must leave the cursor open")
	}
	// No deadline on the raw getMore: the driver turns a context deadline into
	// maxTimeMS, which mongod (and Lode) refuse on a non-awaitData getMore.
	err = d.RunCommand(context.Background(), bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: 2}}).Decode(&res)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Lookup("cursor", "id").Int64(); got != 0 {
		t.Fatalf("the batch that exhausts the cursor must carry id 0, got %d", got)
	}
	n, _ := res.Lookup("cursor", "nextBatch").Array().Values()
	if len(n) != 1 {
		t.Fatalf("nextBatch has %d docs, want 1", len(n))
	}
	// The cursor is gone: getMore again is CursorNotFound (43).
	err = d.RunCommand(context.Background(), bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}}).Err()
	if ce := cmdErr(t, err); ce.Code != 43 || ce.Name != "CursorNotFound" {
		t.Fatalf("got %v", ce)
	}
}

func TestDuplicateKeyWriteErrors(t *testing.T) {
	_, d := open(t)
	c := ctx(t)
	coll := d.Collection("dup")
	_, err := coll.InsertMany(c, []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "_id", Value: 3}}},
		options.InsertMany().SetOrdered(false))
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) {
		t.Fatalf("want BulkWriteException, got %v", err)
	}
	if len(bwe.WriteErrors) != 2 {
		t.Fatalf("want 2 write errors, got %v", bwe.WriteErrors)
	}
	we := bwe.WriteErrors[0]
	if we.Index != 1 || we.Code != 11000 {
		t.Fatalf("first write error: %+v", we)
	}
	if want := "E11000 duplicate key error collection: test.dup index: _id_ dup key: { _id: 1 }"; we.Message != want {
		t.Fatalf("errmsg %q, want %q", we.Message, want)
	}
	if kp := we.Raw.Lookup("keyPattern"); kp.String() != `{"_id": {"$numberInt":"1"}}` {
		t.Fatalf("keyPattern %s", kp)
	}
	if kv := we.Raw.Lookup("keyValue"); kv.String() != `{"_id": {"$numberInt":"1"}}` {
		t.Fatalf("keyValue %s", kv)
	}
	if bwe.WriteErrors[1].Index != 3 {
		t.Fatalf("second error index %d, want 3", bwe.WriteErrors[1].Index)
	}
	n := count(t, coll, bson.D{})
	if n != 3 {
		t.Fatalf("unordered insert must keep going: %d docs, want 3", n)
	}
	// Ordered stops at the first error.
	_, err = d.Collection("dup2").InsertMany(c, []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}})
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 {
		t.Fatalf("ordered: %v", err)
	}
	if n := count(t, d.Collection("dup2"), bson.D{}); n != 1 {
		t.Fatalf("ordered insert must stop: %d docs, want 1", n)
	}
}

func TestUpdateUpsertDelete(t *testing.T) {
	_, d := open(t)
	c := ctx(t)
	coll := d.Collection("u")
	if _, err := coll.InsertMany(c, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}}, bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: 1}}, bson.D{{Key: "_id", Value: 3}, {Key: "a", Value: 2}},
	}); err != nil {
		t.Fatal(err)
	}
	r, err := coll.UpdateMany(c, bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: int32(5)}}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.MatchedCount != 2 || r.ModifiedCount != 2 {
		t.Fatalf("UpdateMany: %+v", r)
	}
	var doc bson.D
	if err := coll.FindOne(c, bson.D{{Key: "_id", Value: 1}}).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc[2].Key != "n" || doc[2].Value != int32(5) {
		t.Fatalf("$inc on a missing field creates an int32: %v", doc)
	}
	// Upsert with the _id from the query.
	r, err = coll.UpdateOne(c, bson.D{{Key: "_id", Value: 10}}, bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: "x"}}}}, options.UpdateOne().SetUpsert(true))
	if err != nil {
		t.Fatal(err)
	}
	if r.UpsertedCount != 1 || r.UpsertedID != int32(10) {
		t.Fatalf("upsert: %+v", r)
	}
	// Changing _id is refused with 66.
	_, err = coll.UpdateOne(c, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "_id", Value: 99}}}})
	var we mongo.WriteException
	if !errors.As(err, &we) || len(we.WriteErrors) != 1 || we.WriteErrors[0].Code != 66 {
		t.Fatalf("changing _id: %v", err)
	}
	// $inc with a string is 14 TypeMismatch.
	_, err = coll.UpdateOne(c, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "a", Value: "x"}}}})
	if !errors.As(err, &we) || we.WriteErrors[0].Code != 14 {
		t.Fatalf("$inc with a string: %v", err)
	}
	dr, err := coll.DeleteOne(c, bson.D{{Key: "a", Value: 1}})
	if err != nil || dr.DeletedCount != 1 {
		t.Fatalf("DeleteOne: %v %+v", err, dr)
	}
	dr, err = coll.DeleteMany(c, bson.D{})
	if err != nil || dr.DeletedCount != 3 {
		t.Fatalf("DeleteMany: %v %+v", err, dr)
	}
}

func TestBadFilterAndUnknownCommand(t *testing.T) {
	_, d := open(t)
	c := ctx(t)
	coll := d.Collection("e")
	_, _ = coll.InsertOne(c, bson.D{{Key: "a", Value: 1}})
	_, err := coll.Find(c, bson.D{{Key: "$foo", Value: 1}})
	if ce := cmdErr(t, err); ce.Code != 2 || ce.Name != "BadValue" {
		t.Fatalf("{$foo: 1}: %+v", ce)
	}
	err = d.RunCommand(c, bson.D{{Key: "noSuchCommand", Value: 1}}).Err()
	if ce := cmdErr(t, err); ce.Code != 59 || ce.Name != "CommandNotFound" {
		t.Fatalf("unknown command: %+v", ce)
	}
}

func TestCountDistinctFindAndModify(t *testing.T) {
	_, d := open(t)
	c := ctx(t)
	coll := d.Collection("q")
	for i := 0; i < 10; i++ {
		_, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: i}, {Key: "cat", Value: i % 3}, {Key: "tags", Value: bson.A{"a", i % 2}}, {Key: "startTime", Value: nil}, {Key: "createdOn", Value: i}})
		if err != nil {
			t.Fatal(err)
		}
	}
	var res bson.Raw
	if err := d.RunCommand(c, bson.D{{Key: "count", Value: "q"}, {Key: "query", Value: bson.D{{Key: "cat", Value: 1}}}}).Decode(&res); err != nil {
		t.Fatal(err)
	}
	if n := res.Lookup("n").Int32(); n != 3 {
		t.Fatalf("count: %d", n)
	}
	vals, err := coll.Distinct(c, "tags", bson.D{}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if vals.String() != `["a",{"$numberInt":"0"},{"$numberInt":"1"}]` && vals.String() != `[{"$numberInt":"0"},{"$numberInt":"1"},"a"]` {
		t.Fatalf("distinct flattens arrays: %s", vals)
	}
	var job bson.D
	err = coll.FindOneAndUpdate(c, bson.D{{Key: "startTime", Value: nil}}, bson.D{{Key: "$set", Value: bson.D{{Key: "startTime", Value: 1}}}},
		options.FindOneAndUpdate().SetSort(bson.D{{Key: "createdOn", Value: 1}}).SetReturnDocument(options.After)).Decode(&job)
	if err != nil {
		t.Fatal(err)
	}
	if job[0].Value != int32(0) || job[3].Value != int32(1) {
		t.Fatalf("FIFO claim: %v", job)
	}
}

func TestCollectionsAndDatabases(t *testing.T) {
	db, d := open(t)
	c := ctx(t)
	if err := d.CreateCollection(c, "made"); err != nil {
		t.Fatal(err)
	}
	err := d.CreateCollection(c, "made", options.CreateCollection().SetCapped(true).SetSizeInBytes(4096))
	if ce := cmdErr(t, err); ce.Code != 48 {
		t.Fatalf("create existing with other options: %+v", ce)
	}
	names, err := d.ListCollectionNames(c, bson.D{})
	if err != nil || len(names) != 1 || names[0] != "made" {
		t.Fatalf("ListCollectionNames: %v %v", names, err)
	}
	if err := db.Client().Database("admin").RunCommand(c, bson.D{{Key: "renameCollection", Value: "test.made"}, {Key: "to", Value: "test.renamed"}}).Err(); err != nil {
		t.Fatal(err)
	}
	names, _ = d.ListCollectionNames(c, bson.D{})
	if len(names) != 1 || names[0] != "renamed" {
		t.Fatalf("after rename: %v", names)
	}
	if err := d.Collection("renamed").Drop(c); err != nil {
		t.Fatal(err)
	}
	// 7.0: dropping a missing collection succeeds.
	if err := d.Collection("renamed").Drop(c); err != nil {
		t.Fatal(err)
	}
	_, _ = d.Collection("x").InsertOne(c, bson.D{{Key: "a", Value: 1}})
	dbs, err := db.Client().ListDatabaseNames(c, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range dbs {
		found = found || n == "test"
	}
	if !found {
		t.Fatalf("listDatabases: %v", dbs)
	}
	if err := d.Drop(c); err != nil {
		t.Fatal(err)
	}
	names, _ = d.ListCollectionNames(c, bson.D{})
	if len(names) != 0 {
		t.Fatalf("after dropDatabase: %v", names)
	}
}

func TestDataSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	c := ctx(t)
	db, err := lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	coll := db.Client().Database("p").Collection("c")
	for i := 0; i < 100; i++ {
		if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: i}, {Key: "v", Value: i * i}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := coll.UpdateOne(c, bson.D{{Key: "_id", Value: 7}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: "seven"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteOne(c, bson.D{{Key: "_id", Value: 8}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	coll = db.Client().Database("p").Collection("c")
	n := count(t, coll, bson.D{})
	if n != 99 {
		t.Fatalf("after reopen: %d docs", n)
	}
	var doc struct {
		V any `bson:"v"`
	}
	if err := coll.FindOne(c, bson.D{{Key: "_id", Value: 7}}).Decode(&doc); err != nil || doc.V != "seven" {
		t.Fatalf("updated doc after reopen: %v %v", doc, err)
	}
	// New inserts get fresh record ids and do not collide with old ones.
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 1000}}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, coll, bson.D{}); n != 100 {
		t.Fatalf("after insert: %d", n)
	}
}

// An aggregate cursor outlives its command: getMore must work after the
// aggregate's maxTimeMS context (the driver derives it from ctx) is gone.
func TestAggregateGetMoreAfterDeadline(t *testing.T) {
	_, d := open(t)
	c := ctx(t)
	coll := d.Collection("agg")
	var docs []any
	for i := 0; i < 30; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "g", Value: i % 3}})
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Aggregate(c, bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "g", Value: bson.D{{Key: "$gte", Value: 1}}}}}}},
		options.Aggregate().SetBatchSize(4))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for cur.Next(c) {
		n++
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 20 {
		t.Fatalf("got %d docs, want 20", n)
	}
}

// TestCloseTwice: a second Close returns at once with the first's result
// (it used to wait forever for a server that had already stopped).
func TestCloseTwice(t *testing.T) {
	db, err := lode.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- db.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("second Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second Close hangs")
	}
}
