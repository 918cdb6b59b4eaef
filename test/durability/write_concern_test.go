package durability_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// TestJournaledGroupCommit: with a one-hour background sync interval, j:true
// writes are still acknowledged promptly (a requested fsync, no fixed
// sleep), and concurrent writers share fsyncs.
func TestJournaledGroupCommit(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t, lode.WithSyncInterval(time.Hour))
	coll := d.Collection("j", options.Collection().SetWriteConcern(writeconcern.Journaled()))
	before := testenv.LodeMetric(t, db, "syncs")
	const writers, per = 16, 20
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				if _, err := coll.InsertOne(context.Background(), bson.D{{Key: "w", Value: w}, {Key: "i", Value: i}}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if el := time.Since(start); el > 30*time.Second {
		t.Fatalf("j:true writes took %v: are they waiting for the background sync?", el)
	}
	syncs := testenv.LodeMetric(t, db, "syncs") - before
	if syncs == 0 || syncs >= writers*per {
		t.Fatalf("%d fsyncs for %d j:true writes: want at least one, and fewer than one per write", syncs, writers*per)
	}
	t.Logf("%d j:true writes, %d fsyncs", writers*per, syncs)
}

func TestDefaultWriteConcern(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t, lode.WithSyncInterval(time.Hour))
	ctx := context.Background()
	admin := db.Client().Database("admin")
	var got bson.Raw
	if err := admin.RunCommand(ctx, bson.D{{Key: "getDefaultRWConcern", Value: 1}}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Lookup("defaultWriteConcernSource").StringValue() != "implicit" {
		t.Fatalf("initial defaults: %v", got)
	}
	err := admin.RunCommand(ctx, bson.D{{Key: "setDefaultRWConcern", Value: 1},
		{Key: "defaultWriteConcern", Value: bson.D{{Key: "w", Value: 1}, {Key: "j", Value: true}}}}).Err()
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.RunCommand(ctx, bson.D{{Key: "getDefaultRWConcern", Value: 1}}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if !got.Lookup("defaultWriteConcern", "j").Boolean() || got.Lookup("defaultWriteConcernSource").StringValue() != "global" {
		t.Fatalf("after set: %v", got)
	}
	// A write without a write concern now waits for an fsync.
	before := testenv.LodeMetric(t, db, "syncWaits")
	if _, err := d.Collection("x").InsertOne(ctx, bson.D{{Key: "a", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if testenv.LodeMetric(t, db, "syncWaits") == before {
		t.Fatal("insert with the default {j: true} did not wait for an fsync")
	}
	// So does a collection change.
	before = testenv.LodeMetric(t, db, "syncWaits")
	if err := d.RunCommand(ctx, bson.D{{Key: "create", Value: "y"}}).Err(); err != nil {
		t.Fatal(err)
	}
	if testenv.LodeMetric(t, db, "syncWaits") == before {
		t.Fatal("create with the default {j: true} did not wait for an fsync")
	}
	err = admin.RunCommand(ctx, bson.D{{Key: "setDefaultRWConcern", Value: 1},
		{Key: "defaultWriteConcern", Value: bson.D{{Key: "w", Value: 0}}}}).Err()
	if err == nil {
		t.Fatal("default w:0 accepted")
	}
}

func TestWriteConcernUnsatisfiable(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	coll := d.Collection("wc", options.Collection().SetWriteConcern(&writeconcern.WriteConcern{W: 2}))
	_, err := coll.InsertOne(context.Background(), bson.D{{Key: "a", Value: 1}})
	var we mongo.WriteException
	if !errors.As(err, &we) || we.WriteConcernError == nil || we.WriteConcernError.Code != 100 {
		t.Fatalf("w:2: want writeConcernError 100, got %v", err)
	}
	// The write itself happened.
	n, err := d.Collection("wc").CountDocuments(context.Background(), bson.D{})
	if err != nil || n != 1 {
		t.Fatalf("count %d %v", n, err)
	}
	maj := d.Collection("wc", options.Collection().SetWriteConcern(writeconcern.Majority()))
	if _, err := maj.InsertOne(context.Background(), bson.D{{Key: "a", Value: 2}}); err != nil {
		t.Fatalf("w:majority on a single node: %v", err)
	}
}

// TestDDLWriteConcern: the commands that take a write concern besides
// the CRUD ones (DDL, aggregate with $out) wait for it after they ran: a
// journaled one for an fsync (the background sync is an hour away), one
// without j for none, and w:2 adds writeConcernError 100 to a change
// that was made, as mongod's single node answers.
func TestDDLWriteConcern(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t, lode.WithSyncInterval(time.Hour))
	ctx := context.Background()
	if _, err := d.Collection("src").InsertOne(ctx, bson.D{{Key: "a", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	jTrue := bson.E{Key: "writeConcern", Value: bson.D{{Key: "j", Value: true}}}
	for _, c := range []struct {
		what   string
		cmd    bson.D
		synced bool
	}{
		{"create w:1", bson.D{{Key: "create", Value: "plain"}}, false},
		{"create j:true", bson.D{{Key: "create", Value: "journaled"}, jTrue}, true},
		{"createIndexes w:majority", bson.D{{Key: "createIndexes", Value: "src"},
			{Key: "indexes", Value: bson.A{bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "name", Value: "a_1"}}}},
			{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}}, true},
		{"createIndexes w:majority j:false", bson.D{{Key: "createIndexes", Value: "src"},
			{Key: "indexes", Value: bson.A{bson.D{{Key: "key", Value: bson.D{{Key: "b", Value: 1}}}, {Key: "name", Value: "b_1"}}}},
			{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}, {Key: "j", Value: false}}}}, false},
		{"dropIndexes fsync:true", bson.D{{Key: "dropIndexes", Value: "src"}, {Key: "index", Value: "b_1"},
			{Key: "writeConcern", Value: bson.D{{Key: "fsync", Value: true}}}}, true},
		{"aggregate $out j:true", bson.D{{Key: "aggregate", Value: "src"},
			{Key: "pipeline", Value: bson.A{bson.D{{Key: "$out", Value: "copy"}}}},
			{Key: "cursor", Value: bson.D{}}, jTrue}, true},
		{"drop j:true", bson.D{{Key: "drop", Value: "plain"}, jTrue}, true},
	} {
		before := testenv.LodeMetric(t, db, "syncs")
		if err := d.RunCommand(ctx, c.cmd).Err(); err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if synced := testenv.LodeMetric(t, db, "syncs") > before; synced != c.synced {
			t.Errorf("%s: synced %v, want %v", c.what, synced, c.synced)
		}
	}
	err := d.RunCommand(ctx, bson.D{{Key: "create", Value: "two"},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: 2}}}}).Err()
	var we mongo.WriteException
	if !errors.As(err, &we) || we.WriteConcernError == nil || we.WriteConcernError.Code != 100 {
		t.Fatalf("create w:2: %v, want writeConcernError 100", err)
	}
	names, err := d.ListCollectionNames(ctx, bson.D{{Key: "name", Value: "two"}})
	if err != nil || len(names) != 1 {
		t.Fatalf("create w:2 did not create the collection: %v %v", names, err)
	}
	// A malformed write concern refuses the command before it runs.
	err = d.RunCommand(ctx, bson.D{{Key: "create", Value: "bad"},
		{Key: "writeConcern", Value: bson.D{{Key: "j", Value: "yes"}}}}).Err()
	if err == nil {
		t.Fatal("create with writeConcern j: \"yes\" accepted")
	}
	if names, _ := d.ListCollectionNames(ctx, bson.D{{Key: "name", Value: "bad"}}); len(names) != 0 {
		t.Fatal("create with a malformed write concern created the collection")
	}
}

