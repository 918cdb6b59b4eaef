package validation

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestLevelsAndActions: per MongoDB's documentation, strict checks every
// insert and update; moderate checks inserts and updates of documents
// that are valid, but not updates of documents that already fail; off
// checks nothing; with action warn every write succeeds (and is logged).
func TestLevelsAndActions(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	type want struct{ insertBad, updateValidToBad, updateBadToBad bool } // true: refused
	cases := []struct {
		level, action string
		want          want
	}{
		{"strict", "error", want{true, true, true}},
		{"moderate", "error", want{true, true, false}},
		{"off", "error", want{false, false, false}},
		{"strict", "warn", want{false, false, false}},
		{"moderate", "warn", want{false, false, false}},
		{"off", "warn", want{false, false, false}},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%s_%s", tc.level, tc.action)
		// The invalid document exists before the validator (collMod adds it).
		coll := createWith(t, d, name)
		if _, err := coll.InsertMany(ctx, []any{
			bson.D{{Key: "_id", Value: "valid"}, {Key: "qty", Value: 1}, {Key: "name", Value: "v"}},
			bson.D{{Key: "_id", Value: "bad"}, {Key: "qty", Value: -1}, {Key: "name", Value: "b"}},
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: name},
			{Key: "validator", Value: qtyValidator},
			{Key: "validationLevel", Value: tc.level}, {Key: "validationAction", Value: tc.action}}); err != nil {
			t.Fatalf("%s: collMod: %v", name, err)
		}
		check := func(what string, refused bool, err error) {
			t.Helper()
			if refused {
				wantValidationFailure(t, name+": "+what, err)
			} else if err != nil {
				t.Errorf("%s: %s: %v", name, what, err)
			}
		}
		_, err := coll.InsertOne(ctx, bson.D{{Key: "qty", Value: -5}, {Key: "name", Value: "n"}})
		check("insert invalid", tc.want.insertBad, err)
		_, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: "valid"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "qty", Value: -2}}}})
		check("update valid to invalid", tc.want.updateValidToBad, err)
		_, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: "bad"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "qty", Value: -3}}}})
		check("update invalid to invalid", tc.want.updateBadToBad, err)
		// A valid insert always succeeds.
		_, err = coll.InsertOne(ctx, bson.D{{Key: "qty", Value: 5}, {Key: "name", Value: "ok"}})
		check("insert valid", false, err)
	}
}

// TestBypassDocumentValidation: bypassDocumentValidation: true skips the
// validator on insert, update, findAndModify and aggregate's $out and
// $merge; without it the same writes fail.
func TestBypassDocumentValidation(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := createWith(t, d, "bypass", bson.E{Key: "validator", Value: qtyValidator})
	bad := func(id string) bson.D { return bson.D{{Key: "_id", Value: id}, {Key: "qty", Value: -1}} }

	_, err := coll.InsertOne(ctx, bad("i"))
	wantValidationFailure(t, "insert", err)
	if _, err := coll.InsertOne(ctx, bad("i"), options.InsertOne().SetBypassDocumentValidation(true)); err != nil {
		t.Fatalf("insert with bypass: %v", err)
	}
	if _, err := coll.InsertMany(ctx, []any{bad("m1"), bad("m2")}, options.InsertMany().SetBypassDocumentValidation(true)); err != nil {
		t.Fatalf("insertMany with bypass: %v", err)
	}
	set := bson.D{{Key: "$set", Value: bson.D{{Key: "qty", Value: -9}}}}
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: "i"}}, set, options.UpdateOne().SetBypassDocumentValidation(true)); err != nil {
		t.Fatalf("update with bypass: %v", err)
	}
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: "u"}}, set,
		options.UpdateOne().SetUpsert(true).SetBypassDocumentValidation(true)); err != nil {
		t.Fatalf("upsert with bypass: %v", err)
	}
	err = coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: "i"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "qty", Value: -10}}}}).Err()
	wantValidationFailure(t, "findAndModify", err)
	if err := coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: "i"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "qty", Value: -10}}}},
		options.FindOneAndUpdate().SetBypassDocumentValidation(true)).Err(); err != nil {
		t.Fatalf("findAndModify with bypass: %v", err)
	}
	if got := testenv.FindDoc(t, coll, "i"); got["qty"] != int32(-10) {
		t.Errorf("document i = %v, want qty -10", got)
	}

	// $out and $merge write into a collection with a validator.
	src := d.Collection("src")
	if _, err := src.InsertMany(ctx, []any{bad("s1"), bad("s2")}); err != nil {
		t.Fatal(err)
	}
	for _, stage := range []struct {
		name   string
		target string
		stage  bson.D
	}{
		{"$out", "outTarget", bson.D{{Key: "$out", Value: "outTarget"}}},
		{"$merge", "mergeTarget", bson.D{{Key: "$merge", Value: bson.D{{Key: "into", Value: "mergeTarget"}}}}},
	} {
		target := createWith(t, d, stage.target, bson.E{Key: "validator", Value: qtyValidator})
		cur, err := src.Aggregate(ctx, []bson.D{stage.stage})
		if err == nil {
			err = cur.Close(ctx)
		}
		wantValidationFailure(t, stage.name, err)
		if n := testenv.Count(t, target, bson.D{}); n != 0 {
			t.Errorf("%s without bypass wrote %d documents", stage.name, n)
		}
		cur, err = src.Aggregate(ctx, []bson.D{stage.stage}, options.Aggregate().SetBypassDocumentValidation(true))
		if err != nil {
			t.Fatalf("%s with bypass: %v", stage.name, err)
		}
		_ = cur.Close(ctx)
		if n := testenv.Count(t, target, bson.D{}); n != 2 {
			t.Errorf("%s with bypass wrote %d documents, want 2", stage.name, n)
		}
	}
}
