package admin_test

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

func TestCollectionsAndDatabases(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	c := testenv.Ctx(t)
	if err := d.CreateCollection(c, "made"); err != nil {
		t.Fatal(err)
	}
	err := d.CreateCollection(c, "made", options.CreateCollection().SetCapped(true).SetSizeInBytes(4096))
	if ce := testenv.CmdErr(t, err); ce.Code != 48 {
		t.Fatalf("create existing with other options: %+v", ce)
	}
	names, err := d.ListCollectionNames(c, bson.D{})
	if err != nil || len(names) != 1 || names[0] != "made" {
		t.Fatalf("ListCollectionNames: %v %v", names, err)
	}
	if err := db.Client().Database("admin").RunCommand(c, bson.D{{Key: "renameCollection", Value: "test.made"}, {Key: "to", Value: "test.renamed"}}).Err(); err != nil {
		t.Fatal(err)
	}
	names, _ = d.ListCollectionNames(c, bson.D{})
	if len(names) != 1 || names[0] != "renamed" {
		t.Fatalf("after rename: %v", names)
	}
	if err := d.Collection("renamed").Drop(c); err != nil {
		t.Fatal(err)
	}
	// 7.0: dropping a missing collection succeeds.
	if err := d.Collection("renamed").Drop(c); err != nil {
		t.Fatal(err)
	}
	_, _ = d.Collection("x").InsertOne(c, bson.D{{Key: "a", Value: 1}})
	dbs, err := db.Client().ListDatabaseNames(c, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range dbs {
		found = found || n == "test"
	}
	if !found {
		t.Fatalf("listDatabases: %v", dbs)
	}
	if err := d.Drop(c); err != nil {
		t.Fatal(err)
	}
	names, _ = d.ListCollectionNames(c, bson.D{})
	if len(names) != 0 {
		t.Fatalf("after dropDatabase: %v", names)
	}
}

// TestCreateExistingCollection checks create on an existing collection as
// MongoDB 7.0 answers it (SERVER-60064): the same options succeed,
// different options fail with 48 NamespaceExists, and a system namespace a
// client may not create is 73 InvalidNamespace.
func TestCreateExistingCollection(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	if err := d.CreateCollection(c, "made"); err != nil {
		t.Fatal(err)
	}
	if err := d.CreateCollection(c, "made"); err != nil {
		t.Fatalf("create again with the same (no) options: %v", err)
	}
	capped := options.CreateCollection().SetCapped(true).SetSizeInBytes(4096)
	err := d.CreateCollection(c, "made", capped)
	ce := testenv.CmdErr(t, err)
	if ce.Code != 48 || ce.Name != "NamespaceExists" ||
		!strings.HasPrefix(ce.Message, `namespace test.made already exists, but with different options: { uuid: UUID("`) {
		t.Fatalf("create with other options: %+v", ce)
	}
	// A collection created implicitly by an insert has no options.
	if _, err := d.Collection("implicit").InsertOne(c, bson.D{{Key: "a", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := d.CreateCollection(c, "implicit"); err != nil {
		t.Fatalf("create over an implicitly created collection: %v", err)
	}
	// Capped with the same options, in another field order and number type.
	if err := d.CreateCollection(c, "cap", capped); err != nil {
		t.Fatal(err)
	}
	same := bson.D{{Key: "create", Value: "cap"}, {Key: "size", Value: 4096.0}, {Key: "capped", Value: true}}
	if err := d.RunCommand(c, same).Err(); err != nil {
		t.Fatalf("create capped again with the same options: %v", err)
	}
	other := bson.D{{Key: "create", Value: "cap"}, {Key: "capped", Value: true}, {Key: "size", Value: 8192}}
	ce = testenv.CmdErr(t, d.RunCommand(c, other).Err())
	if ce.Code != 48 || !strings.Contains(ce.Message, "capped: true, size: 4096 }") {
		t.Fatalf("create capped with another size: %+v", ce)
	}
	ce = testenv.CmdErr(t, d.RunCommand(c, bson.D{{Key: "create", Value: "system.foo"}}).Err())
	if ce.Code != 73 || ce.Name != "InvalidNamespace" || ce.Message != "Invalid system namespace: test.system.foo" {
		t.Fatalf("create system.foo: %+v", ce)
	}
	names, err := d.ListCollectionNames(c, bson.D{})
	if err != nil || len(names) != 3 {
		t.Fatalf("collections: %v %v", names, err)
	}
}
