package engine

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/indexkey"
)

func TestMultikeyAndParallelArrays(t *testing.T) {
	e := openTest(t, "")
	if _, err := e.CreateIndex("db", "m", IndexSpec{Key: D(t, bson.D{{Key: "metadata.key", Value: 1}, {Key: "metadata.value", Value: 1}})}); err != nil {
		t.Fatal(err)
	}
	insert(t, e, "db", "m", bson.D{{Key: "_id", Value: 1}, {Key: "metadata", Value: bson.A{
		bson.D{{Key: "key", Value: "color"}, {Key: "value", Value: "red"}},
		bson.D{{Key: "key", Value: "size"}, {Key: "value", Value: 3}},
	}}})
	ix, _ := e.ListIndexes("db", "m")
	if !ix[1].Multikey || len(ix[1].MultikeyPaths) != 1 || ix[1].MultikeyPaths[0] != "metadata" {
		t.Fatalf("multikey info = %+v", ix[1])
	}
	c := e.cat.Load().lookup("db", "m")
	var g indexkey.Generator
	keys, _, _, err := g.Keys(c.Indexes[1], D(t, bson.D{{Key: "metadata", Value: bson.A{
		bson.D{{Key: "key", Value: "color"}, {Key: "value", Value: "red"}},
		bson.D{{Key: "key", Value: "size"}, {Key: "value", Value: 3}},
	}}}))
	if err != nil || len(keys) != 2 {
		t.Fatalf("keys = %d %v (want one key per element, as MongoDB generates)", len(keys), err)
	}
	if _, err := e.CreateIndex("db", "p", IndexSpec{Key: D(t, bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 1}})}); err != nil {
		t.Fatal(err)
	}
	res, _ := e.Insert(ctx, "db", "p", []bsoncore.Document{D(t, bson.D{{Key: "a", Value: bson.A{1, 2}}, {Key: "b", Value: bson.A{1, 2}}})}, WriteOptions{Ordered: true})
	if len(res.WriteErrors) != 1 || res.WriteErrors[0].Err.Code != errs.CannotIndexParallelArrays {
		t.Fatalf("parallel arrays: %+v", res)
	}
	if n, _ := e.Count(ctx, "db", "p", nil, 0, 0, bsoncore.Value{}); n != 0 {
		t.Fatalf("failed doc left state: %d", n)
	}
}

func TestUniqueIndexUpdateAndDrop(t *testing.T) {
	e := openTest(t, "")
	insert(t, e, "db", "u", bson.D{{Key: "_id", Value: 1}, {Key: "e", Value: "x"}}, bson.D{{Key: "_id", Value: 2}, {Key: "e", Value: "y"}})
	if _, err := e.CreateIndex("db", "u", IndexSpec{Key: D(t, bson.D{{Key: "e", Value: 1}}), Unique: true}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Update(ctx, "db", "u", []UpdateSpec{{Filter: D(t, bson.D{{Key: "_id", Value: 2}}), Update: val(t, bson.D{{Key: "$set", Value: bson.D{{Key: "e", Value: "x"}}}})}}, WriteOptions{Ordered: true})
	if err != nil || len(res.WriteErrors) != 1 || res.WriteErrors[0].Err.Code != errs.DuplicateKey {
		t.Fatalf("update to dup: %+v %v", res, err)
	}
	// Swapping the value away frees it.
	res, _ = e.Update(ctx, "db", "u", []UpdateSpec{
		{Filter: D(t, bson.D{{Key: "_id", Value: 1}}), Update: val(t, bson.D{{Key: "$set", Value: bson.D{{Key: "e", Value: "z"}}}})},
		{Filter: D(t, bson.D{{Key: "_id", Value: 2}}), Update: val(t, bson.D{{Key: "$set", Value: bson.D{{Key: "e", Value: "x"}}}})},
	}, WriteOptions{Ordered: true})
	if len(res.WriteErrors) != 0 || res.NModified != 2 {
		t.Fatalf("swap: %+v", res)
	}
	if created, err := e.CreateIndex("db", "u", IndexSpec{Key: D(t, bson.D{{Key: "e", Value: 1}}), Unique: true}); err != nil || created {
		t.Fatalf("re-create identical: %v %v", created, err)
	}
	if err := e.DropIndex("db", "u", "e_1"); err != nil {
		t.Fatal(err)
	}
	if r := insert(t, e, "db", "u", bson.D{{Key: "_id", Value: 3}, {Key: "e", Value: "x"}}); r.N != 1 {
		t.Fatalf("after drop index: %+v", r)
	}
	if _, err := e.CreateIndex("db", "u", IndexSpec{Key: D(t, bson.D{{Key: "e", Value: 1}}), Unique: true}); !errs.Is(err, errs.DuplicateKey) {
		t.Fatalf("build over duplicates: %v", err)
	}
	ix, _ := e.ListIndexes("db", "u")
	if len(ix) != 1 {
		t.Fatalf("failed build left index: %+v", ix)
	}
	st, err := e.CollectionStats("db", "u")
	if err != nil || st.Count != 3 || st.NIndexes != 1 {
		t.Fatalf("stats: %+v %v", st, err)
	}
	vals, err := e.Distinct(ctx, "db", "u", "e", nil)
	if err != nil || len(vals) != 2 {
		t.Fatalf("distinct: %v %v", vals, err)
	}
}
