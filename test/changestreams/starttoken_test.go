package changestreams_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestWatchFirstBatchOfSizeZero: a change stream whose first batch has
// size 0 gets an empty first batch and a postBatchResumeToken, the point
// it starts from, even when changes already wait after that point (a busy
// source); the changes come with the first getMore. lode migrate takes
// the start of its catch-up so (internal/migrate's startToken): with the
// default first batch, a change made between the stream's start and its
// first batch came in that batch, without a token before it.
func TestWatchFirstBatchOfSizeZero(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("busy")
	sess, err := db.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	sctx := mongo.NewSessionContext(ctx, sess)
	if _, err := coll.InsertOne(sctx, bson.D{{Key: "i", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	start := sess.OperationTime()
	for i := 1; i < 4; i++ {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "i", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := db.Client().Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetStartAtOperationTime(start).SetBatchSize(0))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	if cs.ResumeToken() == nil {
		t.Fatal("no resume token in an empty first batch")
	}
	if n := cs.RemainingBatchLength(); n != 0 {
		t.Fatalf("first batch of %d changes, want none", n)
	}
	for want := 0; want < 4; want++ {
		if !cs.Next(ctx) {
			t.Fatalf("change %d missing: %v", want, cs.Err())
		}
		if got := cs.Current.Lookup("fullDocument", "i").Int32(); got != int32(want) {
			t.Fatalf("change %d is the insert of i=%d", want, got)
		}
	}
}
