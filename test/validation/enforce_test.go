// Package validation tests collection document validation: the
// validator, validationLevel and validationAction options of create and
// collMod, and bypassDocumentValidation. Expected results follow
// MongoDB's "Schema Validation" documentation.
package validation

import (
	"errors"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

const docValidationFailure = 121

// qtyValidator requires a non-negative qty and a string name.
var qtyValidator = bson.D{
	{Key: "qty", Value: bson.D{{Key: "$gte", Value: 0}}},
	{Key: "name", Value: bson.D{{Key: "$type", Value: "string"}}},
}

// createWith creates collection name with the given create options.
func createWith(t *testing.T, d *mongo.Database, name string, opts ...bson.E) *mongo.Collection {
	t.Helper()
	cmd := append(bson.D{{Key: "create", Value: name}}, opts...)
	if _, err := testenv.RunCmd(t, d, cmd); err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return d.Collection(name)
}

// wantValidationFailure fails unless err is a 121 "Document failed
// validation" error (write or command) that carries errInfo, and returns
// the errInfo.
func wantValidationFailure(t *testing.T, what string, err error) bson.Raw {
	t.Helper()
	var we mongo.WriteException
	if errors.As(err, &we) && len(we.WriteErrors) == 1 {
		e := we.WriteErrors[0]
		if e.Code != docValidationFailure || e.Message != "Document failed validation" {
			t.Fatalf("%s: got write error %d %q, want 121 Document failed validation", what, e.Code, e.Message)
		}
		if len(e.Details) == 0 {
			t.Fatalf("%s: write error has no errInfo: %v", what, e.Raw)
		}
		return e.Details
	}
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		if ce.Code != docValidationFailure || ce.Name != "DocumentValidationFailure" || ce.Message != "Document failed validation" {
			t.Fatalf("%s: got command error %d %s %q, want 121", what, ce.Code, ce.Name, ce.Message)
		}
		info, ok := ce.Raw.Lookup("errInfo").DocumentOK()
		if !ok {
			t.Fatalf("%s: command error has no errInfo: %v", what, ce.Raw)
		}
		return info
	}
	t.Fatalf("%s: got %T %v, want a 121 validation failure", what, err, err)
	return nil
}

// TestValidatorEnforcedOnEveryWrite: with the default strict/error, every
// write whose resulting document fails the validator is refused with 121
// and changes nothing; writes that pass succeed.
func TestValidatorEnforcedOnEveryWrite(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := createWith(t, d, "items", bson.E{Key: "validator", Value: qtyValidator})
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "qty", Value: 5}, {Key: "name", Value: "a"}}); err != nil {
		t.Fatal(err)
	}
	byID := bson.D{{Key: "_id", Value: 1}}
	setQty := func(q int) bson.D { return bson.D{{Key: "$set", Value: bson.D{{Key: "qty", Value: q}}}} }
	cases := []struct {
		name string
		run  func() error
		ok   bool
	}{
		{"insert valid", func() error {
			_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}, {Key: "qty", Value: 0}, {Key: "name", Value: "b"}})
			return err
		}, true},
		{"insert failing $gte", func() error {
			_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 3}, {Key: "qty", Value: -1}, {Key: "name", Value: "c"}})
			return err
		}, false},
		{"insert missing field", func() error {
			_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 4}, {Key: "qty", Value: 1}})
			return err
		}, false},
		{"update to valid", func() error { _, err := coll.UpdateOne(ctx, byID, setQty(7)); return err }, true},
		{"update to invalid", func() error { _, err := coll.UpdateOne(ctx, byID, setQty(-7)); return err }, false},
		{"updateMany to invalid", func() error { _, err := coll.UpdateMany(ctx, bson.D{}, setQty(-1)); return err }, false},
		{"replace to invalid", func() error {
			_, err := coll.ReplaceOne(ctx, byID, bson.D{{Key: "qty", Value: 1}})
			return err
		}, false},
		{"upsert invalid", func() error {
			_, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 9}}, setQty(-3), options.UpdateOne().SetUpsert(true))
			return err
		}, false},
		{"upsert valid", func() error {
			_, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 10}, {Key: "name", Value: "u"}}, setQty(3), options.UpdateOne().SetUpsert(true))
			return err
		}, true},
		{"findOneAndUpdate to invalid", func() error {
			return coll.FindOneAndUpdate(ctx, byID, setQty(-2)).Err()
		}, false},
		{"findOneAndReplace to invalid", func() error {
			return coll.FindOneAndReplace(ctx, byID, bson.D{{Key: "name", Value: 5}, {Key: "qty", Value: 1}}).Err()
		}, false},
		{"findOneAndUpdate upsert invalid", func() error {
			return coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: 11}}, setQty(-2), options.FindOneAndUpdate().SetUpsert(true)).Err()
		}, false},
	}
	for _, tc := range cases {
		err := tc.run()
		if tc.ok {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		wantValidationFailure(t, tc.name, err)
	}
	// Nothing a failed write touched changed.
	if got := testenv.FindDoc(t, coll, 1); got["qty"] != int32(7) || got["name"] != "a" {
		t.Errorf("document 1 = %v, want qty 7 name a", got)
	}
	for _, id := range []int{3, 4, 9, 11} {
		if n := testenv.Count(t, coll, bson.D{{Key: "_id", Value: id}}); n != 0 {
			t.Errorf("document %d was written by a failed write", id)
		}
	}
}

