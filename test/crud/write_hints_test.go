package crud_test

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// hintColl fills a collection of 10 documents where only _id 0, 3, 6 and 9
// have the field s, indexed by the sparse index s_1. A write hinted with
// s_1 and an empty filter can only see those four documents, so its
// result shows whether the hint reached the executor.
func hintColl(t *testing.T, d *mongo.Database, name string) *mongo.Collection {
	t.Helper()
	c := testenv.Ctx(t)
	coll := d.Collection(name)
	var docs []any
	for i := 0; i < 10; i++ {
		doc := bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i}}
		if i%3 == 0 {
			doc = append(doc, bson.E{Key: "s", Value: i})
		}
		docs = append(docs, doc)
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.Indexes().CreateMany(c, []mongo.IndexModel{
		{Keys: bson.D{{Key: "s", Value: 1}}, Options: options.Index().SetSparse(true)},
		{Keys: bson.D{{Key: "a", Value: 1}}},
	}); err != nil {
		t.Fatal(err)
	}
	return coll
}

// hintedIXSCAN returns the IXSCAN of an explain reply's executionStages
// and checks that the winning plan scans indexName.
func hintedIXSCAN(t *testing.T, res bson.Raw, indexName string) bson.Raw {
	t.Helper()
	wp := res.Lookup("queryPlanner", "winningPlan").Document()
	ix := testenv.FindStage(wp, "IXSCAN")
	if ix == nil || ix.Lookup("indexName").StringValue() != indexName {
		t.Fatalf("winning plan %v does not scan %s", wp, indexName)
	}
	ex := testenv.FindStage(res.Lookup("executionStats", "executionStages").Document(), "IXSCAN")
	if ex == nil {
		t.Fatalf("executionStages without IXSCAN: %v", res.Lookup("executionStats"))
	}
	return ex
}

// TestWriteHintUsesIndex checks that update, delete and findAndModify run
// with the hinted index, as their explain says.
func TestWriteHintUsesIndex(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)

	t.Run("update", func(t *testing.T) {
		coll := hintColl(t, d, "hu")
		stmt := bson.D{{Key: "q", Value: bson.D{}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "u", Value: 1}}}}},
			{Key: "multi", Value: true}, {Key: "hint", Value: "s_1"}}
		ex := hintedIXSCAN(t, testenv.Explain(t, d, bson.D{{Key: "update", Value: "hu"}, {Key: "updates", Value: bson.A{stmt}}}, "executionStats"), "s_1")
		if n := ex.Lookup("nReturned").AsInt64(); n != 4 {
			t.Fatalf("explain IXSCAN nReturned %d, want 4", n)
		}
		res, err := coll.UpdateMany(c, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "u", Value: 1}}}},
			options.UpdateMany().SetHint("s_1"))
		if err != nil {
			t.Fatal(err)
		}
		if res.MatchedCount != 4 || res.ModifiedCount != 4 {
			t.Fatalf("matched %d modified %d, want 4 4 (the sparse index's documents)", res.MatchedCount, res.ModifiedCount)
		}
		if n := testenv.Count(t, coll, bson.D{{Key: "u", Value: 1}, {Key: "s", Value: bson.D{{Key: "$exists", Value: true}}}}); n != 4 {
			t.Fatalf("%d updated documents have s, want 4", n)
		}
		// A key-pattern hint works the same; updateOne takes the first
		// entry of the hinted index in its order.
		if _, err := coll.UpdateOne(c, bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 4}}}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "one", Value: true}}}}, options.UpdateOne().SetHint(bson.D{{Key: "s", Value: 1}})); err != nil {
			t.Fatal(err)
		}
		var got bson.M
		if err := coll.FindOne(c, bson.D{{Key: "one", Value: true}}).Decode(&got); err != nil {
			t.Fatal(err)
		}
		if got["_id"] != int32(6) {
			t.Fatalf("updateOne with hint s_1 changed %v, want _id 6", got)
		}
	})

	t.Run("delete", func(t *testing.T) {
		coll := hintColl(t, d, "hd")
		stmt := bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: 0}, {Key: "hint", Value: bson.D{{Key: "s", Value: 1}}}}
		ex := hintedIXSCAN(t, testenv.Explain(t, d, bson.D{{Key: "delete", Value: "hd"}, {Key: "deletes", Value: bson.A{stmt}}}, "executionStats"), "s_1")
		if n := ex.Lookup("nReturned").AsInt64(); n != 4 {
			t.Fatalf("explain IXSCAN nReturned %d, want 4", n)
		}
		res, err := coll.DeleteMany(c, bson.D{}, options.DeleteMany().SetHint(bson.D{{Key: "s", Value: 1}}))
		if err != nil {
			t.Fatal(err)
		}
		if res.DeletedCount != 4 {
			t.Fatalf("deleted %d, want 4", res.DeletedCount)
		}
		if n := testenv.Count(t, coll, bson.D{}); n != 6 {
			t.Fatalf("%d left, want 6", n)
		}
		if n := testenv.Count(t, coll, bson.D{{Key: "s", Value: bson.D{{Key: "$exists", Value: true}}}}); n != 0 {
			t.Fatalf("%d documents with s left, want 0", n)
		}
	})

	t.Run("findAndModify", func(t *testing.T) {
		coll := hintColl(t, d, "hf")
		filter := bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 1}}}}
		cmd := bson.D{{Key: "findAndModify", Value: "hf"}, {Key: "query", Value: filter},
			{Key: "update", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "f", Value: 1}}}}}, {Key: "hint", Value: "s_1"}}
		hintedIXSCAN(t, testenv.Explain(t, d, cmd, "executionStats"), "s_1")
		var got bson.M
		if err := coll.FindOneAndUpdate(c, filter, bson.D{{Key: "$set", Value: bson.D{{Key: "f", Value: 1}}}},
			options.FindOneAndUpdate().SetHint("s_1").SetReturnDocument(options.After)).Decode(&got); err != nil {
			t.Fatal(err)
		}
		// a >= 1 in s_1 order: _id 3 is the first document with s.
		if got["_id"] != int32(3) || got["f"] != int32(1) {
			t.Fatalf("findOneAndUpdate with hint s_1 returned %v, want _id 3", got)
		}
		if err := coll.FindOneAndDelete(c, filter, options.FindOneAndDelete().SetHint("s_1")).Decode(&got); err != nil {
			t.Fatal(err)
		}
		if got["_id"] != int32(3) {
			t.Fatalf("findOneAndDelete with hint s_1 removed %v, want _id 3", got)
		}
	})
}

