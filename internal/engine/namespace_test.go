package engine

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

func TestDropAndRename(t *testing.T) {
	e := openTest(t, "")
	insert(t, e, "db", "a", bson.D{{Key: "_id", Value: 1}})
	insert(t, e, "db", "b", bson.D{{Key: "_id", Value: 2}})
	// MongoDB 7.0 (SERVER-60064): same options succeed, different options
	// fail with NamespaceExists.
	if err := e.CreateCollection("db", "a", CreateOptions{}); err != nil {
		t.Fatalf("create existing with the same options: %v", err)
	}
	capped := CreateOptions{Capped: true, Size: 4096, Raw: D(t, bson.D{{Key: "capped", Value: true}, {Key: "size", Value: 4096}})}
	if err := e.CreateCollection("db", "a", capped); !errs.Is(err, errs.NamespaceExists) ||
		!strings.HasPrefix(err.(*errs.Error).Msg, "namespace db.a already exists, but with different options: { uuid: UUID(\"") {
		t.Fatalf("create existing with other options: %v", err)
	}
	if err := e.RenameCollection("db", "a", "db", "b", false); !errs.Is(err, errs.NamespaceExists) {
		t.Fatalf("rename onto existing: %v", err)
	}
	if err := e.RenameCollection("db", "a", "db2", "c", false); err != nil {
		t.Fatal(err)
	}
	if docs := findAll(t, e, "db2", "c", FindSpec{}); len(docs) != 1 {
		t.Fatalf("renamed docs = %v", jsonOf(docs))
	}
	if docs := findAll(t, e, "db", "a", FindSpec{}); len(docs) != 0 {
		t.Fatal("old name still has docs")
	}
	// The _id index moved with the collection.
	res, _ := e.Insert(ctx, "db2", "c", []bsoncore.Document{D(t, bson.D{{Key: "_id", Value: 1}})}, WriteOptions{Ordered: true})
	if len(res.WriteErrors) != 1 || res.WriteErrors[0].Err.Msg != "E11000 duplicate key error collection: db2.c index: _id_ dup key: { _id: 1 }" {
		t.Fatalf("after rename: %+v", res)
	}
	if err := e.DropCollection("db", "a"); !errs.Is(err, errs.NamespaceNotFound) || err.(*errs.Error).Msg != "ns not found" {
		t.Fatalf("drop missing: %v", err)
	}
	if err := e.DropCollection("db", "b"); err != nil {
		t.Fatal(err)
	}
	dbs, _ := e.ListDatabases()
	if len(dbs) != 1 || dbs[0].Name != "db2" {
		t.Fatalf("databases = %+v", dbs)
	}
	// Recreating a dropped collection starts empty.
	insert(t, e, "db", "b", bson.D{{Key: "_id", Value: 2}})
	if n, _ := e.Count(ctx, "db", "b", nil, 0, 0, bsoncore.Value{}); n != 1 {
		t.Fatalf("recreated count = %d", n)
	}
	if err := e.DropDatabase("db2"); err != nil {
		t.Fatal(err)
	}
	colls, _ := e.ListCollections("db2")
	if len(colls) != 0 {
		t.Fatalf("collections after dropDatabase: %+v", colls)
	}
}

func TestNamespaceValidation(t *testing.T) {
	tests := []struct{ db, coll string }{
		{"", "c"}, {"a.b", "c"}, {"a b", "c"}, {"a$", "c"}, {"db", ""}, {"db", "a$b"}, {"db", "a\x00b"},
	}
	for _, tc := range tests {
		if err := ValidateNamespace(tc.db, tc.coll); !errs.Is(err, errs.InvalidNamespace) {
			t.Errorf("%q.%q: %v", tc.db, tc.coll, err)
		}
	}
	if err := ValidateNamespace("db", "system.js"); err != nil {
		t.Error(err)
	}
}

// TestRenameOverTarget: a rename with dropTarget over an existing
// collection drops it in the rename's own batch: the target's records
// and indexes are gone, before and after a reopen. (The oplog's one
// renameCollection entry is tested in test/changestreams.)
func TestRenameOverTarget(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	insert(t, e, "db", "src", bson.D{{Key: "_id", Value: 1}, {Key: "from", Value: "src"}})
	insert(t, e, "db", "dst", bson.D{{Key: "_id", Value: 1}, {Key: "from", Value: "dst"}}, bson.D{{Key: "_id", Value: 2}})
	if _, err := e.CreateIndex("db", "dst", IndexSpec{Key: D(t, bson.D{{Key: "from", Value: 1}})}); err != nil {
		t.Fatal(err)
	}
	if err := e.RenameCollection("db", "src", "db", "dst", true); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		docs := findAll(t, e, "db", "dst", FindSpec{})
		if len(docs) == 0 {
			t.Fatalf("%s: db.dst is empty", when)
		}
		if from, _ := docs[0].Lookup("from").StringValueOK(); len(docs) != 1 || from != "src" {
			t.Fatalf("%s: db.dst = %v, want the source's one document", when, jsonOf(docs))
		}
		if ix, err := e.ListIndexes("db", "dst"); err != nil || len(ix) != 1 {
			t.Fatalf("%s: indexes of db.dst = %+v %v, want the source's _id index", when, ix, err)
		}
		if colls, _ := e.ListCollections("db"); len(colls) != 1 {
			t.Fatalf("%s: collections = %+v", when, colls)
		}
	}
	check("after the rename")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, dir)
	check("after reopen")
}
