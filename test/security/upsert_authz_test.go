package security

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestUpsertNeedsInsert: an update that may insert (upsert: true) needs
// the insert action as well as update, as mongod's update command checks
// it. The Go driver sends the statements in an OP_MSG document sequence,
// which the server does not copy into the command document: the check
// must read them from the sequence.
func TestUpsertNeedsInsert(t *testing.T) {
	s := startServer(t, "--auth")
	ctx := t.Context()
	root := rootClient(t, s)
	app := root.Database("appdb")
	if _, err := app.Collection("items").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	onItems := func(actions ...string) bson.A {
		return bson.A{bson.D{{Key: "resource", Value: bson.D{{Key: "db", Value: "appdb"}, {Key: "collection", Value: "items"}}},
			{Key: "actions", Value: actions}}}
	}
	for _, r := range []struct {
		role    string
		actions []string
	}{{"updater", []string{"find", "update"}}, {"upserter", []string{"find", "update", "insert"}}} {
		if err := app.RunCommand(ctx, bson.D{{Key: "createRole", Value: r.role}, {Key: "privileges", Value: onItems(r.actions...)},
			{Key: "roles", Value: bson.A{}}}).Err(); err != nil {
			t.Fatal(err)
		}
		if err := app.RunCommand(ctx, bson.D{{Key: "createUser", Value: r.role}, {Key: "pwd", Value: "pw"},
			{Key: "roles", Value: bson.A{r.role}}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	set := bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}
	upd := goClient(t, s.authURI("updater", "pw", "appdb", "appdb", nil)).Database("appdb").Collection("items")
	if _, err := upd.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, set); err != nil {
		t.Fatalf("an update without upsert, with the update action: %v", err)
	}
	_, err := upd.UpdateOne(ctx, bson.D{{Key: "_id", Value: 2}}, set, options.UpdateOne().SetUpsert(true))
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 13 {
		t.Fatalf("an upsert without the insert action: %v, want Unauthorized (13)", err)
	}
	ups := goClient(t, s.authURI("upserter", "pw", "appdb", "appdb", nil)).Database("appdb").Collection("items")
	if r, err := ups.UpdateOne(ctx, bson.D{{Key: "_id", Value: 2}}, set, options.UpdateOne().SetUpsert(true)); err != nil || r.UpsertedCount != 1 {
		t.Fatalf("an upsert with update and insert: %v %v", r, err)
	}
}
