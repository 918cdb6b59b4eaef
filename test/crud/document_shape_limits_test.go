package crud_test

import (
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// nestedDoc returns {a: {a: ... {a: leaf}}}, levels documents deep: as
// the value of a top-level field (level 1), its innermost field sits at
// level levels+1.
func nestedDoc(levels int, leaf any) any {
	var v any = leaf
	for i := 0; i < levels; i++ {
		v = bson.D{{Key: "a", Value: v}}
	}
	return v
}

// TestNestingDepthLimit checks mongod's storage depth limit of 180
// levels through the driver: an insert past it is a write error 15
// Overflow with fixDocumentForInsert's message (ordered batches stop
// there, unordered ones go on), an update or replacement past it fails
// with storage validation's message, empty innermost documents do not
// count, and a document at the limit is stored and read back whole.
func TestNestingDepthLimit(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("depth")

	// The innermost field is at level 180.
	atLimit := bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: nestedDoc(179, 1)}}
	if _, err := coll.InsertOne(c, atLimit); err != nil {
		t.Fatalf("document at the limit: %v", err)
	}
	// An empty document as the value of a field at level 180 does not
	// count as a level.
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: nestedDoc(179, bson.D{})}}); err != nil {
		t.Fatalf("empty innermost document: %v", err)
	}
	var got bson.Raw
	if err := coll.FindOne(c, bson.D{{Key: "_id", Value: 1}}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	want, _ := bson.Marshal(atLimit)
	if string(got) != string(want) {
		t.Fatalf("document at the limit read back differently")
	}
	// A query reaches the innermost field through a 180-part path.
	path := strings.TrimSuffix(strings.Repeat("a.", 180), ".")
	if n := testenv.Count(t, coll, bson.D{{Key: path, Value: 1}}); n != 1 {
		t.Fatalf("query on the 180-part path matched %d documents", n)
	}

	tooDeep := bson.D{{Key: "_id", Value: 3}, {Key: "a", Value: nestedDoc(179, bson.D{{Key: "x", Value: 1}})}}
	const insertMsg = "cannot insert document because it exceeds 180 levels of nesting"
	_, err := coll.InsertOne(c, tooDeep)
	if we := testenv.WriteErr(t, err); we.Code != 15 || we.Message != insertMsg {
		t.Fatalf("insert past the limit: %d %q", we.Code, we.Message)
	}
	// Arrays count as levels too.
	arr := any(1)
	for i := 0; i < 180; i++ {
		arr = bson.A{arr}
	}
	_, err = coll.InsertOne(c, bson.D{{Key: "_id", Value: 4}, {Key: "arr", Value: arr}})
	if we := testenv.WriteErr(t, err); we.Code != 15 {
		t.Fatalf("array nesting past the limit: %v", err)
	}
	_, err = coll.InsertMany(c, []any{bson.D{{Key: "_id", Value: 10}}, tooDeep, bson.D{{Key: "_id", Value: 11}}})
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Index != 1 || bwe.WriteErrors[0].Code != 15 {
		t.Fatalf("ordered insertMany: %v", err)
	}
	_, err = coll.InsertMany(c, []any{tooDeep, bson.D{{Key: "_id", Value: 12}}}, options.InsertMany().SetOrdered(false))
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Index != 0 || bwe.WriteErrors[0].Code != 15 {
		t.Fatalf("unordered insertMany: %v", err)
	}
	if n := testenv.Count(t, coll, bson.D{}); n != 4 {
		t.Fatalf("want documents 1, 2, 10 and 12 stored, have %d", n)
	}

	// Updates: the result is checked, and the stored document stays.
	const updateMsg = "Document exceeds maximum nesting depth of 180"
	_, err = coll.UpdateOne(c, bson.D{{Key: "_id", Value: 10}}, bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: nestedDoc(180, 1)}}}})
	if we := testenv.WriteErr(t, err); we.Code != 15 || we.Message != updateMsg {
		t.Fatalf("$set past the limit: %d %q", we.Code, we.Message)
	}
	_, err = coll.ReplaceOne(c, bson.D{{Key: "_id", Value: 10}}, bson.D{{Key: "b", Value: nestedDoc(180, 1)}})
	if we := testenv.WriteErr(t, err); we.Code != 15 || we.Message != updateMsg {
		t.Fatalf("replacement past the limit: %d %q", we.Code, we.Message)
	}
	_, err = coll.UpdateOne(c, bson.D{{Key: "_id", Value: 20}}, bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: nestedDoc(180, 1)}}}},
		options.UpdateOne().SetUpsert(true))
	if we := testenv.WriteErr(t, err); we.Code != 15 || we.Message != updateMsg {
		t.Fatalf("upsert past the limit: %d %q", we.Code, we.Message)
	}
	err = coll.FindOneAndUpdate(c, bson.D{{Key: "_id", Value: 10}}, bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: nestedDoc(180, 1)}}}}).Err()
	if ce := testenv.CmdErr(t, err); ce.Code != 15 || ce.Message != updateMsg {
		t.Fatalf("findAndModify past the limit: %+v", ce)
	}
	if _, err := coll.UpdateOne(c, bson.D{{Key: "_id", Value: 10}}, bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: nestedDoc(179, 1)}}}}); err != nil {
		t.Fatalf("$set at the limit: %v", err)
	}
	if n := testenv.Count(t, coll, bson.D{}); n != 4 {
		t.Fatalf("failed updates changed the collection: %d documents", n)
	}
}

