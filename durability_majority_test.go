package lode_test

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/lodedb/lode"
)

// syncWaits reads serverStatus.metrics.lode.syncWaits: how many writes
// waited for a journal fsync.
func syncWaits(t testing.TB, db *lode.DB) int64 { return lodeMetric(t, db, "syncWaits") }

// lodeMetric reads serverStatus.metrics.lode.<name>.
func lodeMetric(t testing.TB, db *lode.DB, name string) int64 {
	t.Helper()
	var st bson.Raw
	if err := db.Client().Database("admin").RunCommand(context.Background(), bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err != nil {
		t.Fatal(err)
	}
	v, err := st.LookupErr("metrics", "lode", name)
	if err != nil {
		t.Fatalf("serverStatus has no metrics.lode.%s: %v", name, err)
	}
	return v.AsInt64()
}

// TestMajorityImpliesJournal checks writeConcernMajorityJournalDefault
// (true in MongoDB): a w:"majority" write, and a commitTransaction with
// w:"majority", are acknowledged only after an fsync covers them, while
// w:1 and w:"majority" with an explicit j:false do not wait. The
// background sync is off (one hour), so only a wait shows up.
func TestMajorityImpliesJournal(t *testing.T) {
	db, d := durOpen(t, lode.WithSyncInterval(time.Hour))
	c := context.Background()
	insert := func(wc *writeconcern.WriteConcern) int64 {
		t.Helper()
		before := syncWaits(t, db)
		coll := d.Collection("maj", options.Collection().SetWriteConcern(wc))
		if _, err := coll.InsertOne(c, bson.D{{Key: "a", Value: 1}}); err != nil {
			t.Fatal(err)
		}
		return syncWaits(t, db) - before
	}
	if n := insert(writeconcern.W1()); n != 0 {
		t.Fatalf("w:1 insert waited for %d fsyncs, want 0", n)
	}
	if n := insert(writeconcern.Majority()); n != 1 {
		t.Fatalf("w:majority insert waited for %d fsyncs, want 1", n)
	}
	if n := insert(&writeconcern.WriteConcern{W: "majority", Journal: new(bool)}); n != 0 {
		t.Fatalf("w:majority, j:false insert waited for %d fsyncs, want 0", n)
	}

	sess, err := db.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(c)
	before := syncWaits(t, db)
	_, err = sess.WithTransaction(c, func(sc context.Context) (any, error) {
		return d.Collection("maj").InsertOne(sc, bson.D{{Key: "t", Value: 1}})
	}, options.Transaction().SetWriteConcern(writeconcern.Majority()))
	if err != nil {
		t.Fatal(err)
	}
	if n := syncWaits(t, db) - before; n != 1 {
		t.Fatalf("commitTransaction with w:majority waited for %d fsyncs, want 1", n)
	}
	var doc bson.Raw
	if err := d.Collection("maj").FindOne(c, bson.D{{Key: "t", Value: 1}}).Decode(&doc); err != nil {
		t.Fatalf("committed document: %v", err)
	}
}
