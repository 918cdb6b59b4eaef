package changestreams

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestPreAndPostImages: with changeStreamPreAndPostImages enabled, update
// events carry the document after (fullDocument: required) and before
// (fullDocumentBeforeChange) the change, and delete events the document
// before; without it whenAvailable gives null and required fails with
// NoMatchingDocument (47); collMod turns the option on for later changes.
func TestPreAndPostImages(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	on := options.CreateCollection().SetChangeStreamPreAndPostImages(bson.D{{Key: "enabled", Value: true}})
	if err := db.CreateCollection(ctx, "img", on); err != nil {
		t.Fatal(err)
	}
	coll := db.Collection("img")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	cs, err := coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().
		SetFullDocument(options.Required).SetFullDocumentBeforeChange(options.WhenAvailable))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	upd := next(t, cs)
	if opType(upd) != "update" || i32(upd, "fullDocument", "n") != 2 || i32(upd, "fullDocumentBeforeChange", "n") != 1 {
		t.Fatalf("update event = %v", upd)
	}
	del := next(t, cs)
	if opType(del) != "delete" || i32(del, "fullDocumentBeforeChange", "n") != 2 {
		t.Fatalf("delete event = %v", del)
	}

	// Without images: whenAvailable gives null, required fails.
	plain := db.Collection("plain")
	if _, err := plain.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	soft, err := plain.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetFullDocumentBeforeChange(options.WhenAvailable))
	if err != nil {
		t.Fatal(err)
	}
	defer soft.Close(ctx)
	hard, err := plain.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetFullDocumentBeforeChange(options.Required))
	if err != nil {
		t.Fatal(err)
	}
	defer hard.Close(ctx)
	if _, err := plain.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	ev := next(t, soft)
	if v := ev.Lookup("fullDocumentBeforeChange"); v.Type != bson.TypeNull {
		t.Fatalf("whenAvailable without images: %v", ev)
	}
	nctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if hard.Next(nctx) {
		t.Fatalf("required without images delivered %v", hard.Current)
	}
	testenv.WantCode(t, "required pre-image missing", hard.Err(), 47)

	// collMod turns images on.
	if _, err := testenv.RunCmd(t, db, bson.D{{Key: "collMod", Value: "plain"},
		{Key: "changeStreamPreAndPostImages", Value: bson.D{{Key: "enabled", Value: true}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := plain.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 2}}}}); err != nil {
		t.Fatal(err)
	}
	ev = next(t, soft) // the collMod is an event only with showExpandedEvents
	if opType(ev) != "update" {
		t.Fatalf("after collMod: %v", ev)
	}
	if i32(ev, "fullDocumentBeforeChange", "x") != 1 {
		t.Fatalf("after collMod: %v", ev)
	}
	_, err = testenv.RunCmd(t, db, bson.D{{Key: "collMod", Value: "plain"},
		{Key: "changeStreamPreAndPostImages", Value: bson.D{{Key: "on", Value: true}}}})
	testenv.WantCode(t, "unknown field", err, 40415)
}
