package admin_test

import (
	"errors"
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// TestPartialFilterExpressionRules: a partial index's filter takes only
// what mongod 7.0 takes (equalities, ranges, $type, $exists: true, $in,
// $and and $or, at most four levels deep), and is not combined with
// sparse or the _id key; cases from MongoDB's own
// index_partial_create_drop test and its documented restrictions.
func TestPartialFilterExpressionRules(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	d1 := func(k string, v any) bson.D { return bson.D{{Key: k, Value: v}} }
	n := 0
	create := func(key bson.D, opts bson.D) error {
		n++
		spec := append(bson.D{{Key: "key", Value: key}, {Key: "name", Value: "ix" + string(rune('a'+n%26)) + string(rune('a'+n/26))}}, opts...)
		_, err := testenv.RunCmd(t, db, bson.D{{Key: "createIndexes", Value: "pf"}, {Key: "indexes", Value: bson.A{spec}}})
		return err
	}
	code := func(err error) int32 {
		var ce mongo.CommandError
		if errors.As(err, &ce) {
			return ce.Code
		}
		return 0
	}
	pfe := func(f bson.D) bson.D { return d1("partialFilterExpression", f) }
	x := d1("x", 1)
	nested := func(depth int) bson.D { // depth $ands around {x: 3}
		f := d1("x", 3)
		for i := 0; i < depth; i++ {
			f = d1("$and", bson.A{f})
		}
		return f
	}

	for _, f := range []bson.D{
		d1("a", 1), d1("a", nil), d1("a", d1("$gt", 1)), {{Key: "a", Value: bson.D{{Key: "$gte", Value: 1}, {Key: "$lt", Value: 5}}}},
		d1("a", d1("$type", "string")), d1("a", d1("$exists", true)), d1("a", d1("$in", bson.A{1, 2})),
		d1("a", d1("$all", bson.A{1})), d1("$or", bson.A{d1("a", 1), d1("b", d1("$lt", 2))}),
		{{Key: "a", Value: 1}, {Key: "b", Value: d1("$lte", 2)}}, nested(3),
	} {
		if err := create(x, pfe(f)); err != nil {
			t.Errorf("partial filter %v refused: %v", f, err)
		}
	}
	for _, c := range []struct {
		f    bson.D
		want int32
	}{
		{d1("a", d1("$ne", 1)), 67},
		{d1("a", d1("$nin", bson.A{1})), 67},
		{d1("a", d1("$exists", false)), 67},
		{d1("a", d1("$not", d1("$eq", 1))), 67},
		{d1("$nor", bson.A{d1("a", 1)}), 67},
		{d1("a", bson.Regex{Pattern: "abc"}), 67},
		{d1("a", d1("$elemMatch", d1("$gt", 1))), 67},
		{d1("a", d1("$size", 2)), 67},
		{d1("a", d1("$mod", bson.A{2, 0})), 67},
		{d1("$or", bson.A{d1("a", d1("$ne", 1))}), 67},
		{nested(4), 67},
		{d1("$expr", d1("$eq", bson.A{"$x", 5})), 224},
		{d1("a", d1("$asdasd", 3)), 2},
	} {
		if err := create(x, pfe(c.f)); code(err) != c.want {
			t.Errorf("partial filter %v: %v, want code %d", c.f, err, c.want)
		}
	}
	// Not with sparse (a false sparse is fine), nor on the _id key.
	if err := create(x, bson.D{{Key: "partialFilterExpression", Value: d1("a", 1)}, {Key: "sparse", Value: true}}); code(err) != 67 {
		t.Errorf("partial and sparse: %v, want 67", err)
	}
	if err := create(d1("y", 1), bson.D{{Key: "partialFilterExpression", Value: d1("a", 1)}, {Key: "sparse", Value: false}}); err != nil {
		t.Errorf("partial with sparse: false: %v", err)
	}
	if err := create(d1("_id", 1), pfe(d1("a", 1))); code(err) != 67 {
		t.Errorf("partial _id index: %v, want 67", err)
	}
}

// TestIndexCountLimit: a collection holds at most 64 indexes, its _id
// index included; the 65th is CannotCreateIndex with mongod's message,
// and one command that would pass the limit creates none of its indexes.
func TestIndexCountLimit(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	create := func(names ...string) error {
		var specs bson.A
		for _, n := range names {
			specs = append(specs, bson.D{{Key: "key", Value: bson.D{{Key: n, Value: 1}}}, {Key: "name", Value: n}})
		}
		_, err := testenv.RunCmd(t, db, bson.D{{Key: "createIndexes", Value: "many"}, {Key: "indexes", Value: specs}})
		return err
	}
	var names []string
	for i := 0; i < 62; i++ {
		names = append(names, "f"+string(rune('a'+i/26))+string(rune('a'+i%26)))
	}
	if err := create(names...); err != nil {
		t.Fatal(err)
	}
	// 63 indexes now: two more in one command pass the limit.
	err := create("x", "y")
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 67 || ce.Message != "add index fails, too many indexes for "+db.Name()+".many key:{ y: 1 }" {
		t.Fatalf("two indexes past 63: %v, want 67 naming key y", err)
	}
	if err := create("x"); err != nil {
		t.Fatalf("the 64th index: %v", err)
	}
	if err := create("z"); !errors.As(err, &ce) || ce.Code != 67 {
		t.Fatalf("the 65th index: %v, want 67", err)
	}
	// An index that exists already is no new index.
	if err := create("x"); err != nil {
		t.Fatalf("an existing index again: %v", err)
	}
	cur, err := db.Collection("many").Indexes().List(testenv.Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var all []bson.Raw
	if err := cur.All(testenv.Ctx(t), &all); err != nil {
		t.Fatal(err)
	}
	if len(all) != 64 {
		t.Fatalf("%d indexes listed, want 64", len(all))
	}
}

// TestIndexKeyPatternAndIDSpecRules: mongod 7.0's key pattern checks
// (NaN and 0 directions, one index plugin per index) and the rules of an
// index on {_id: 1}: it is always unique and takes the collection's
// collation, so another name for it is the _id index again (85), and
// unique: false, sparse or another collation are 67. From MongoDB's
// index_key_validate and index catalog rules.
func TestIndexKeyPatternAndIDSpecRules(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	if _, err := db.Collection("kp").InsertOne(testenv.Ctx(t), bson.D{}); err != nil {
		t.Fatal(err)
	}
	create := func(spec bson.D) error {
		_, err := testenv.RunCmd(t, db, bson.D{{Key: "createIndexes", Value: "kp"}, {Key: "indexes", Value: bson.A{spec}}})
		return err
	}
	id := bson.D{{Key: "_id", Value: 1}}
	for _, c := range []struct {
		spec bson.D
		code int32
		msg  string
	}{
		{bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: 0}}}, {Key: "name", Value: "z"}}, 67, "Values in the index key pattern cannot be 0."},
		{bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: math.NaN()}}}, {Key: "name", Value: "nan"}}, 67, "Values in the index key pattern cannot be NaN."},
		{bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: "text"}, {Key: "b", Value: "hashed"}}}, {Key: "name", Value: "th"}}, 67, "Can't use more than one index plugin for a single index."},
		{bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: "text"}, {Key: "b", Value: true}}}, {Key: "name", Value: "tb"}}, 67, "Values in v:2 index key pattern cannot be of type bool. Only numbers > 0, numbers < 0, and strings are allowed."},
		{bson.D{{Key: "key", Value: id}, {Key: "name", Value: "other"}}, 85, "Index already exists with a different name: _id_"},
		{bson.D{{Key: "key", Value: id}, {Key: "name", Value: "nu"}, {Key: "unique", Value: false}}, 67, "_id index cannot be non-unique"},
		{bson.D{{Key: "key", Value: id}, {Key: "name", Value: "sp"}, {Key: "sparse", Value: true}}, 67, "_id index cannot be sparse"},
		{bson.D{{Key: "key", Value: id}, {Key: "name", Value: "co"}, {Key: "collation", Value: bson.D{{Key: "locale", Value: "fr"}}}}, 67, "_id index must have the collection default collation"},
	} {
		err := create(c.spec)
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != c.code || ce.Message != c.msg {
			t.Errorf("%v: %v, want %d %q", c.spec, err, c.code, c.msg)
		}
	}
	// What stays allowed: {_id: -1}, a hashed _id, the _id index itself again.
	for _, spec := range []bson.D{
		{{Key: "key", Value: bson.D{{Key: "_id", Value: -1}}}, {Key: "name", Value: "desc"}},
		{{Key: "key", Value: bson.D{{Key: "_id", Value: "hashed"}}}, {Key: "name", Value: "h"}},
		{{Key: "key", Value: id}, {Key: "name", Value: "_id_"}},
	} {
		if err := create(spec); err != nil {
			t.Errorf("%v: %v", spec, err)
		}
	}
}

