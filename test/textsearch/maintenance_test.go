package textsearch_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// TestBuildOverExistingData builds the index after the documents exist,
// and keeps it across a restart (the catalog stores its options).
func TestBuildOverExistingData(t *testing.T) {
	dir := t.TempDir()
	db, err := lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testenv.Ctx(t)
	c := db.Client().Database("test").Collection("docs")
	for i, s := range []string{"the quick brown fox", "lazy dogs sleep", "foxes are quick"} {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: i + 1}, {Key: "body", Value: s}, {Key: "lang", Value: "english"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "body", Value: "text"}}}); err != nil {
		t.Fatal(err)
	}
	if got := idsString(ids(t, c, textFilter("fox"), nil, false)); got != "1 3" {
		t.Fatalf("fox: %s, want 1 3", got)
	}
	db.Close()
	db, err = lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c = db.Client().Database("test").Collection("docs")
	if got := idsString(ids(t, c, textFilter("quick"), nil, false)); got != "1 3" {
		t.Fatalf("quick after restart: %s, want 1 3", got)
	}
	d := listIndex(t, c, "body_text")
	if d.Lookup("textIndexVersion").Int32() != 3 || d.Lookup("weights", "body").Int32() != 1 {
		t.Fatalf("after restart: %s", d)
	}
}

// TestTransactions: documents written inside a transaction are found by
// $text inside it, and by everyone after the commit; an aborted one
// leaves no entries.
func TestTransactions(t *testing.T) {
	db, tdb := testenv.Open(t)
	ctx := testenv.Ctx(t)
	c := tdb.Collection("notes")
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "text", Value: "text"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "text", Value: "old note"}}); err != nil {
		t.Fatal(err)
	}
	sess, err := db.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	_, err = sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
		if _, err := c.InsertOne(sc, bson.D{{Key: "_id", Value: 2}, {Key: "text", Value: "new note about tigers"}}); err != nil {
			return nil, err
		}
		if _, err := c.UpdateOne(sc, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "text", Value: "tigers everywhere"}}}}); err != nil {
			return nil, err
		}
		cur, err := c.Find(sc, textFilter("tiger"))
		if err != nil {
			return nil, err
		}
		var in []bson.M
		if err := cur.All(sc, &in); err != nil {
			return nil, err
		}
		if len(in) != 2 {
			t.Errorf("inside the transaction: %v, want 2", in)
		}
		// Outside it, nothing yet.
		if got := idsString(ids(t, c, textFilter("tiger"), nil, false)); got != "" {
			t.Errorf("outside before commit: %s, want none", got)
		}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := idsString(ids(t, c, textFilter("tiger"), nil, false)); got != "1 2" {
		t.Fatalf("after commit: %s, want 1 2", got)
	}
	if got := idsString(ids(t, c, textFilter("old"), nil, false)); got != "" {
		t.Fatalf("old after commit: %s, want none (replaced)", got)
	}
	// Aborted: the entries of the insert do not remain.
	if err := mongo.WithSession(ctx, sess, func(sc context.Context) error {
		if err := sess.StartTransaction(); err != nil {
			return err
		}
		if _, err := c.InsertOne(sc, bson.D{{Key: "_id", Value: 3}, {Key: "text", Value: "lions"}}); err != nil {
			return err
		}
		return sess.AbortTransaction(sc)
	}); err != nil {
		t.Fatal(err)
	}
	if got := idsString(ids(t, c, textFilter("lion"), nil, false)); got != "" {
		t.Fatalf("after abort: %s, want none", got)
	}
}

// TestHiddenAndDrop: a hidden text index is not used ($text then has no
// index: 27), unhiding brings it back; dropping the collection drops it.
func TestHiddenAndDrop(t *testing.T) {
	c := articles(t)
	ctx := testenv.Ctx(t)
	db := c.Database()
	r, err := testenv.RunCmd(t, db, bson.D{{Key: "collMod", Value: "articles"}, {Key: "index", Value: bson.D{{Key: "name", Value: "subject_text"}, {Key: "hidden", Value: true}}}})
	testenv.WantOK(t, r, err)
	_, err = c.Find(ctx, textFilter("coffee"))
	testenv.WantCmdError(t, err, 27, "IndexNotFound")
	r, err = testenv.RunCmd(t, db, bson.D{{Key: "collMod", Value: "articles"}, {Key: "index", Value: bson.D{{Key: "name", Value: "subject_text"}, {Key: "hidden", Value: false}}}})
	testenv.WantOK(t, r, err)
	if got := idsString(ids(t, c, textFilter("coffee"), nil, false)); got != "1 2 7" {
		t.Fatalf("unhidden: %s", got)
	}
	if err := c.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InsertOne(ctx, bson.D{{Key: "subject", Value: "coffee"}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Find(ctx, textFilter("coffee"))
	testenv.WantCmdError(t, err, 27, "IndexNotFound")
}
