package crud_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

func ids(t *testing.T, coll *mongo.Collection) map[string]bool {
	t.Helper()
	cur, err := coll.Find(context.Background(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		ID string `bson:"_id"`
	}
	if err := cur.All(context.Background(), &docs); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, d := range docs {
		out[d.ID] = true
	}
	return out
}

func TestTTLMonitorExpiresByIndexedDate(t *testing.T) {
	// Not parallel: timing: a TTL pass at a one-second interval must
	// delete within three seconds.
	db, d := testenv.Open(t)
	ctx := context.Background()
	coll := d.Collection("expire")
	_, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "endTime", Value: 1}},
		Options: options.Index().SetExpireAfterSeconds(3600)})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	old := now.Add(-2 * time.Hour)
	halfHour := now.Add(-30 * time.Minute)
	docs := []any{
		bson.D{{Key: "_id", Value: "old"}, {Key: "endTime", Value: old}},
		bson.D{{Key: "_id", Value: "recent"}, {Key: "endTime", Value: now}},
		bson.D{{Key: "_id", Value: "halfHour"}, {Key: "endTime", Value: halfHour}},
		// An array expires with its earliest date.
		bson.D{{Key: "_id", Value: "arrOld"}, {Key: "endTime", Value: bson.A{now.Add(time.Hour), old}}},
		bson.D{{Key: "_id", Value: "arrNew"}, {Key: "endTime", Value: bson.A{now, now.Add(time.Hour)}}},
		// Non-dates never expire.
		bson.D{{Key: "_id", Value: "string"}, {Key: "endTime", Value: "2001-01-01"}},
		bson.D{{Key: "_id", Value: "number"}, {Key: "endTime", Value: 0}},
		bson.D{{Key: "_id", Value: "null"}, {Key: "endTime", Value: nil}},
		bson.D{{Key: "_id", Value: "missing"}},
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	admin := db.Client().Database("admin")
	if err := admin.RunCommand(ctx, bson.D{{Key: "setParameter", Value: 1}, {Key: "ttlMonitorSleepSecs", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	waitGone := func(want map[string]bool) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Second)
		for {
			got := ids(t, coll)
			same := len(got) == len(want)
			for k := range want {
				same = same && got[k]
			}
			if same {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("after 3 s: got %v want %v", got, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitGone(map[string]bool{"recent": true, "halfHour": true, "arrNew": true, "string": true, "number": true, "null": true, "missing": true})
	ss := testenv.ServerStatus(t, db.Client())
	if n := ss.Lookup("metrics", "ttl", "deletedDocuments").AsInt64(); n != 2 {
		t.Errorf("metrics.ttl.deletedDocuments = %d, want 2", n)
	}
	if n := ss.Lookup("metrics", "ttl", "passes").AsInt64(); n < 1 {
		t.Errorf("metrics.ttl.passes = %d, want >= 1", n)
	}
	// collMod lowers expireAfterSeconds: the half-hour-old job now expires.
	var res bson.Raw
	err = d.RunCommand(ctx, bson.D{{Key: "collMod", Value: "expire"}, {Key: "index", Value: bson.D{
		{Key: "keyPattern", Value: bson.D{{Key: "endTime", Value: 1}}}, {Key: "expireAfterSeconds", Value: 600}}}}).Decode(&res)
	if err != nil {
		t.Fatal(err)
	}
	if res.Lookup("expireAfterSeconds_old").AsInt64() != 3600 || res.Lookup("expireAfterSeconds_new").AsInt64() != 600 {
		t.Fatalf("collMod reply %v", res)
	}
	waitGone(map[string]bool{"recent": true, "arrNew": true, "string": true, "number": true, "null": true, "missing": true})
	// listIndexes shows the new value.
	specs, err := coll.Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range specs {
		if s.Name == "endTime_1" && s.ExpireAfterSeconds != nil && *s.ExpireAfterSeconds == 600 {
			found = true
		}
	}
	if !found {
		t.Errorf("listIndexes does not show expireAfterSeconds 600: %+v", specs)
	}
	// An unknown index is IndexNotFound.
	err = d.RunCommand(ctx, bson.D{{Key: "collMod", Value: "expire"}, {Key: "index", Value: bson.D{
		{Key: "name", Value: "nope"}, {Key: "expireAfterSeconds", Value: 1}}}}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 27 {
		t.Errorf("want IndexNotFound, got %v", err)
	}
}
