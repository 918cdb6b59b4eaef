package clients

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// createClusteredColl creates db.name clustered on _id.
func createClusteredColl(t *testing.T, db *mongo.Database, name string) *mongo.Collection {
	t.Helper()
	o := options.CreateCollection().SetClusteredIndex(bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}})
	if err := db.CreateCollection(context.Background(), name, o); err != nil {
		t.Fatal(err)
	}
	return db.Collection(name)
}

// TestClusteredDumpRestore: mongodump writes a clustered collection with
// its options.clusteredIndex and mongorestore recreates it clustered,
// with its secondary index and its documents in _id order.
func TestClusteredDumpRestore(t *testing.T) {
	t.Parallel()
	tools := toolsDir(t, "mongorestore")
	s := startServer(t)
	c := connect(t, s)
	ctx := context.Background()
	src := c.Database("clsrc")
	coll := createClusteredColl(t, src, "ev")
	var docs []any
	for i := 499; i >= 0; i-- {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "k", Value: int32(i % 7)}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "k", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, args := range [][]string{
		{"mongodump", "--db", "clsrc", "-o", dir},
		{"mongorestore", "--nsFrom", "clsrc.*", "--nsTo", "cldst.*", dir},
	} {
		out, err := runTool(t, tools, args[0], append([]string{"--uri", s.uri()}, args[1:]...)...)
		if err != nil || strings.Contains(out, "Failed") {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	dst := c.Database("cldst")
	specs, err := dst.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "ev"}})
	if err != nil || len(specs) != 1 {
		t.Fatalf("restored: %v %v", specs, err)
	}
	if ci, err := specs[0].Options.LookupErr("clusteredIndex"); err != nil || ci.Document().Lookup("name").StringValue() != "_id_" {
		t.Fatalf("restored options: %v", specs[0].Options)
	}
	ixs, err := dst.Collection("ev").Indexes().ListSpecifications(ctx)
	if err != nil || len(ixs) != 2 || ixs[0].Clustered == nil || !*ixs[0].Clustered || ixs[1].Name != "k_1" {
		t.Fatalf("restored indexes: %+v %v", ixs, err)
	}
	if n, err := dst.Collection("ev").CountDocuments(ctx, bson.D{{Key: "k", Value: 3}}); err != nil || n != 71 {
		t.Fatalf("restored k=3: %d %v", n, err)
	}
	var first bson.M
	if err := dst.Collection("ev").FindOne(ctx, bson.D{}).Decode(&first); err != nil || first["_id"] != int32(0) {
		t.Fatalf("restored first record: %v %v", first, err)
	}
}

// TestClusteredChangeStreamAndRetry: change streams see inserts, updates
// and deletes of a clustered collection, and a retried insert (same
// lsid and txnNumber) answers from its record without a second write.
func TestClusteredChangeStreamAndRetry(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := connect(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := c.Database("clcs")
	coll := createClusteredColl(t, db, "ev")
	cs, err := coll.Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "b"}, {Key: "n", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: "b"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: "b"}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(got) < 3 && cs.Next(ctx) {
		ev := cs.Current
		op := ev.Lookup("operationType").StringValue()
		got = append(got, op+":"+ev.Lookup("documentKey", "_id").StringValue())
		if op == "update" {
			if n, ok := ev.Lookup("updateDescription", "updatedFields", "n").Int32OK(); !ok || n != 2 {
				t.Errorf("update event: %v", ev)
			}
		}
	}
	if strings.Join(got, ",") != "insert:b,update:b,delete:b" {
		t.Fatalf("events %v (%v)", got, cs.Err())
	}
	// A retryable insert sent twice in one session (the driver adds its
	// lsid) inserts once.
	sess, err := c.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	cmd := bson.D{{Key: "insert", Value: "ev"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: "r"}}}},
		{Key: "txnNumber", Value: int64(1000)}} // past the pooled session's numbers
	for i := 0; i < 2; i++ {
		var res bson.M
		if err := db.RunCommand(mongo.NewSessionContext(ctx, sess), cmd).Decode(&res); err != nil || res["n"] != int32(1) {
			t.Fatalf("attempt %d: %v %v", i, res, err)
		}
	}
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Fatalf("after the retried insert: %d %v", n, err)
	}
}
