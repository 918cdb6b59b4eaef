package admin_test

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

func TestIndexCreateListDrop(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	res, err := testenv.RunCmd(t, db, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{
		bson.D{{Key: "key", Value: bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: -1}}}, {Key: "name", Value: "cat_1_ts_-1"}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Lookup("numIndexesBefore").Int32(); got != 1 {
		t.Errorf("numIndexesBefore = %d, want 1", got)
	}
	if got := res.Lookup("numIndexesAfter").Int32(); got != 2 {
		t.Errorf("numIndexesAfter = %d, want 2", got)
	}
	if !res.Lookup("createdCollectionAutomatically").Boolean() {
		t.Errorf("createdCollectionAutomatically = false, want true: %v", res)
	}
	// Same again: a note, nothing created.
	res, err = testenv.RunCmd(t, db, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{
		bson.D{{Key: "key", Value: bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: -1}}}, {Key: "name", Value: "cat_1_ts_-1"}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Lookup("note").StringValue() != "all indexes already exist" || res.Lookup("createdCollectionAutomatically").Boolean() {
		t.Errorf("second create: %v", res)
	}
	// The driver's helpers: default names, unique/sparse/partial/TTL.
	coll := db.Collection("c")
	iv := coll.Indexes()
	opts := []mongo.IndexModel{
		{Keys: bson.D{{Key: "u", Value: 1}}, Options: options.Index().SetUnique(true)},
		{Keys: bson.D{{Key: "s", Value: -1}}, Options: options.Index().SetSparse(true)},
		{Keys: bson.D{{Key: "p", Value: 1}}, Options: options.Index().SetPartialFilterExpression(bson.D{{Key: "p", Value: bson.D{{Key: "$gt", Value: 5}}}})},
		{Keys: bson.D{{Key: "t", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(3600)},
	}
	names, err := iv.CreateMany(testenv.Ctx(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"u_1", "s_-1", "p_1", "t_1"}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("name %d = %q, want %q", i, names[i], want[i])
		}
	}
	cur, err := iv.List(testenv.Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var specs []bson.Raw
	if err := cur.All(testenv.Ctx(t), &specs); err != nil {
		t.Fatal(err)
	}
	if len(specs) != 6 {
		t.Fatalf("listIndexes: %d specs, want 6: %v", len(specs), specs)
	}
	if specs[0].Lookup("name").StringValue() != "_id_" || specs[0].Lookup("v").Int32() != 2 {
		t.Errorf("first spec %v", specs[0])
	}
	if !specs[2].Lookup("unique").Boolean() || !specs[3].Lookup("sparse").Boolean() {
		t.Errorf("unique/sparse specs: %v %v", specs[2], specs[3])
	}
	if _, err := specs[4].LookupErr("partialFilterExpression"); err != nil {
		t.Errorf("partial spec %v", specs[4])
	}
	if specs[5].Lookup("expireAfterSeconds").Int32() != 3600 {
		t.Errorf("ttl spec %v", specs[5])
	}

	// Errors. MongoDB 7.0 compares a requested index with the existing
	// ones: key, unique, sparse and partialFilterExpression identify an
	// index; other options (expireAfterSeconds) only make it "equivalent".
	idx := func(spec bson.D) bson.D {
		return bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{spec}}}
	}
	cases := []struct {
		name string
		cmd  bson.D
		code int32
		msg  string
	}{
		{"same name, unique differs", idx(bson.D{{Key: "key", Value: bson.D{{Key: "u", Value: 1}}}, {Key: "name", Value: "u_1"}, {Key: "unique", Value: false}}), 86,
			"An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts."},
		{"same name, other key", idx(bson.D{{Key: "key", Value: bson.D{{Key: "zz", Value: 1}}}, {Key: "name", Value: "u_1"}}), 86,
			"An existing index has the same name as the requested index."},
		{"same name, ttl differs", idx(bson.D{{Key: "key", Value: bson.D{{Key: "t", Value: 1}}}, {Key: "name", Value: "t_1"}, {Key: "expireAfterSeconds", Value: 60}}), 85,
			"An equivalent index already exists with the same name but different options. Requested index: "},
		{"other name, identical", idx(bson.D{{Key: "key", Value: bson.D{{Key: "u", Value: 1}}}, {Key: "name", Value: "u_again"}, {Key: "unique", Value: true}}), 85,
			"Index already exists with a different name: u_1"},
		{"other name, ttl differs", idx(bson.D{{Key: "key", Value: bson.D{{Key: "t", Value: 1}}}, {Key: "name", Value: "t_again"}, {Key: "expireAfterSeconds", Value: 5}}), 85,
			"An equivalent index already exists with a different name and options. Requested index: "},
		{"bad key", idx(bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: 0}}}, {Key: "name", Value: "a_0"}}), 67, ""},
		{"empty key", idx(bson.D{{Key: "key", Value: bson.D{}}, {Key: "name", Value: "x"}}), 67, ""},
		{"drop missing", bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: "nope_1"}}, 27, ""},
		{"drop missing key", bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: bson.D{{Key: "nope", Value: 1}}}}, 27, ""},
		{"drop _id", bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: "_id_"}}, 72, ""},
		{"drop _id key", bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: bson.D{{Key: "_id", Value: 1}}}}, 72, ""},
		{"list missing coll", bson.D{{Key: "listIndexes", Value: "nocoll"}}, 26, ""},
		{"drop missing coll", bson.D{{Key: "dropIndexes", Value: "nocoll"}, {Key: "index", Value: "*"}}, 26, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := testenv.RunCmd(t, db, tc.cmd)
			if err == nil {
				t.Fatalf("no error")
			}
			ce := testenv.CmdErr(t, err)
			if ce.Code != tc.code {
				t.Errorf("code %d (%s), want %d", ce.Code, ce.Message, tc.code)
			}
			if !strings.HasPrefix(ce.Message, tc.msg) {
				t.Errorf("message %q, want prefix %q", ce.Message, tc.msg)
			}
		})
	}
	// The same key with another identifying option under another name is a
	// different index: MongoDB creates it.
	res, err = testenv.RunCmd(t, db, idx(bson.D{{Key: "key", Value: bson.D{{Key: "u", Value: 1}}}, {Key: "name", Value: "u_plain"}}))
	if err != nil {
		t.Fatalf("non-unique index beside a unique one on the same key: %v", err)
	}
	if res.Lookup("numIndexesAfter").Int32() != 7 {
		t.Errorf("createIndexes u_plain: %v", res)
	}
	if _, err := testenv.RunCmd(t, db, bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: "u_plain"}}); err != nil {
		t.Fatal(err)
	}

	// Drop by key pattern, by array of names, then "*".
	if _, err := testenv.RunCmd(t, db, bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: -1}}}}); err != nil {
		t.Fatal(err)
	}
	res, err = testenv.RunCmd(t, db, bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: bson.A{"u_1", "s_-1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Lookup("nIndexesWas").Int32() != 5 {
		t.Errorf("nIndexesWas %v", res)
	}
	res, err = testenv.RunCmd(t, db, bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: "*"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Lookup("nIndexesWas").Int32() != 3 {
		t.Errorf("nIndexesWas %v", res)
	}
	cur, err = iv.List(testenv.Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	specs = nil
	if err := cur.All(testenv.Ctx(t), &specs); err != nil {
		t.Fatal(err)
	}
	if len(specs) != 1 {
		t.Errorf("after drop *: %v", specs)
	}
}