// TestDBRefIndexFields: an index may name a DBRef's fields below the top
// level ("a.$id", "a.b.$ref"), as mongod allows (MongoDB's own indexp
// test), and queries on them use it; "$id" at the top stays refused.
func TestDBRefIndexFields(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("refs")
	ctx := testenv.Ctx(t)
	ref := func(id int) bson.D {
		return bson.D{{Key: "$ref", Value: "other"}, {Key: "$id", Value: id}}
	}
	if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "a", Value: ref(1)}}, bson.D{{Key: "a", Value: ref(2)}}}); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"a.$id", "a.$ref", "a.b.$db"} {
		if _, err := testenv.RunCmd(t, db, bson.D{{Key: "createIndexes", Value: "refs"}, {Key: "indexes", Value: bson.A{
			bson.D{{Key: "key", Value: bson.D{{Key: key, Value: 1}}}, {Key: "name", Value: key}}}}}); err != nil {
			t.Errorf("index on %s: %v", key, err)
		}
	}
	if n, err := coll.CountDocuments(ctx, bson.D{{Key: "a.$id", Value: 2}}); err != nil || n != 1 {
		t.Errorf("a.$id: 2 counts %d (%v), want 1", n, err)
	}
	_, err := testenv.RunCmd(t, db, bson.D{{Key: "createIndexes", Value: "refs"}, {Key: "indexes", Value: bson.A{
		bson.D{{Key: "key", Value: bson.D{{Key: "$id", Value: 1}}}, {Key: "name", Value: "top"}}}}})
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 67 {
		t.Errorf("index on $id: %v, want 67", err)
	}
}