// TestReadRefusesWriteConcern: a command that does not write refuses a
// writeConcern, whatever its value, with InvalidOptions (72) and no
// writeConcernError, as mongod does
// (jstests/core/commands_that_do_not_write_do_not_accept_wc.js); an
// aggregate that writes takes one.
func TestReadRefusesWriteConcern(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := context.Background()
	if _, err := d.Collection("leaves").InsertOne(ctx, bson.D{{Key: "type", Value: "oak"}}); err != nil {
		t.Fatal(err)
	}
	for _, wc := range []bson.D{{{Key: "w", Value: 1}}, {{Key: "w", Value: "invalid"}}, {}} {
		for _, cmd := range []bson.D{
			{{Key: "find", Value: "leaves"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: 1}}}},
			{{Key: "distinct", Value: "leaves"}, {Key: "key", Value: "_id"}},
			{{Key: "count", Value: "leaves"}, {Key: "query", Value: bson.D{{Key: "type", Value: "oak"}}}},
			{{Key: "aggregate", Value: "leaves"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$sort", Value: bson.D{{Key: "type", Value: 1}}}}}}, {Key: "cursor", Value: bson.D{}}},
			{{Key: "ping", Value: 1}},
		} {
			cmd = append(cmd, bson.E{Key: "writeConcern", Value: wc})
			var reply bson.Raw
			err := d.RunCommand(ctx, cmd).Decode(&reply)
			var ce mongo.CommandError
			if !errors.As(err, &ce) || ce.Code != 72 {
				t.Errorf("%v: %v, want InvalidOptions (72)", cmd, err)
			}
		}
	}
	err := d.RunCommand(ctx, bson.D{{Key: "aggregate", Value: "leaves"},
		{Key: "pipeline", Value: bson.A{bson.D{{Key: "$out", Value: "copied"}}}},
		{Key: "cursor", Value: bson.D{}}, {Key: "writeConcern", Value: bson.D{{Key: "w", Value: 1}}}}).Err()
	if err != nil {
		t.Fatalf("aggregate with $out and a write concern: %v", err)
	}
}
