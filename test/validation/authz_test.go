package validation

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// TestBypassNeedsPrivilege: as in mongod, bypassDocumentValidation: true
// needs the bypassDocumentValidation action (dbAdmin, restore, root), so a
// readWrite user cannot skip a validator (13 Unauthorized); without the
// option the same user writes normally.
func TestBypassNeedsPrivilege(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t, lode.WithAuth("root", "rootpwd"))
	ctx := testenv.Ctx(t)
	createWith(t, d, "guarded", bson.E{Key: "validator", Value: qtyValidator})
	if _, err := testenv.RunCmd(t, d, bson.D{{Key: "createUser", Value: "rw"}, {Key: "pwd", Value: "rwpwd"},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "readWrite"}, {Key: "db", Value: d.Name()}}}}}); err != nil {
		t.Fatal(err)
	}
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + testenv.HostPort(db)).
		SetAuth(options.Credential{Username: "rw", Password: "rwpwd", AuthSource: d.Name()}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	coll := client.Database(d.Name()).Collection("guarded")
	bad := bson.D{{Key: "qty", Value: -1}}
	_, err = coll.InsertOne(ctx, bad, options.InsertOne().SetBypassDocumentValidation(true))
	testenv.WantCode(t, "insert with bypass as readWrite", err, 13)
	_, err = coll.UpdateOne(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "qty", Value: -1}}}},
		options.UpdateOne().SetUpsert(true).SetBypassDocumentValidation(true))
	testenv.WantCode(t, "update with bypass as readWrite", err, 13)
	_, err = coll.InsertOne(ctx, bad)
	wantValidationFailure(t, "insert as readWrite", err)
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "qty", Value: 1}, {Key: "name", Value: "ok"}}); err != nil {
		t.Errorf("valid insert as readWrite: %v", err)
	}
	// root holds bypassDocumentValidation.
	if _, err := d.Collection("guarded").InsertOne(ctx, bad, options.InsertOne().SetBypassDocumentValidation(true)); err != nil {
		t.Errorf("insert with bypass as root: %v", err)
	}
}
