package crud_test

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestUpsertSeedFromFilter checks which of an upsert's filter predicates
// seed the inserted document, case by case from MongoDB's own
// upsert_fields test: an operator-style update takes every equality
// (single-value $in, $or and $all included, $all of two values a
// conflict), a replacement takes only _id, whole (a path below it is
// NotExactValueField), and ignores conflicts among the other fields.
func TestUpsertSeedFromFilter(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("seed")
	set := bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 1}}}}
	soi := bson.D{{Key: "$setOnInsert", Value: bson.D{{Key: "a", Value: 1}}}}
	repl := bson.D{}

	// upsert runs one upsert into an empty collection and returns the
	// inserted document, or the write error's code.
	upsert := func(filter bson.D, u bson.D) (bson.M, int) {
		t.Helper()
		if err := coll.Drop(c); err != nil {
			t.Fatal(err)
		}
		var err error
		if len(u) > 0 && u[0].Key[0] == '$' {
			_, err = coll.UpdateOne(c, filter, u, options.UpdateOne().SetUpsert(true))
		} else {
			_, err = coll.ReplaceOne(c, filter, u, options.Replace().SetUpsert(true))
		}
		if err != nil {
			var we mongo.WriteException
			if errors.As(err, &we) && len(we.WriteErrors) == 1 {
				return nil, we.WriteErrors[0].Code
			}
			t.Fatalf("upsert %v %v: %v", filter, u, err)
		}
		var got bson.M
		if err := coll.FindOne(c, bson.D{}).Decode(&got); err != nil {
			t.Fatal(err)
		}
		return got, 0
	}
	d1 := func(k string, v any) bson.D { return bson.D{{Key: k, Value: v}} }
	eq := func(v any) bson.D { return d1("$eq", v) }

	for _, u := range []bson.D{repl, set, soi} {
		name := "replacement"
		if len(u) > 0 {
			name = u[0].Key
		}
		// _id is taken from each form of a single equality.
		for _, f := range []bson.D{
			d1("_id", 1), d1("_id", eq(1)), d1("_id", d1("$all", bson.A{1})), d1("_id", d1("$in", bson.A{1})),
			d1("$and", bson.A{d1("_id", 1)}), d1("$or", bson.A{d1("_id", eq(1))}),
		} {
			got, code := upsert(f, u)
			if code != 0 || got["_id"] != int32(1) {
				t.Errorf("%s %v: _id %v (code %d), want 1", name, f, got["_id"], code)
			}
		}
		// Not an equality: _id is generated.
		for _, f := range []bson.D{
			d1("_id", d1("$gt", 1)), d1("_id", d1("$in", bson.A{1, 2})), d1("_id", d1("$exists", true)),
			d1("$or", bson.A{d1("_id", eq(1)), d1("_id", 2)}), d1("$nor", bson.A{d1("_id", 1)}),
		} {
			got, code := upsert(f, u)
			if _, ok := got["_id"].(bson.ObjectID); code != 0 || !ok {
				t.Errorf("%s %v: _id %v (code %d), want a generated ObjectId", name, f, got["_id"], code)
			}
		}
		// Two values for _id, or an array: errors in every form.
		for _, c := range []struct {
			f    bson.D
			want int
		}{
			{d1("_id", d1("$all", bson.A{1, 2})), 54},
			{d1("$and", bson.A{d1("_id", 1), d1("_id", 2)}), 54},
			{d1("_id", bson.A{1, 2}), 53},
		} {
			if _, code := upsert(c.f, u); code != c.want {
				t.Errorf("%s %v: code %d, want %d", name, c.f, code, c.want)
			}
		}
		// {_id: 1, "_id.x": 1}: a conflict for an operator update, a path
		// below _id for a replacement.
		want := 54
		if name == "replacement" {
			want = 111
		}
		if _, code := upsert(bson.D{{Key: "_id", Value: 1}, {Key: "_id.x", Value: 1}}, u); code != want {
			t.Errorf("%s {_id: 1, _id.x: 1}: code %d, want %d", name, code, want)
		}
		nested := bson.D{{Key: "_id.x", Value: 1}, {Key: "_id.y", Value: 2}}
		got, code := upsert(nested, u)
		if name == "replacement" {
			if code != 111 {
				t.Errorf("replacement {_id.x, _id.y}: code %d, want 111 NotExactValueField", code)
			}
		} else if id, ok := got["_id"].(bson.D); code != 0 || !ok || len(id) != 2 || id[0].Value != int32(1) || id[1].Value != int32(2) {
			t.Errorf("%s {_id.x, _id.y}: _id %v (code %d), want {x: 1, y: 2}", name, got["_id"], code)
		}

		// Other fields: an operator update takes them, a replacement
		// never does and ignores their conflicts.
		for _, f := range []bson.D{d1("x", d1("$all", bson.A{1})), d1("x", 1), d1("$and", bson.A{d1("x", eq(1))})} {
			got, code := upsert(f, u)
			_, has := got["x"]
			if code != 0 || (name == "replacement") == has || (has && got["x"] != int32(1)) {
				t.Errorf("%s %v: x %v (present %v, code %d)", name, f, got["x"], has, code)
			}
		}
		conflicts := []bson.D{
			d1("x", d1("$all", bson.A{1, 2})),
			d1("$and", bson.A{d1("x", 1), d1("x", 2)}),
			{{Key: "x", Value: 1}, {Key: "x.x", Value: 1}},
			{{Key: "x", Value: bson.D{{Key: "x", Value: 1}}}, {Key: "x.y", Value: 1}},
		}
		for _, f := range conflicts {
			got, code := upsert(f, u)
			if name == "replacement" {
				if _, has := got["x"]; code != 0 || has {
					t.Errorf("replacement %v: %v (code %d), want a document without x", f, got, code)
				}
			} else if code != 54 {
				t.Errorf("%s %v: code %d, want 54 NotSingleValueField", name, f, code)
			}
		}
	}
	// A replacement's _id still comes from the filter beside conflicting
	// fields.
	got, code := upsert(bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: bson.A{1, bson.D{{Key: "x", Value: 1}}}}, {Key: "x.x", Value: 1}}, repl)
	if code != 0 || got["_id"] != int32(1) {
		t.Errorf("replacement with conflicting fields: %v (code %d), want _id 1", got, code)
	}
}