// TestWriteHintUnknownIndex checks MongoDB's BadValue for a hint naming no
// index, and FailedToParse for a hint that is neither a string nor an
// object, on update, delete and findAndModify.
func TestWriteHintUnknownIndex(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := hintColl(t, d, "hx")
	const msg = "hint provided does not correspond to an existing index"
	check := func(name string, err error, code int, want string) {
		t.Helper()
		got, m := testenv.ErrCode(t, err)
		if got != code || !strings.Contains(m, want) {
			t.Errorf("%s: got %d %q, want %d containing %q", name, got, m, code, want)
		}
	}
	_, err := coll.UpdateOne(c, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}, options.UpdateOne().SetHint("nosuch"))
	check("updateOne", err, 2, msg)
	_, err = coll.UpdateMany(c, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}, options.UpdateMany().SetHint(bson.D{{Key: "zz", Value: 1}}))
	check("updateMany", err, 2, msg)
	_, err = coll.DeleteOne(c, bson.D{}, options.DeleteOne().SetHint("nosuch"))
	check("deleteOne", err, 2, msg)
	_, err = coll.DeleteMany(c, bson.D{}, options.DeleteMany().SetHint("nosuch"))
	check("deleteMany", err, 2, msg)
	err = coll.FindOneAndUpdate(c, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}, options.FindOneAndUpdate().SetHint("nosuch")).Err()
	check("findOneAndUpdate", err, 2, msg)
	err = coll.FindOneAndDelete(c, bson.D{}, options.FindOneAndDelete().SetHint("nosuch")).Err()
	check("findOneAndDelete", err, 2, msg)
	if n := testenv.Count(t, coll, bson.D{{Key: "x", Value: 1}}); n != 0 {
		t.Fatalf("a write with a bad hint changed %d documents", n)
	}
	if n := testenv.Count(t, coll, bson.D{}); n != 10 {
		t.Fatalf("a delete with a bad hint removed documents: %d left", n)
	}
	for _, cmd := range []bson.D{
		{{Key: "update", Value: "hx"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}}, {Key: "hint", Value: 5}}}}},
		{{Key: "delete", Value: "hx"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: 0}, {Key: "hint", Value: 5}}}}},
		{{Key: "findAndModify", Value: "hx"}, {Key: "query", Value: bson.D{}}, {Key: "remove", Value: true}, {Key: "hint", Value: 5}},
	} {
		err := d.RunCommand(c, cmd).Err()
		ce := testenv.CmdErr(t, err)
		if ce.Code != 9 || ce.Message != "Hint must be a string or an object" {
			t.Errorf("%s with hint 5: %d %q, want 9", cmd[0].Key, ce.Code, ce.Message)
		}
	}
}
