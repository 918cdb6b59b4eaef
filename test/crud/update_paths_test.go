package crud_test

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestUpdatePathRules: cases from MongoDB's own updatel, updateh,
// update_modifier_pop and update_arrayFilters tests. An upsert has no
// matched array position, so a positional $ in it is BadValue and
// inserts nothing; a dotted path whose first field is $-prefixed would
// create a top-level $ field (52); $pop through a scalar is
// PathNotViable (28) while a merely missing path is a no-op; and
// findAndModify takes no arrayFilters with remove (9).
func TestUpdatePathRules(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("paths")
	d1 := func(k string, v any) bson.D { return bson.D{{Key: k, Value: v}} }

	_, err := coll.UpdateOne(c, bson.D{}, d1("$set", d1("a.$.b", 1)), options.UpdateOne().SetUpsert(true))
	if code(err) != 2 {
		t.Errorf("upsert with a positional $: %v, want BadValue", err)
	}
	if n, _ := coll.CountDocuments(c, bson.D{}); n != 0 {
		t.Errorf("the refused upsert inserted %d documents", n)
	}

	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 0}, {Key: "n", Value: 0}, {Key: "a", Value: d1("b", 1)}}); err != nil {
		t.Fatal(err)
	}
	for _, u := range []bson.D{
		d1("$set", d1("$secret.agent.x", 1)),
		d1("$inc", d1("$c.d", 1)),
		d1("$rename", d1("n", "$r.s")),
	} {
		if _, err := coll.UpdateOne(c, d1("_id", 0), u); code(err) != 52 {
			t.Errorf("%v: %v, want 52", u, err)
		}
	}
	if _, err := coll.UpdateOne(c, d1("_id", 0), d1("$pop", d1("a.b.c", 1))); code(err) != 28 {
		t.Errorf("$pop through a scalar: %v, want 28", err)
	}
	if r, err := coll.UpdateOne(c, d1("_id", 0), d1("$pop", d1("x.y", 1))); err != nil || r.ModifiedCount != 0 {
		t.Errorf("$pop of a missing path: %v %v, want a no-op", r, err)
	}
	var got bson.M
	if err := coll.FindOne(c, d1("_id", 0)).Decode(&got); err != nil || len(got) != 3 {
		t.Errorf("after the refused updates: %v %v, want the document unchanged", got, err)
	}
	res := d.RunCommand(c, bson.D{{Key: "findAndModify", Value: "paths"}, {Key: "query", Value: d1("_id", 0)},
		{Key: "remove", Value: true}, {Key: "arrayFilters", Value: bson.A{d1("i", 0)}}})
	if code(res.Err()) != 9 {
		t.Errorf("findAndModify remove with arrayFilters: %v, want 9", res.Err())
	}
	if n, _ := coll.CountDocuments(c, d1("_id", 0)); n != 1 {
		t.Errorf("the refused findAndModify removed the document")
	}
}

// TestUpdateBannedQueryFeatures: from MongoDB's own expr and
// update_arrayFilters tests. An upsert's query takes no $expr, nor does a
// $pull condition or an array filter (QueryFeatureNotAllowed, 224); an
// array filter takes no $where or $text (BadValue) and an unknown
// operator there is BadValue before any question of its identifier.
func TestUpdateBannedQueryFeatures(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("banned")
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 0}, {Key: "a", Value: bson.A{bson.D{{Key: "b", Value: 5}}}}}); err != nil {
		t.Fatal(err)
	}
	d1 := func(k string, v any) bson.D { return bson.D{{Key: k, Value: v}} }
	exprEq := d1("$expr", d1("$eq", bson.A{"$b", 5}))
	_, err := coll.UpdateOne(c, bson.D{{Key: "_id", Value: 0}, {Key: "$expr", Value: d1("$eq", bson.A{"$_id", 0})}},
		d1("$set", d1("x", 1)), options.UpdateOne().SetUpsert(true))
	if code(err) != 224 {
		t.Errorf("upsert with $expr: %v, want 224", err)
	}
	if _, err := coll.UpdateOne(c, d1("_id", 0), d1("$pull", d1("a", exprEq))); code(err) != 224 {
		t.Errorf("$pull with $expr: %v, want 224", err)
	}
	for _, tc := range []struct {
		path   string
		filter bson.D
		want   int
	}{
		{"a.$[i].b", bson.D{{Key: "i.b", Value: 5}, {Key: "$expr", Value: d1("$eq", bson.A{"$i.b", 5})}}, 224},
		{"a.$[i]", d1("$where", "this.a == 2"), 2},
		{"a.$[i]", d1("$text", d1("$search", "foo")), 2},
		{"a.$[$i]", d1("$i", 0), 2},
	} {
		_, err := coll.UpdateOne(c, d1("_id", 0), d1("$set", d1(tc.path, 6)),
			options.UpdateOne().SetArrayFilters([]any{tc.filter}))
		if code(err) != tc.want {
			t.Errorf("array filter %v: %v, want %d", tc.filter, err, tc.want)
		}
	}
	// Without $expr the same upsert and array filter run.
	if _, err := coll.UpdateOne(c, d1("_id", 0), d1("$set", d1("a.$[i].b", 7)),
		options.UpdateOne().SetArrayFilters([]any{d1("i.b", 5)}).SetUpsert(true)); err != nil {
		t.Errorf("a plain array filter: %v", err)
	}
}

// code is the code of a write's one write error, or of a command error.
func code(err error) int {
	var we mongo.WriteException
	if errors.As(err, &we) && len(we.WriteErrors) == 1 {
		return we.WriteErrors[0].Code
	}
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return int(ce.Code)
	}
	return 0
}
