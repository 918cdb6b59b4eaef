package crud_test

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

func TestInsertFindSortSkipLimit(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
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

func TestDuplicateKeyWriteErrors(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
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
	n := testenv.Count(t, coll, bson.D{})
	if n != 3 {
		t.Fatalf("unordered insert must keep going: %d docs, want 3", n)
	}
	// Ordered stops at the first error.
	_, err = d.Collection("dup2").InsertMany(c, []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}})
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 {
		t.Fatalf("ordered: %v", err)
	}
	if n := testenv.Count(t, d.Collection("dup2"), bson.D{}); n != 1 {
		t.Fatalf("ordered insert must stop: %d docs, want 1", n)
	}
}

func TestUpdateUpsertDelete(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
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
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("e")
	_, _ = coll.InsertOne(c, bson.D{{Key: "a", Value: 1}})
	_, err := coll.Find(c, bson.D{{Key: "$foo", Value: 1}})
	if ce := testenv.CmdErr(t, err); ce.Code != 2 || ce.Name != "BadValue" {
		t.Fatalf("{$foo: 1}: %+v", ce)
	}
	err = d.RunCommand(c, bson.D{{Key: "noSuchCommand", Value: 1}}).Err()
	if ce := testenv.CmdErr(t, err); ce.Code != 59 || ce.Name != "CommandNotFound" {
		t.Fatalf("unknown command: %+v", ce)
	}
}

func TestCountDistinctFindAndModify(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
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

// TestDollarPrefixedIDField checks that a $-prefixed field name inside
// _id is refused (mongod 5.0+ allows them elsewhere, not in _id), while
// one at another place is stored.
func TestDollarPrefixedIDField(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("dollars")
	_, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: bson.D{{Key: "$a", Value: 1}}}})
	if we := testenv.WriteErr(t, err); we.Code != 52 {
		t.Fatalf("$-prefixed key in _id: %v, want DollarPrefixedFieldName (52)", err)
	}
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.D{{Key: "$b", Value: 1}}}}); err != nil {
		t.Fatalf("$-prefixed key outside _id: %v", err)
	}
	if n := testenv.Count(t, coll, bson.D{}); n != 1 {
		t.Fatalf("%d documents, want 1", n)
	}
}
