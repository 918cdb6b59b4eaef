package transactions_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// TestRenameDropTargetVersusCommit races renameCollection with dropTarget
// (source created after the target, so it has the higher id) against
// transaction commits that wrote both collections. Both lock the two
// collections; in different orders they would deadlock. Each round must
// finish, whatever the outcome of the commit (a WriteConflict once the
// rename changed the catalog is fine). LODE_ACCEPTANCE=1 runs 3,000
// rounds, the everyday run 500.
func TestRenameDropTargetVersusCommit(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	c := testenv.Ctx(t)
	admin := db.Client().Database("admin")
	rounds := testenv.Size(500, 3000)
	for round := 0; round < rounds; round++ {
		_ = d.Collection("dst").Drop(c)
		_ = d.Collection("src").Drop(c)
		if err := d.CreateCollection(c, "dst"); err != nil { // lower id
			t.Fatal(err)
		}
		if err := d.CreateCollection(c, "src"); err != nil {
			t.Fatal(err)
		}
		sess, err := db.Client().StartSession()
		if err != nil {
			t.Fatal(err)
		}
		if err := sess.StartTransaction(); err != nil {
			t.Fatal(err)
		}
		sc := mongo.NewSessionContext(c, sess)
		if _, err := d.Collection("dst").InsertOne(sc, bson.D{{Key: "r", Value: round}}); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Collection("src").InsertOne(sc, bson.D{{Key: "r", Value: round}}); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			_ = sess.CommitTransaction(context.Background())
		}()
		go func() {
			defer wg.Done()
			_ = admin.RunCommand(context.Background(), bson.D{
				{Key: "renameCollection", Value: d.Name() + ".src"},
				{Key: "to", Value: d.Name() + ".dst"}, {Key: "dropTarget", Value: true}}).Err()
		}()
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("round %d: rename and commit did not finish (deadlock)", round)
		}
		sess.EndSession(c)
	}
}
