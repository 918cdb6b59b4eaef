package crud_test

import (
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestPipelineUpdateDocsExamples runs the examples of MongoDB's "Updates
// with Aggregation Pipeline" page and checks the documented results.
func TestPipelineUpdateDocsExamples(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	old := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)

	t.Run("set with $$NOW", func(t *testing.T) {
		coll := d.Collection("students")
		if _, err := coll.InsertMany(c, []any{
			bson.D{{Key: "_id", Value: 1}, {Key: "test1", Value: 95}, {Key: "test2", Value: 92}, {Key: "test3", Value: 90}, {Key: "modified", Value: old}},
			bson.D{{Key: "_id", Value: 3}, {Key: "test1", Value: 95}, {Key: "test2", Value: 110}, {Key: "modified", Value: old}},
		}); err != nil {
			t.Fatal(err)
		}
		before := time.Now().Add(-time.Second)
		res, err := coll.UpdateOne(c, bson.D{{Key: "_id", Value: 3}},
			bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "test3", Value: 98}, {Key: "modified", Value: "$$NOW"}}}}})
		if err != nil {
			t.Fatal(err)
		}
		if res.MatchedCount != 1 || res.ModifiedCount != 1 {
			t.Fatalf("matched %d modified %d, want 1 1", res.MatchedCount, res.ModifiedCount)
		}
		got := testenv.FindDoc(t, coll, 3)
		if got["test3"] != int32(98) {
			t.Fatalf("test3 = %v", got["test3"])
		}
		mod, ok := got["modified"].(bson.DateTime)
		if !ok || mod.Time().Before(before) {
			t.Fatalf("modified = %v, want $$NOW", got["modified"])
		}
		if testenv.FindDoc(t, coll, 1)["test3"] != int32(90) {
			t.Fatal("updateOne touched another document")
		}
	})

	t.Run("replaceRoot mergeObjects defaults", func(t *testing.T) {
		coll := d.Collection("students2")
		if _, err := coll.InsertMany(c, []any{
			bson.D{{Key: "_id", Value: 1}, {Key: "quiz1", Value: 8}, {Key: "test2", Value: 100}, {Key: "quiz2", Value: 9}, {Key: "modified", Value: old}},
			bson.D{{Key: "_id", Value: 2}, {Key: "quiz2", Value: 5}, {Key: "test1", Value: 80}, {Key: "test2", Value: 89}, {Key: "modified", Value: old}},
		}); err != nil {
			t.Fatal(err)
		}
		res, err := coll.UpdateMany(c, bson.D{}, bson.A{
			bson.D{{Key: "$replaceRoot", Value: bson.D{{Key: "newRoot", Value: bson.D{{Key: "$mergeObjects", Value: bson.A{
				bson.D{{Key: "quiz1", Value: 0}, {Key: "quiz2", Value: 0}, {Key: "test1", Value: 0}, {Key: "test2", Value: 0}}, "$$ROOT"}}}}}}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "modified", Value: "$$NOW"}}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.MatchedCount != 2 || res.ModifiedCount != 2 {
			t.Fatalf("matched %d modified %d", res.MatchedCount, res.ModifiedCount)
		}
		var raw bson.Raw
		if err := coll.FindOne(c, bson.D{{Key: "_id", Value: 2}}).Decode(&raw); err != nil {
			t.Fatal(err)
		}
		elems, _ := raw.Elements()
		if elems[0].Key() != "_id" {
			t.Fatalf("_id is not first: %v", raw)
		}
		got := testenv.FindDoc(t, coll, 2)
		if got["quiz1"] != int32(0) || got["quiz2"] != int32(5) || got["test1"] != int32(80) || got["test2"] != int32(89) {
			t.Fatalf("doc 2 = %v", got)
		}
		if got1 := testenv.FindDoc(t, coll, 1); got1["test1"] != int32(0) || got1["quiz1"] != int32(8) {
			t.Fatalf("doc 1 = %v", got1)
		}
	})

	t.Run("average and grade with $switch", func(t *testing.T) {
		coll := d.Collection("students3")
		if _, err := coll.InsertMany(c, []any{
			bson.D{{Key: "_id", Value: 1}, {Key: "tests", Value: bson.A{95, 92, 90}}},
			bson.D{{Key: "_id", Value: 2}, {Key: "tests", Value: bson.A{94, 88, 90}}},
			bson.D{{Key: "_id", Value: 3}, {Key: "tests", Value: bson.A{70, 75, 82}}},
		}); err != nil {
			t.Fatal(err)
		}
		branch := func(min int, g string) bson.D {
			return bson.D{{Key: "case", Value: bson.D{{Key: "$gte", Value: bson.A{"$average", min}}}}, {Key: "then", Value: g}}
		}
		_, err := coll.UpdateMany(c, bson.D{}, bson.A{
			bson.D{{Key: "$set", Value: bson.D{
				{Key: "average", Value: bson.D{{Key: "$trunc", Value: bson.A{bson.D{{Key: "$avg", Value: "$tests"}}, 0}}}},
				{Key: "modified", Value: "$$NOW"}}}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "grade", Value: bson.D{{Key: "$switch", Value: bson.D{
				{Key: "branches", Value: bson.A{branch(90, "A"), branch(80, "B"), branch(70, "C"), branch(60, "D")}},
				{Key: "default", Value: "F"}}}}}}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		for id, want := range map[int]struct {
			avg   float64
			grade string
		}{1: {92, "A"}, 2: {90, "A"}, 3: {75, "C"}} {
			got := testenv.FindDoc(t, coll, id)
			if got["average"] != want.avg || got["grade"] != want.grade {
				t.Errorf("_id %d: average %v grade %v, want %v %v", id, got["average"], got["grade"], want.avg, want.grade)
			}
		}
	})

	t.Run("concatArrays", func(t *testing.T) {
		coll := d.Collection("students4")
		if _, err := coll.InsertMany(c, []any{
			bson.D{{Key: "_id", Value: 1}, {Key: "quizzes", Value: bson.A{4, 6, 7}}},
			bson.D{{Key: "_id", Value: 2}, {Key: "quizzes", Value: bson.A{5}}},
		}); err != nil {
			t.Fatal(err)
		}
		_, err := coll.UpdateOne(c, bson.D{{Key: "_id", Value: 2}}, bson.A{
			bson.D{{Key: "$set", Value: bson.D{{Key: "quizzes", Value: bson.D{{Key: "$concatArrays", Value: bson.A{"$quizzes", bson.A{8, 6}}}}}}}}})
		if err != nil {
			t.Fatal(err)
		}
		q := testenv.FindDoc(t, coll, 2)["quizzes"].(bson.A)
		if len(q) != 3 || q[0] != int32(5) || q[1] != int32(8) || q[2] != int32(6) {
			t.Fatalf("quizzes = %v", q)
		}
	})

	t.Run("let variables in filter and pipeline", func(t *testing.T) {
		coll := d.Collection("cakeFlavors")
		if _, err := coll.InsertMany(c, []any{
			bson.D{{Key: "_id", Value: 1}, {Key: "flavor", Value: "chocolate"}},
			bson.D{{Key: "_id", Value: 2}, {Key: "flavor", Value: "strawberry"}},
			bson.D{{Key: "_id", Value: 3}, {Key: "flavor", Value: "cherry"}},
		}); err != nil {
			t.Fatal(err)
		}
		res, err := coll.UpdateOne(c,
			bson.D{{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{"$flavor", "$$targetFlavor"}}}}},
			bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "flavor", Value: "$$newFlavor"}}}}},
			options.UpdateOne().SetLet(bson.D{{Key: "targetFlavor", Value: "cherry"}, {Key: "newFlavor", Value: "orange"}}))
		if err != nil {
			t.Fatal(err)
		}
		if res.MatchedCount != 1 || testenv.FindDoc(t, coll, 3)["flavor"] != "orange" || testenv.FindDoc(t, coll, 1)["flavor"] != "chocolate" {
			t.Fatalf("res %+v, doc 3 %v", res, testenv.FindDoc(t, coll, 3))
		}
	})

	t.Run("unset and project", func(t *testing.T) {
		coll := d.Collection("proj")
		if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}, {Key: "b", Value: 2}, {Key: "c", Value: 3}}); err != nil {
			t.Fatal(err)
		}
		if _, err := coll.UpdateOne(c, bson.D{{Key: "_id", Value: 1}}, bson.A{bson.D{{Key: "$unset", Value: "b"}}}); err != nil {
			t.Fatal(err)
		}
		// $project without _id: the replacement keeps the stored _id.
		if _, err := coll.UpdateOne(c, bson.D{{Key: "_id", Value: 1}}, bson.A{bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}, {Key: "c", Value: 1}}}}}); err != nil {
			t.Fatal(err)
		}
		got := testenv.FindDoc(t, coll, 1)
		if len(got) != 2 || got["c"] != int32(3) {
			t.Fatalf("doc = %v, want {_id: 1, c: 3}", got)
		}
	})
}

