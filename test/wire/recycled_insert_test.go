package wire_test

import (
	"context"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	lwire "github.com/lodedb/lode/internal/wire"
	"github.com/lodedb/lode/test/testenv"
)

// TestRecycledInsertMemory: lode serve reuses an insert's message memory
// for the next message once the engine has copied the documents
// (wire.Msg.Recycle). With recycled memory overwritten at once, nothing
// of several insertMany batches (each over the smallest pooled size) and
// one in a transaction may change: the documents, their change events
// (the oplog), and the profiler's entries (the command, copied out of the
// message before it is recycled).
func TestRecycledInsertMemory(t *testing.T) {
	lwire.SetPoisonRecycled(true)
	t.Cleanup(func() { lwire.SetPoisonRecycled(false) })
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := d.Collection("c")
	if err := d.CreateCollection(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if err := d.RunCommand(ctx, bson.D{{Key: "profile", Value: 2}}).Err(); err != nil {
		t.Fatal(err)
	}
	cs, err := coll.Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)

	const per, batches = 3000, 3
	want := func(i int) bson.D {
		return bson.D{{Key: "_id", Value: int32(i)}, {Key: "s", Value: fmt.Sprintf("doc-%06d", i)}, {Key: "n", Value: int64(i) * 7}}
	}
	batch := func(from int) []any {
		docs := make([]any, per)
		for i := range docs {
			docs[i] = want(from + i)
		}
		return docs
	}
	for b := 0; b < batches; b++ {
		if _, err := coll.InsertMany(ctx, batch(b*per)); err != nil {
			t.Fatal(err)
		}
	}
	// In a transaction the engine keeps the documents until the commit:
	// this batch's memory must not be recycled.
	sess, err := d.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	if _, err := sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
		if _, err := coll.InsertMany(sc, batch(batches*per)); err != nil {
			return nil, err
		}
		// Other messages of pooled size in between.
		for b := 0; b < 2; b++ {
			if _, err := d.Collection("other").InsertMany(sc, batch(100000+b*per)); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	total := (batches + 1) * per

	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.Raw
	if err := cur.All(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != total {
		t.Fatalf("%d documents, want %d", len(got), total)
	}
	for i, g := range got {
		if w, _ := bson.Marshal(want(i)); !bytesEqual(g, w) {
			t.Fatalf("document %d is %v, want %v", i, g, bson.Raw(w))
		}
	}

	for i := 0; i < total; i++ {
		if !cs.Next(ctx) {
			t.Fatalf("change stream ended after %d events: %v", i, cs.Err())
		}
		full := cs.Current.Lookup("fullDocument")
		if w, _ := bson.Marshal(want(i)); !bytesEqual(full.Value, w) {
			t.Fatalf("change event %d has fullDocument %v, want %v", i, full, bson.Raw(w))
		}
	}

	pcur, err := d.Collection("system.profile").Find(ctx, bson.D{{Key: "op", Value: "insert"}, {Key: "ns", Value: "test.c"}})
	if err != nil {
		t.Fatal(err)
	}
	var prof []struct {
		Command   bson.M `bson:"command"`
		Ninserted int    `bson:"ninserted"`
	}
	if err := pcur.All(ctx, &prof); err != nil {
		t.Fatal(err)
	}
	if len(prof) != batches+1 {
		t.Fatalf("%d profile entries for the inserts, want %d", len(prof), batches+1)
	}
	for _, p := range prof {
		if p.Command["insert"] != "c" || p.Command["$db"] != "test" || p.Ninserted != per {
			t.Fatalf("profile entry: command %v, ninserted %d", p.Command, p.Ninserted)
		}
	}
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }
