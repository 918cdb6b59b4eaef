package agg

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/expr"
)

// TestFoldTable checks that folding the tables of consecutive ranges
// gives the groups, order, results and memory count of one table over
// all of them.
func TestFoldTable(t *testing.T) {
	raw, err := bson.Marshal(bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$k"},
		{Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}, {Key: "first", Value: bson.D{{Key: "$first", Value: "$i"}}},
		{Key: "last", Value: bson.D{{Key: "$last", Value: "$i"}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse([]bsoncore.Document{raw}, &ParseContext{DB: "db", Coll: "c"})
	if err != nil {
		t.Fatal(err)
	}
	g := p.stages[0].(*groupStage)
	var docs []bsoncore.Document
	for i := 0; i < 300; i++ {
		// Keys drift with i, as days do with time: ranges share some.
		docs = append(docs, bsoncore.NewDocumentBuilder().AppendInt32("k", int32(i/7+i%3)).AppendInt32("i", int32(i)).Build())
	}
	rc := &runCtx{ctx: context.Background(), vars: expr.NewVars(time.Now()), pc: p.pc}
	table := func(docs []bsoncore.Document) *groupTable {
		w := g.newWorker(rc, rc.vars.Clone(), rc.pc.newSpiller(), nil)
		if err := w.run(&sliceIter{docs: append([]bsoncore.Document(nil), docs...)}); err != nil {
			t.Fatal(err)
		}
		return w.t
	}
	one := table(docs)
	base := table(docs[:100])
	for _, r := range [][]bsoncore.Document{docs[100:170], docs[170:171], docs[171:]} {
		t2 := table(r)
		before := base.mem + t2.mem
		delta, err := g.foldTable(base, t2)
		if err != nil {
			t.Fatal(err)
		}
		if base.mem != before+delta || t2.mem != 0 || len(t2.order) != 0 {
			t.Fatalf("memory %d, want %d + %d; folded table keeps %d bytes, %d groups", base.mem, before, delta, t2.mem, len(t2.order))
		}
	}
	if base.mem != one.mem || len(base.order) != len(one.order) {
		t.Fatalf("folded: %d groups, %d bytes; one table: %d groups, %d bytes", len(base.order), base.mem, len(one.order), one.mem)
	}
	for i := range one.order {
		a, err := g.result(base.order[i])
		if err != nil {
			t.Fatal(err)
		}
		b, err := g.result(one.order[i])
		if err != nil {
			t.Fatal(err)
		}
		if bson.Raw(a).String() != bson.Raw(b).String() || base.keys[i] != one.keys[i] {
			t.Fatalf("group %d: folded %s, one table %s", i, bson.Raw(a), bson.Raw(b))
		}
	}
}
