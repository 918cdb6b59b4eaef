package changestreams

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// oplogWorkload makes every kind of entry: catalog commands (create,
// createIndexes, collMod, renameCollection, drop), inserts, updates that
// become $v: 2 diffs (set, unset, push, pop, nested), a replacement, a
// delete and a transaction.
func oplogWorkload(t *testing.T, db *mongo.Database) {
	t.Helper()
	ctx := testenv.Ctx(t)
	if err := db.CreateCollection(ctx, "cap", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20)); err != nil {
		t.Fatal(err)
	}
	w := db.Collection("work")
	if _, err := w.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}, {Key: "n", Value: bson.D{{Key: "x", Value: 1}}}, {Key: "arr", Value: bson.A{1, 2, 3}}},
		bson.D{{Key: "_id", Value: 2}, {Key: "gone", Value: true}},
		bson.D{{Key: "_id", Value: 3}},
	}); err != nil {
		t.Fatal(err)
	}
	testenv.CreateIndex(t, w, bson.D{{Key: "a", Value: 1}})
	for _, u := range []bson.D{
		{{Key: "$set", Value: bson.D{{Key: "a", Value: 2}, {Key: "n.y", Value: "new"}}}, {Key: "$push", Value: bson.D{{Key: "arr", Value: 4}}}},
		{{Key: "$unset", Value: bson.D{{Key: "n.x", Value: ""}}}, {Key: "$pop", Value: bson.D{{Key: "arr", Value: -1}}}},
		{{Key: "$inc", Value: bson.D{{Key: "count", Value: 5}}}},
	} {
		if _, err := w.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, u); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.ReplaceOne(ctx, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "replaced", Value: true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.DeleteOne(ctx, bson.D{{Key: "_id", Value: 3}}); err != nil {
		t.Fatal(err)
	}
	sess, err := db.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	if _, err := sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
		if _, err := w.InsertOne(sc, bson.D{{Key: "_id", Value: 10}}); err != nil {
			return nil, err
		}
		return w.UpdateOne(sc, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "intxn", Value: true}}}})
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("old").InsertOne(ctx, bson.D{{Key: "_id", Value: "r"}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "renameCollection", Value: "test.old"}, {Key: "to", Value: "test.renamed"}}).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("tmp").InsertOne(ctx, bson.D{}); err != nil {
		t.Fatal(err)
	}
	if err := db.Collection("tmp").Drop(ctx); err != nil {
		t.Fatal(err)
	}
}

// snapshot is every collection of db with its documents in _id order,
// its options and its index keys, as extended JSON.
func snapshot(t *testing.T, db *mongo.Database) map[string]string {
	t.Helper()
	ctx := testenv.Ctx(t)
	specs, err := db.ListCollectionSpecifications(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, sp := range specs {
		cur, err := db.Collection(sp.Name).Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
		if err != nil {
			t.Fatal(err)
		}
		var docs []bson.Raw
		if err := cur.All(ctx, &docs); err != nil {
			t.Fatal(err)
		}
		ix, err := db.Collection(sp.Name).Indexes().ListSpecifications(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s := "options " + sp.Options.String() + "\n"
		for _, i := range ix {
			s += "index " + i.Name + "\n"
		}
		for _, d := range docs {
			s += d.String() + "\n"
		}
		out[sp.Name] = s
	}
	return out
}

// TestApplyOpsReplaysTheOplog: applying one instance's oplog entries, one
// applyOps each as mongorestore --oplogReplay sends them, to an empty
// instance reproduces its collections, documents and indexes.
func TestApplyOpsReplaysTheOplog(t *testing.T) {
	_, src := testenv.Open(t)
	_, dst := testenv.Open(t)
	ctx := testenv.Ctx(t)
	oplogWorkload(t, src)
	ents := entries(t, src, bson.D{{Key: "op", Value: bson.D{{Key: "$ne", Value: "n"}}}})
	if len(ents) < 15 {
		t.Fatalf("only %d entries", len(ents))
	}
	admin := dst.Client().Database("admin")
	for _, e := range ents {
		res, err := testenv.RunCmd(t, admin, bson.D{{Key: "applyOps", Value: bson.A{e}}})
		if err != nil {
			t.Fatalf("applyOps %v: %v", e, err)
		}
		if n, _ := res.Lookup("applied").AsInt64OK(); n != 1 {
			t.Fatalf("applyOps reply %v", res)
		}
		if r, _ := res.Lookup("results").Array().Values(); len(r) != 1 || !r[0].Boolean() {
			t.Fatalf("applyOps results %v", res)
		}
	}
	want, got := snapshot(t, src), snapshot(t, dst)
	t.Logf("replayed %d entries; test.work:\n%s", len(ents), want["work"])
	if len(want) != len(got) {
		t.Fatalf("collections %v, want %v", got, want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Fatalf("collection %s after replay:\n%s\nwant:\n%s", name, got[name], w)
		}
	}
	if _, ok := got["tmp"]; ok {
		t.Fatal("dropped collection replayed back")
	}
	_ = ctx
}

// TestApplyOpsErrors: applyOps runs on admin only, refuses what Lode
// cannot honour, and an insert of an existing _id replaces it (mongod's
// alwaysUpsert).
func TestApplyOpsErrors(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	admin := db.Client().Database("admin")
	ins := bson.D{{Key: "op", Value: "i"}, {Key: "ns", Value: "test.c"}, {Key: "o", Value: bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: 1}}}}
	_, err := testenv.RunCmd(t, db, bson.D{{Key: "applyOps", Value: bson.A{ins}}})
	testenv.WantCode(t, "applyOps outside admin", err, 13)
	_, err = testenv.RunCmd(t, admin, bson.D{{Key: "applyOps", Value: bson.A{ins}}, {Key: "preCondition", Value: bson.A{bson.D{{Key: "ns", Value: "test.c"}}}}})
	testenv.WantCode(t, "preCondition", err, 238)
	res, err := testenv.RunCmd(t, admin, bson.D{{Key: "applyOps", Value: bson.A{ins, bson.D{{Key: "op", Value: "n"}, {Key: "ns", Value: ""}, {Key: "o", Value: bson.D{{Key: "msg", Value: "x"}}}}}}})
	testenv.WantOK(t, res, err)
	testenv.WantInt32(t, res, "applied", 2)
	again := bson.D{{Key: "op", Value: "i"}, {Key: "ns", Value: "test.c"}, {Key: "o", Value: bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: 2}}}}
	res, err = testenv.RunCmd(t, admin, bson.D{{Key: "applyOps", Value: bson.A{again}}})
	testenv.WantOK(t, res, err)
	if d := testenv.FindDoc(t, db.Collection("c"), 1); d["v"] != int32(2) {
		t.Fatalf("document after a second insert of its _id: %v", d)
	}
	_, err = testenv.RunCmd(t, admin, bson.D{{Key: "applyOps", Value: bson.A{bson.D{{Key: "op", Value: "c"}, {Key: "ns", Value: "test.$cmd"}, {Key: "o", Value: bson.D{{Key: "shutdown", Value: 1}}}}}}})
	testenv.WantCode(t, "shutdown in applyOps", err, 2)
	_, err = testenv.RunCmd(t, admin, bson.D{{Key: "applyOps", Value: bson.A{bson.D{{Key: "op", Value: "i"}, {Key: "ns", Value: "local.oplog.rs"}, {Key: "o", Value: bson.D{}}}}}})
	testenv.WantCode(t, "applyOps into the oplog", err, 73)
	_ = ctx
}
