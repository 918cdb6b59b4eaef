package admin_test

import (
	"errors"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// One createIndexes of several indexes builds them together (one scan)
// and, as mongod's single index builder for the command, creates all or
// none of them.
func TestCreateIndexesTogether(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	c := db.Collection("c")
	const n = 3000
	testenv.InsertBatches(t, c, n, func(i int) any {
		return bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i}, {Key: "tags", Value: bson.A{i % 7, i % 11}},
			{Key: "b", Value: i % 50}, {Key: "u", Value: i % 100}}
	})
	names, err := c.Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "a", Value: 1}}},
		{Keys: bson.D{{Key: "tags", Value: 1}}},
		{Keys: bson.D{{Key: "b", Value: 1}, {Key: "a", Value: -1}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 3 {
		t.Fatalf("created %v", names)
	}
	// Each index holds every document's keys: counts through each,
	// forced by a hint, match the data.
	wantTags := 0
	for i := 0; i < n; i++ {
		if i%7 == 3 || i%11 == 3 {
			wantTags++
		}
	}
	for _, q := range []struct {
		hint   string
		filter bson.D
		want   int64
	}{
		{"a_1", bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 1000}}}}, n - 1000},
		{"tags_1", bson.D{{Key: "tags", Value: 3}}, int64(wantTags)},
		{"b_1_a_-1", bson.D{{Key: "b", Value: 7}}, n / 50},
	} {
		got, err := c.CountDocuments(ctx, q.filter, options.Count().SetHint(q.hint))
		if err != nil {
			t.Fatalf("%s: %v", q.hint, err)
		}
		if got != q.want {
			t.Errorf("count through %s = %d, want %d", q.hint, got, q.want)
		}
	}
	// tags_1 was marked multikey by the build.
	ex := testenv.Explain(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "tags", Value: 3}}}, {Key: "hint", Value: "tags_1"}}, "queryPlanner")
	if mk, err := ex.LookupErr("queryPlanner", "winningPlan", "inputStage", "isMultiKey"); err != nil || !mk.Boolean() {
		t.Errorf("tags_1 isMultiKey = %v (%v): %v", mk, err, ex)
	}

	// An existing index beside a new one: only the new one is built.
	res, err := testenv.RunCmd(t, db, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{
		bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "name", Value: "a_1"}},
		bson.D{{Key: "key", Value: bson.D{{Key: "c", Value: 1}}}, {Key: "name", Value: "c_1"}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if b, a := res.Lookup("numIndexesBefore").Int32(), res.Lookup("numIndexesAfter").Int32(); b != 4 || a != 5 {
		t.Errorf("numIndexesBefore/After = %d/%d, want 4/5", b, a)
	}

	// A unique index the data violates fails the command, and the other
	// index of the same command is not created either.
	_, err = c.Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: bson.D{{Key: "d", Value: 1}}},
		{Keys: bson.D{{Key: "u", Value: 1}}, Options: options.Index().SetUnique(true)},
	})
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(11000) {
		t.Fatalf("createIndexes with a violated unique index: %v, want DuplicateKey (11000)", err)
	}
	specs, err := c.Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range specs {
		got = append(got, s.Name)
	}
	if len(got) != 5 {
		t.Fatalf("indexes after the failed command = %v, want _id_, a_1, tags_1, b_1_a_-1, c_1", got)
	}
	for _, name := range got {
		if name == "d_1" || name == "u_1" {
			t.Fatalf("indexes after the failed command = %v: %s was created", got, name)
		}
	}
	// Its entries are gone too: building d_1 alone works and counts right.
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "d", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	if got, err := c.CountDocuments(ctx, bson.D{}, options.Count().SetHint("d_1")); err != nil || got != n {
		t.Fatalf("count through d_1 = %d, %v; want %d", got, err, n)
	}
}

// A key pattern has at most 32 fields, as in mongod: a 33rd fails the
// createIndexes with code 13103 and builds nothing (mongod's
// jstests/core/index/compound_index_max_fields.js).
func TestCompoundIndexAtMost32Fields(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	c := db.Collection("c")
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	keys := bson.D{}
	for i := 0; i < 32; i++ {
		dir := 1
		if i%2 == 1 {
			dir = -1
		}
		keys = append(keys, bson.E{Key: "f" + strconv.Itoa(i), Value: dir})
	}
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: keys}); err != nil {
		t.Fatalf("32 fields: %v", err)
	}
	keys = append(keys, bson.E{Key: "g", Value: 1})
	_, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: keys})
	testenv.WantCmdError(t, err, 13103, "")
	specs, err := c.Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 2 {
		t.Fatalf("%d indexes after the refused one, want 2 (_id and the 32 fields)", len(specs))
	}
}