// TestPipelineUpdateSemantics covers counts, upserts, findAndModify and
// the errors of pipeline-style updates.
func TestPipelineUpdateSemantics(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("p")
	if _, err := coll.InsertMany(c, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: 1}},
		bson.D{{Key: "_id", Value: 2}, {Key: "x", Value: 2}},
	}); err != nil {
		t.Fatal(err)
	}

	// nModified counts only documents the pipeline changed.
	res, err := coll.UpdateMany(c, bson.D{}, bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.MatchedCount != 2 || res.ModifiedCount != 1 {
		t.Fatalf("matched %d modified %d, want 2 1", res.MatchedCount, res.ModifiedCount)
	}

	// Upsert: the pipeline runs over the query's equality fields.
	res, err = coll.UpdateOne(c, bson.D{{Key: "_id", Value: 10}, {Key: "a", Value: 5}},
		bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: bson.D{{Key: "$add", Value: bson.A{"$a", 1}}}}}}}},
		options.UpdateOne().SetUpsert(true))
	if err != nil {
		t.Fatal(err)
	}
	if res.UpsertedID != int32(10) {
		t.Fatalf("upserted id %v", res.UpsertedID)
	}
	if got := testenv.FindDoc(t, coll, 10); got["a"] != int32(5) || got["b"] != int32(6) {
		t.Fatalf("upserted %v", got)
	}

	// findOneAndUpdate with a pipeline, before and after images.
	var before, after bson.M
	if err := coll.FindOneAndUpdate(c, bson.D{{Key: "_id", Value: 2}},
		bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: bson.D{{Key: "$multiply", Value: bson.A{"$x", 10}}}}}}}}).Decode(&before); err != nil {
		t.Fatal(err)
	}
	if _, has := before["y"]; has || before["x"] != int32(1) {
		t.Fatalf("before image %v", before)
	}
	if err := coll.FindOneAndUpdate(c, bson.D{{Key: "_id", Value: 2}},
		bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "y", Value: bson.D{{Key: "$add", Value: bson.A{"$y", 1}}}}}}}},
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&after); err != nil {
		t.Fatal(err)
	}
	if after["y"] != int32(11) {
		t.Fatalf("after image %v", after)
	}
	// findAndModify upsert with a pipeline and new: true.
	if err := coll.FindOneAndUpdate(c, bson.D{{Key: "_id", Value: 20}},
		bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "z", Value: "$_id"}}}}},
		options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.After)).Decode(&after); err != nil {
		t.Fatal(err)
	}
	if after["z"] != int32(20) {
		t.Fatalf("upserted image %v", after)
	}

	// Statement constants (c) through the update command.
	var reply bson.M
	if err := d.RunCommand(c, bson.D{{Key: "update", Value: "p"}, {Key: "updates", Value: bson.A{bson.D{
		{Key: "q", Value: bson.D{{Key: "_id", Value: 1}}},
		{Key: "u", Value: bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "k", Value: "$$kv"}}}}}},
		{Key: "c", Value: bson.D{{Key: "kv", Value: "const"}}},
	}}}}).Decode(&reply); err != nil {
		t.Fatal(err)
	}
	if testenv.FindDoc(t, coll, 1)["k"] != "const" {
		t.Fatalf("constant not applied: %v", testenv.FindDoc(t, coll, 1))
	}

	// $-prefixed top-level fields may be created by a pipeline.
	if _, err := coll.UpdateOne(c, bson.D{{Key: "_id", Value: 1}}, bson.A{bson.D{{Key: "$replaceWith", Value: bson.D{{Key: "$setField", Value: bson.D{
		{Key: "field", Value: bson.D{{Key: "$literal", Value: "$price"}}}, {Key: "input", Value: "$$ROOT"}, {Key: "value", Value: 7}}}}}}}); err != nil {
		t.Fatal(err)
	}
	if testenv.FindDoc(t, coll, 1)["$price"] != int32(7) {
		t.Fatalf("$price not set: %v", testenv.FindDoc(t, coll, 1))
	}

	errCases := []struct {
		name string
		u    any
		opts *options.UpdateOneOptionsBuilder
		code int
		msg  string
	}{
		{"stage not allowed", bson.A{bson.D{{Key: "$match", Value: bson.D{}}}}, nil, 72, "$match is not allowed to be used within an update"},
		{"group not allowed", bson.A{bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}}}}}, nil, 72, "$group is not allowed to be used within an update"},
		{"unknown stage", bson.A{bson.D{{Key: "$nope", Value: bson.D{}}}}, nil, 40324, "Unrecognized pipeline stage name: '$nope'"},
		{"_id changed", bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "_id", Value: 99}}}}}, nil, 66, "After applying the update, the (immutable) field '_id' was found to have been altered to _id: 99"},
		{"arrayFilters", bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}},
			options.UpdateOne().SetArrayFilters([]any{bson.D{{Key: "e", Value: 1}}}), 9, "arrayFilters may not be specified for pipeline-syle updates"},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.opts != nil {
				_, err = coll.UpdateOne(c, bson.D{{Key: "_id", Value: 2}}, tc.u, tc.opts)
			} else {
				_, err = coll.UpdateOne(c, bson.D{{Key: "_id", Value: 2}}, tc.u)
			}
			code, msg := testenv.ErrCode(t, err)
			if code != tc.code || (tc.msg != "" && msg != tc.msg) {
				t.Fatalf("got %d %q, want %d %q", code, msg, tc.code, tc.msg)
			}
		})
	}
	if got := testenv.FindDoc(t, coll, 2); got["y"] != int32(11) {
		t.Fatalf("a failed update changed the document: %v", got)
	}

	// Variable names follow mongod's rules: let names start lowercase.
	_, err = coll.UpdateOne(c, bson.D{{Key: "_id", Value: 2}}, bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: "$$Bad"}}}}},
		options.UpdateOne().SetLet(bson.D{{Key: "Bad", Value: 1}}))
	if code, msg := testenv.ErrCode(t, err); code != 16867 || msg != "'Bad' starts with an invalid character for a user variable name" {
		t.Fatalf("let Bad: %d %q", code, msg)
	}

	// c with an operator update is 51198.
	err = d.RunCommand(c, bson.D{{Key: "update", Value: "p"}, {Key: "updates", Value: bson.A{bson.D{
		{Key: "q", Value: bson.D{}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "k", Value: 1}}}}},
		{Key: "c", Value: bson.D{{Key: "kv", Value: 1}}},
	}}}}).Decode(&reply)
	if code, _ := testenv.ErrCode(t, err); code != 51198 {
		t.Fatalf("got %d, want write error 51198", code)
	}
}