// TestDuplicateIDRefused checks that a document with two _id fields is
// refused as mongod refuses it: an insert with BadValue "can't have
// multiple _id fields in one document" as a per-document write error
// (ordered batches stop, unordered ones go on), a replacement or upsert
// with storage validation's "Can't have multiple _id fields in one
// document"; nothing is stored.
func TestDuplicateIDRefused(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("dupid")
	dup := bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: 1}, {Key: "_id", Value: 2}}
	const insertMsg = "can't have multiple _id fields in one document"
	_, err := coll.InsertOne(c, dup)
	if we := testenv.WriteErr(t, err); we.Code != 2 || we.Message != insertMsg {
		t.Fatalf("insert: %d %q", we.Code, we.Message)
	}
	// A late second _id, past the first field.
	_, err = coll.InsertOne(c, bson.D{{Key: "x", Value: 1}, {Key: "_id", Value: 5}, {Key: "y", Value: 1}, {Key: "_id", Value: 6}})
	if we := testenv.WriteErr(t, err); we.Code != 2 || we.Message != insertMsg {
		t.Fatalf("insert with late _ids: %d %q", we.Code, we.Message)
	}
	_, err = coll.InsertMany(c, []any{bson.D{{Key: "_id", Value: 10}}, dup, bson.D{{Key: "_id", Value: 11}}})
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 1 || bwe.WriteErrors[0].Index != 1 || bwe.WriteErrors[0].Code != 2 ||
		bwe.WriteErrors[0].Message != insertMsg {
		t.Fatalf("ordered insertMany: %v", err)
	}
	_, err = coll.InsertMany(c, []any{dup, bson.D{{Key: "_id", Value: 12}}, dup}, options.InsertMany().SetOrdered(false))
	if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 2 || bwe.WriteErrors[0].Index != 0 || bwe.WriteErrors[1].Index != 2 {
		t.Fatalf("unordered insertMany: %v", err)
	}
	if n := testenv.Count(t, coll, bson.D{}); n != 2 {
		t.Fatalf("want _id 10 and 12 stored, have %d documents", n)
	}
	cur, err := coll.Find(c, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{1, 2}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(c, &docs); err != nil || len(docs) != 0 {
		t.Fatalf("refused documents are readable: %d %v", len(docs), err)
	}

	const updateMsg = "Can't have multiple _id fields in one document"
	_, err = coll.ReplaceOne(c, bson.D{{Key: "_id", Value: 10}}, bson.D{{Key: "_id", Value: 10}, {Key: "x", Value: 1}, {Key: "_id", Value: 3}})
	if we := testenv.WriteErr(t, err); we.Code != 2 || we.Message != updateMsg {
		t.Fatalf("replacement: %d %q", we.Code, we.Message)
	}
	_, err = coll.ReplaceOne(c, bson.D{{Key: "_id", Value: 30}}, bson.D{{Key: "_id", Value: 30}, {Key: "_id", Value: 31}}, options.Replace().SetUpsert(true))
	if we := testenv.WriteErr(t, err); we.Code != 2 || we.Message != updateMsg {
		t.Fatalf("upsert replacement: %d %q", we.Code, we.Message)
	}
	if n := testenv.Count(t, coll, bson.D{}); n != 2 {
		t.Fatalf("failed replacements changed the collection: %d documents", n)
	}
}

// TestInvalidIDRefusedInBatches checks that an insertMany refuses the _id
// values mongod does not store (an array, a regex) with BadValue per
// document, whether every document has its _id first (the case the wire
// layer vouches for and the insert does not search) or some have it later.
func TestInvalidIDRefusedInBatches(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("badids")
	regex := bson.Regex{Pattern: "x", Options: ""}
	for _, batch := range []struct {
		name string
		docs []any
	}{
		{"each _id first", []any{
			bson.D{{Key: "_id", Value: bson.A{1}}, {Key: "a", Value: 1}},
			bson.D{{Key: "_id", Value: regex}},
			bson.D{{Key: "_id", Value: 1}},
		}},
		{"an _id later", []any{
			bson.D{{Key: "a", Value: 1}, {Key: "_id", Value: bson.A{2}}},
			bson.D{{Key: "_id", Value: regex}},
			bson.D{{Key: "b", Value: 1}, {Key: "_id", Value: 2}},
		}},
	} {
		_, err := coll.InsertMany(c, batch.docs, options.InsertMany().SetOrdered(false))
		var bwe mongo.BulkWriteException
		if !errors.As(err, &bwe) || len(bwe.WriteErrors) != 2 {
			t.Fatalf("%s: %v, want two write errors", batch.name, err)
		}
		for i, want := range []struct {
			index int
			msg   string
		}{{0, "can't use an array for _id"}, {1, "can't use a regex for _id"}} {
			we := bwe.WriteErrors[i]
			if we.Index != want.index || we.Code != 2 || we.Message != want.msg {
				t.Errorf("%s: write error %d: index %d code %d %q, want index %d code 2 %q",
					batch.name, i, we.Index, we.Code, we.Message, want.index, want.msg)
			}
		}
	}
	if n := testenv.Count(t, coll, bson.D{}); n != 2 {
		t.Fatalf("want _id 1 and 2 stored, have %d documents", n)
	}
}
