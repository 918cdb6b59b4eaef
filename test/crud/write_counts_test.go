package crud_test

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestFailedUpdateStatementNotCounted checks that a statement that fails
// adds nothing to n and nModified, in ordered and unordered batches.
func TestFailedUpdateStatementNotCounted(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("cnt")
	if _, err := coll.InsertMany(c, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: 1}},
		bson.D{{Key: "_id", Value: 2}, {Key: "v", Value: "str"}},
		bson.D{{Key: "_id", Value: 3}, {Key: "v", Value: 3}},
	}); err != nil {
		t.Fatal(err)
	}
	inc := bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 1}}}}
	stmts := bson.A{
		bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "u", Value: inc}},
		bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: 2}}}, {Key: "u", Value: inc}},
		bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: 3}}}, {Key: "u", Value: inc}},
	}
	for _, tc := range []struct {
		ordered bool
		n       int32
	}{{false, 2}, {true, 1}} {
		var reply bson.M
		err := d.RunCommand(c, bson.D{{Key: "update", Value: "cnt"}, {Key: "updates", Value: stmts}, {Key: "ordered", Value: tc.ordered}}).Decode(&reply)
		var we mongo.WriteException
		if !errors.As(err, &we) || len(we.WriteErrors) != 1 || we.WriteErrors[0].Index != 1 || we.WriteErrors[0].Code != 14 {
			t.Fatalf("ordered=%v: want one TypeMismatch write error at index 1, got %v", tc.ordered, err)
		}
		var raw bson.Raw = we.Raw
		if n := raw.Lookup("n").Int32(); n != tc.n {
			t.Errorf("ordered=%v: n = %d, want %d", tc.ordered, n, tc.n)
		}
		if n := raw.Lookup("nModified").Int32(); n != tc.n {
			t.Errorf("ordered=%v: nModified = %d, want %d", tc.ordered, n, tc.n)
		}
	}

	// The same through the driver's bulk API.
	models := []mongo.WriteModel{
		mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: 1}}).SetUpdate(inc),
		mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: 2}}).SetUpdate(inc),
		mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: 3}}).SetUpdate(inc),
	}
	res, err := coll.BulkWrite(c, models, options.BulkWrite().SetOrdered(false))
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 {
		t.Fatalf("unordered bulk: %v", err)
	}
	if res.MatchedCount != 2 || res.ModifiedCount != 2 {
		t.Fatalf("unordered bulk: matched %d modified %d, want 2 2", res.MatchedCount, res.ModifiedCount)
	}

	// A multi update that fails part-way counts nothing for its statement.
	_, err = coll.UpdateMany(c, bson.D{}, inc)
	var we mongo.WriteException
	if !errors.As(err, &we) || len(we.WriteErrors) != 1 {
		t.Fatalf("updateMany: %v", err)
	}
	if n := bson.Raw(we.Raw).Lookup("n").Int32(); n != 0 {
		t.Fatalf("failed updateMany: n = %d, want 0", n)
	}
}

// TestDollarPrefixedFieldsInUpdates follows MongoDB's "Dollar-Prefixed
// Field Names" rules: an upsert's insert may create a $-prefixed top-level
// field; an update of an existing document may not (operators or
// replacement); nested $-prefixed names are fine.
func TestDollarPrefixedFieldsInUpdates(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("expenses")
	upd := bson.D{{Key: "$set", Value: bson.D{{Key: "phone", Value: 25.17}, {Key: "$hotel", Value: 320.10}}}}
	filter := bson.D{{Key: "date", Value: "2021-07-07"}}

	res, err := coll.UpdateOne(c, filter, upd, options.UpdateOne().SetUpsert(true))
	if err != nil {
		t.Fatalf("upsert with $hotel: %v", err)
	}
	if res.UpsertedID == nil {
		t.Fatal("nothing upserted")
	}
	var got bson.M
	if err := coll.FindOne(c, filter).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got["$hotel"] != 320.10 || got["phone"] != 25.17 {
		t.Fatalf("upserted %v", got)
	}

	// The same update now matches the document: refused.
	_, err = coll.UpdateOne(c, filter, bson.D{{Key: "$set", Value: bson.D{{Key: "$hotel", Value: 1}}}}, options.UpdateOne().SetUpsert(true))
	const want = "The dollar ($) prefixed field '$hotel' in '$hotel' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith."
	if code, msg := testenv.ErrCode(t, err); code != 52 || msg != want {
		t.Fatalf("update of existing $hotel: %d %q", code, msg)
	}

	// Updating other fields of a document that has a $-prefixed field,
	// and setting nested $-prefixed names, is allowed.
	if _, err := coll.UpdateOne(c, filter, bson.D{{Key: "$set", Value: bson.D{{Key: "phone", Value: 1}, {Key: "address.$street", Value: "Elm"}}}}); err != nil {
		t.Fatalf("update beside $hotel: %v", err)
	}
	var raw bson.Raw
	if err := coll.FindOne(c, filter).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	if raw.Lookup("$hotel").Double() != 320.10 || raw.Lookup("address", "$street").StringValue() != "Elm" {
		t.Fatalf("after update: %v", raw)
	}

	// A replacement may not hold a $-prefixed top-level field, upsert or not.
	_, err = coll.ReplaceOne(c, bson.D{{Key: "date", Value: "2030-01-01"}}, bson.D{{Key: "a", Value: 1}, {Key: "$rooms", Value: 2}}, options.Replace().SetUpsert(true))
	if code, _ := testenv.ErrCode(t, err); code != 52 {
		t.Fatalf("replacement with $rooms: code %d, want 52", code)
	}
	if n := testenv.Count(t, coll, bson.D{}); n != 1 {
		t.Fatalf("%d documents, want 1", n)
	}
}