// TestPipelineUpdateUnknownStageFailsCommand: mongod lite-parses every
// statement's pipeline once the batch has run (to count its stages), so
// an unknown or malformed stage fails the whole update command (ok: 0)
// after the statements before it were applied, while a known stage that
// an update does not allow stays that statement's write error. A stage
// that is not an object fails the command's parsing, before any write.
// (The drivers' command-logging specification test "Failed bulk write
// command log message includes operationId" expects the failed command.)
func TestPipelineUpdateUnknownStageFailsCommand(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("stages")
	if _, err := coll.InsertMany(c, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: 1}},
		bson.D{{Key: "_id", Value: 2}, {Key: "x", Value: 2}},
	}); err != nil {
		t.Fatal(err)
	}
	stmt := func(id int, u any) bson.D {
		return bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: id}}}, {Key: "u", Value: u}}
	}
	set := func(f string) bson.D { return bson.D{{Key: "$set", Value: bson.D{{Key: f, Value: 1}}}} }
	cases := []struct {
		name    string
		second  any
		code    int32
		msg     string
		applied bool // the first statement's $set is in the document afterwards
	}{
		{"unknown stage", bson.A{bson.D{{Key: "$invalidOperator", Value: true}}}, 40324, "Unrecognized pipeline stage name: '$invalidOperator'", true},
		{"two fields in a stage", bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "$unset", Value: "b"}}}, 40323,
			"A pipeline stage specification object must contain exactly one field.", true},
		{"a stage that is not an object", bson.A{1}, 14, "Each element of the 'pipeline' array must be an object", false},
	}
	for i, tc := range cases {
		field := "f" + string(rune('a'+i))
		var reply bson.M
		err := d.RunCommand(c, bson.D{{Key: "update", Value: "stages"}, {Key: "ordered", Value: false},
			{Key: "updates", Value: bson.A{stmt(1, set(field)), stmt(2, tc.second)}}}).Decode(&reply)
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != tc.code || ce.Message != tc.msg {
			t.Fatalf("%s: got %v (reply %v), want the command to fail with %d %q", tc.name, err, reply, tc.code, tc.msg)
		}
		if _, applied := testenv.FindDoc(t, coll, 1)[field]; applied != tc.applied {
			t.Fatalf("%s: first statement applied = %v, want %v", tc.name, applied, tc.applied)
		}
	}

	// A known stage an update does not allow: a write error, ok: 1.
	err := d.RunCommand(c, bson.D{{Key: "update", Value: "stages"}, {Key: "ordered", Value: false},
		{Key: "updates", Value: bson.A{stmt(1, set("g")), stmt(2, bson.A{bson.D{{Key: "$match", Value: bson.D{}}}})}}}).Err()
	var we mongo.WriteException
	if !errors.As(err, &we) || len(we.WriteErrors) != 1 || we.WriteErrors[0].Code != 72 || we.WriteErrors[0].Index != 1 {
		t.Fatalf("$match in an update: %v, want write error 72 at index 1 in an ok: 1 reply", err)
	}
	if _, ok := testenv.FindDoc(t, coll, 1)["g"]; !ok {
		t.Fatal("$match in an update: the first statement was not applied")
	}
}
