package lode_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func runCmd(t *testing.T, db *mongo.Database, cmd bson.D) (bson.Raw, error) {
	t.Helper()
	var res bson.Raw
	err := db.RunCommand(ctx(t), cmd).Decode(&res)
	return res, err
}

func TestIndexCreateListDrop(t *testing.T) {
	_, db := open(t)
	res, err := runCmd(t, db, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{
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
	res, err = runCmd(t, db, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{
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
		{Keys: bson.D{{Key: "u", Value: 1}}, Options: newIndexOpts().SetUnique(true)},
		{Keys: bson.D{{Key: "s", Value: -1}}, Options: newIndexOpts().SetSparse(true)},
		{Keys: bson.D{{Key: "p", Value: 1}}, Options: newIndexOpts().SetPartialFilterExpression(bson.D{{Key: "p", Value: bson.D{{Key: "$gt", Value: 5}}}})},
		{Keys: bson.D{{Key: "t", Value: 1}}, Options: newIndexOpts().SetExpireAfterSeconds(3600)},
	}
	names, err := iv.CreateMany(ctx(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"u_1", "s_-1", "p_1", "t_1"}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("name %d = %q, want %q", i, names[i], want[i])
		}
	}
	cur, err := iv.List(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var specs []bson.Raw
	if err := cur.All(ctx(t), &specs); err != nil {
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

	// Errors.
	cases := []struct {
		name string
		cmd  bson.D
		code int32
	}{
		{"options conflict", bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{
			bson.D{{Key: "key", Value: bson.D{{Key: "u", Value: 1}}}, {Key: "name", Value: "u_1"}, {Key: "unique", Value: false}}}}}, 85},
		{"key specs conflict", bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{
			bson.D{{Key: "key", Value: bson.D{{Key: "zz", Value: 1}}}, {Key: "name", Value: "u_1"}}}}}, 86},
		{"bad key", bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{
			bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: 0}}}, {Key: "name", Value: "a_0"}}}}}, 67},
		{"empty key", bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{
			bson.D{{Key: "key", Value: bson.D{}}, {Key: "name", Value: "x"}}}}}, 67},
		{"drop missing", bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: "nope_1"}}, 27},
		{"drop missing key", bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: bson.D{{Key: "nope", Value: 1}}}}, 27},
		{"drop _id", bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: "_id_"}}, 72},
		{"drop _id key", bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: bson.D{{Key: "_id", Value: 1}}}}, 72},
		{"list missing coll", bson.D{{Key: "listIndexes", Value: "nocoll"}}, 26},
		{"drop missing coll", bson.D{{Key: "dropIndexes", Value: "nocoll"}, {Key: "index", Value: "*"}}, 26},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runCmd(t, db, tc.cmd)
			if err == nil {
				t.Fatalf("no error")
			}
			if ce := cmdErr(t, err); ce.Code != tc.code {
				t.Errorf("code %d (%s), want %d", ce.Code, ce.Message, tc.code)
			}
		})
	}

	// Drop by key pattern, by array of names, then "*".
	if _, err := runCmd(t, db, bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: -1}}}}); err != nil {
		t.Fatal(err)
	}
	res, err = runCmd(t, db, bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: bson.A{"u_1", "s_-1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Lookup("nIndexesWas").Int32() != 5 {
		t.Errorf("nIndexesWas %v", res)
	}
	res, err = runCmd(t, db, bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: "*"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Lookup("nIndexesWas").Int32() != 3 {
		t.Errorf("nIndexesWas %v", res)
	}
	cur, err = iv.List(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	specs = nil
	if err := cur.All(ctx(t), &specs); err != nil {
		t.Fatal(err)
	}
	if len(specs) != 1 {
		t.Errorf("after drop *: %v", specs)
	}
}

func newIndexOpts() *options.IndexOptionsBuilder { return options.Index() }