// TestErrInfoShape: errInfo is {failingDocumentId, details}; a validator
// of several fields is an implicit $and whose details list the clauses
// not satisfied with their index, and a comparison clause gives
// operatorName, specifiedAs, reason and the value it considered.
func TestErrInfoShape(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := createWith(t, d, "shape", bson.E{Key: "validator", Value: qtyValidator})

	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "x"}, {Key: "qty", Value: -4}, {Key: "name", Value: "n"}})
	info := wantValidationFailure(t, "insert", err)
	if id := info.Lookup("failingDocumentId").StringValue(); id != "x" {
		t.Errorf("failingDocumentId = %v, want x", info.Lookup("failingDocumentId"))
	}
	details := info.Lookup("details").Document()
	if op := details.Lookup("operatorName").StringValue(); op != "$and" {
		t.Errorf("details.operatorName = %q, want $and", op)
	}
	clauses, _ := details.Lookup("clausesNotSatisfied").Array().Values()
	if len(clauses) != 1 {
		t.Fatalf("clausesNotSatisfied = %v, want one clause", details.Lookup("clausesNotSatisfied"))
	}
	c := clauses[0].Document()
	if c.Lookup("index").Int32() != 0 {
		t.Errorf("clause index = %v, want 0", c.Lookup("index"))
	}
	cd := c.Lookup("details").Document()
	if got := cd.Lookup("operatorName").StringValue(); got != "$gte" {
		t.Errorf("clause operatorName = %q, want $gte", got)
	}
	if got := cd.Lookup("reason").StringValue(); got != "comparison failed" {
		t.Errorf("clause reason = %q, want comparison failed", got)
	}
	if got := cd.Lookup("consideredValue").Int32(); got != -4 {
		t.Errorf("consideredValue = %v, want -4", cd.Lookup("consideredValue"))
	}
	want := bson.Raw(must(bson.Marshal(bson.D{{Key: "qty", Value: bson.D{{Key: "$gte", Value: 0}}}})))
	if got := cd.Lookup("specifiedAs").Document(); !bsonEqual(got, want) {
		t.Errorf("specifiedAs = %v, want %v", got, want)
	}

	// A missing field: reason "field was missing"; both clauses fail.
	_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "y"}})
	info = wantValidationFailure(t, "insert empty", err)
	clauses, _ = info.Lookup("details", "clausesNotSatisfied").Array().Values()
	if len(clauses) != 2 {
		t.Fatalf("clausesNotSatisfied = %v, want two", clauses)
	}
	if got := clauses[0].Document().Lookup("details", "reason").StringValue(); got != "field was missing" {
		t.Errorf("reason = %q, want field was missing", got)
	}
	if got := clauses[1].Document().Lookup("index").Int32(); got != 1 {
		t.Errorf("second clause index = %d, want 1", got)
	}

	// findAndModify reports the failure as a command error with errInfo.
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "z"}, {Key: "qty", Value: 1}, {Key: "name", Value: "z"}}); err != nil {
		t.Fatal(err)
	}
	err = coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: "z"}}, bson.D{{Key: "$unset", Value: bson.D{{Key: "name", Value: 1}}}}).Err()
	info = wantValidationFailure(t, "findAndModify", err)
	if id := info.Lookup("failingDocumentId").StringValue(); id != "z" {
		t.Errorf("findAndModify failingDocumentId = %v, want z", info.Lookup("failingDocumentId"))
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func bsonEqual(a, b bson.Raw) bool { return string(a) == string(b) }

// TestErrInfoOperators: the details of single-operator validators, as
// mongod's documentation describes them: operatorName, a reason, and the
// value considered at the path.
func TestErrInfoOperators(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	cases := []struct {
		name      string
		validator bson.D
		doc       bson.D
		op        string
		reason    string
		extra     string // a further field details must hold
	}{
		{"$type", bson.D{{Key: "a", Value: bson.D{{Key: "$type", Value: "string"}}}}, bson.D{{Key: "a", Value: 1}}, "$type", "type did not match", "consideredType"},
		{"$in", bson.D{{Key: "a", Value: bson.D{{Key: "$in", Value: bson.A{1, 2}}}}}, bson.D{{Key: "a", Value: 3}}, "$in", "no matching value found in array", "consideredValue"},
		{"$regex", bson.D{{Key: "a", Value: bson.D{{Key: "$regex", Value: "^x"}}}}, bson.D{{Key: "a", Value: "y"}}, "$regex", "regular expression did not match", "consideredValue"},
		{"$exists", bson.D{{Key: "a", Value: bson.D{{Key: "$exists", Value: true}}}}, bson.D{{Key: "b", Value: 1}}, "$exists", "path does not exist", "specifiedAs"},
		{"$lt missing", bson.D{{Key: "a", Value: bson.D{{Key: "$lt", Value: 5}}}}, bson.D{{Key: "b", Value: 1}}, "$lt", "field was missing", "specifiedAs"},
		{"$lt array", bson.D{{Key: "a", Value: bson.D{{Key: "$lt", Value: 5}}}}, bson.D{{Key: "a", Value: bson.A{7, 8}}}, "$lt", "comparison failed", "consideredValues"},
		{"$expr", bson.D{{Key: "$expr", Value: bson.D{{Key: "$lt", Value: bson.A{"$low", "$high"}}}}}, bson.D{{Key: "low", Value: 5}, {Key: "high", Value: 1}}, "$expr", "expression did not match", "expressionResult"},
	}
	for i, tc := range cases {
		coll := createWith(t, d, fmt.Sprintf("op%d", i), bson.E{Key: "validator", Value: tc.validator})
		_, err := coll.InsertOne(ctx, tc.doc)
		info := wantValidationFailure(t, tc.name, err)
		det := info.Lookup("details").Document()
		if got := det.Lookup("operatorName").StringValue(); got != tc.op {
			t.Errorf("%s: operatorName = %q, want %q (%v)", tc.name, got, tc.op, det)
		}
		if got := det.Lookup("reason").StringValue(); got != tc.reason {
			t.Errorf("%s: reason = %q, want %q", tc.name, got, tc.reason)
		}
		if _, err := det.LookupErr(tc.extra); err != nil {
			t.Errorf("%s: details have no %s: %v", tc.name, tc.extra, det)
		}
	}
}
