package textsearch_test

import (
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestTextInsideOr: a $text that is a branch of a top-level $or, every
// other branch answered by an index, returns the union of the branches,
// each document once. The expected ids come from the articles: "coffee"
// is in the subject of 1, 2 and 7 (the $text reference page's first
// example); the other branch selects by _id or by the indexed author.
func TestTextInsideOr(t *testing.T) {
	c := articles(t)
	ctx := testenv.Ctx(t)
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "author", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	or := func(branches ...any) bson.D { return bson.D{{Key: "$or", Value: bson.A(branches)}} }
	cases := []struct {
		name   string
		filter bson.D
		want   string
	}{
		{"text or _id", or(textFilter("coffee"), bson.D{{Key: "_id", Value: 3}}), "1 2 3 7"},
		{"_id branch first", or(bson.D{{Key: "_id", Value: 3}}, textFilter("coffee")), "1 2 3 7"},
		{"overlap counted once", or(textFilter("coffee"), bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{1, 3}}}}}), "1 2 3 7"},
		{"indexed author", or(textFilter("coffee"), bson.D{{Key: "author", Value: "abc"}}), "1 2 3 5 7"},
		{"range on an index", or(textFilter("baking"), bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 7}}}}), "3 4 7 8"},
		{"three branches", or(bson.D{{Key: "author", Value: "jkl"}}, textFilter("leche"), bson.D{{Key: "_id", Value: 1}}), "1 5 6 8"},
		{"negated term", or(textFilter(`coffee -shopping`), bson.D{{Key: "_id", Value: 4}}), "1 4 7"},
		// A conjunct beside the $or applies to every branch: author
		// xyz is 1, 4 and 8.
		{"$or beside a conjunct", append(bson.D{{Key: "author", Value: "xyz"}}, or(bson.D{{Key: "_id", Value: 4}}, textFilter("coffee"))...), "1 4"},
		{"$or inside $and", bson.D{{Key: "$and", Value: bson.A{bson.D{{Key: "views", Value: bson.D{{Key: "$lt", Value: 60}}}}, or(textFilter("coffee"), bson.D{{Key: "_id", Value: 8}})}}}, "1 2 7 8"},
		{"branch with another predicate", or(textFilter("coffee"), bson.D{{Key: "author", Value: "xyz"}, {Key: "views", Value: 100}}), "1 2 4 7"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := idsString(ids(t, c, tc.filter, nil, false)); got != tc.want {
				t.Fatalf("ids %s, want %s", got, tc.want)
			}
			n, err := c.CountDocuments(ctx, tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			if want := int64(len(ids(t, c, tc.filter, nil, false))); n != want {
				t.Fatalf("count %d, want %d", n, want)
			}
		})
	}
}

// TestTextInsideOrScore: documents from the $text branch carry their
// score; a document only the other branch returns has none, so a
// {$meta: "textScore"} projection leaves the field out (mongod's
// ExpressionMeta gives missing without a score) and a textScore sort
// takes it as 0 (mongod's WorkingSetMember text score), so it comes last.
func TestTextInsideOrScore(t *testing.T) {
	c := articles(t)
	ctx := testenv.Ctx(t)
	filter := bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{1, 3}}}}}, textFilter("coffee")}}}
	cur, err := c.Find(ctx, filter, options.Find().SetProjection(scoreProj).
		SetSort(bson.D{{Key: "score", Value: bson.D{{Key: "$meta", Value: "textScore"}}}}))
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) != 4 {
		t.Fatalf("%d documents, want 4: %v", len(docs), docs)
	}
	for i, d := range docs {
		id := d.Lookup("_id").Int32()
		sc, has := d.Lookup("score").DoubleOK()
		if id == 3 {
			if has || i != 3 {
				t.Fatalf("_id 3 (no text match) at %d with score %v, want last without a score", i, d)
			}
			continue
		}
		if !has || sc <= 0 || math.IsNaN(sc) {
			t.Fatalf("_id %d has score %v, want a positive text score", id, d.Lookup("score"))
		}
		if i > 0 {
			if prev, ok := docs[i-1].Lookup("score").DoubleOK(); ok && prev < sc {
				t.Fatalf("scores not descending: %v", docs)
			}
		}
	}
	// _id 1 ("coffee", the whole subject) outranks 2 and 7.
	if docs[0].Lookup("_id").Int32() != 1 {
		t.Fatalf("first %v, want _id 1", docs[0])
	}
}

// TestTextInsideOrUnindexed: a branch no index answers is mongod's 291.
func TestTextInsideOrUnindexed(t *testing.T) {
	c := articles(t)
	ctx := testenv.Ctx(t)
	for _, f := range []bson.D{
		{{Key: "$or", Value: bson.A{textFilter("coffee"), bson.D{{Key: "views", Value: 5}}}}},
		{{Key: "$or", Value: bson.A{textFilter("coffee"), bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "author", Value: "abc"}}}}},
	} {
		_, err := c.Find(ctx, f)
		ce := testenv.WantCmdError(t, err, 291, "NoQueryExecutionPlans")
		if want := "error processing query: planner returned error :: caused by :: Failed to produce a solution for TEXT under OR - other non-TEXT clauses under OR have to be indexed as well."; ce.Message != want {
			t.Fatalf("errmsg %q, want %q", ce.Message, want)
		}
	} // Under a root $and mongod words it otherwise; the code is the same.
	_, err := c.Find(ctx, bson.D{{Key: "author", Value: "abc"}, {Key: "$or", Value: bson.A{textFilter("coffee"), bson.D{{Key: "views", Value: 5}}}}})
	testenv.WantCmdError(t, err, 291, "NoQueryExecutionPlans")
}

// TestTextInsideOrExplain: mongod plans {$or: [{_id: 1}, {$text}]} as
// FETCH > OR > [TEXT, IXSCAN {_id: 1}] (its planner test
// TextInsideOrBasic), the text node being TEXT_MATCH > TEXT_OR > IXSCAN.
func TestTextInsideOrExplain(t *testing.T) {
	c := articles(t)
	res := testenv.Explain(t, c.Database(), bson.D{{Key: "find", Value: "articles"},
		{Key: "filter", Value: bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "_id", Value: 1}}, textFilter("coffee")}}}}}, "executionStats")
	wp := testenv.WinningPlan(res)
	if s := wp.Lookup("stage").StringValue(); s != "FETCH" {
		t.Fatalf("root %s, want FETCH: %s", s, wp)
	}
	or := wp.Lookup("inputStage")
	if or.Document().Lookup("stage").StringValue() != "OR" {
		t.Fatalf("under FETCH %s, want OR", or)
	}
	kids, _ := or.Document().Lookup("inputStages").Array().Values()
	if len(kids) != 2 {
		t.Fatalf("OR has %d inputs, want 2", len(kids))
	}
	if got := testenv.Stages(kids[0].Document()); len(got) != 3 || got[0] != "TEXT_MATCH" || got[1] != "TEXT_OR" || got[2] != "IXSCAN" {
		t.Fatalf("first OR input %v, want TEXT_MATCH, TEXT_OR, IXSCAN", got)
	}
	ix := kids[1].Document()
	if ix.Lookup("stage").StringValue() != "IXSCAN" || ix.Lookup("keyPattern").Document().String() != `{"_id": {"$numberInt":"1"}}` {
		t.Fatalf("second OR input %s, want IXSCAN {_id: 1}", ix)
	}
	// coffee: 1, 2, 7; _id 1 again, dropped by the OR.
	if n := res.Lookup("executionStats", "nReturned").Int32(); n != 3 {
		t.Fatalf("nReturned %d, want 3", n)
	}
}

// TestTextInsideOrBesideConjunct: mongod's planner test TextInsideOrBasic
// plans {a: 0, $or: [{_id: 1}, {$text}]} as FETCH {filter: {a: 0}} over
// OR [TEXT, IXSCAN {_id: 1}].
func TestTextInsideOrBesideConjunct(t *testing.T) {
	c := articles(t)
	filter := bson.D{{Key: "author", Value: "efg"}, {Key: "$or", Value: bson.A{bson.D{{Key: "_id", Value: 1}}, textFilter("coffee")}}}
	res := testenv.Explain(t, c.Database(), bson.D{{Key: "find", Value: "articles"}, {Key: "filter", Value: filter}}, "executionStats")
	wp := testenv.WinningPlan(res)
	if wp.Lookup("stage").StringValue() != "FETCH" || wp.Lookup("inputStage", "stage").StringValue() != "OR" {
		t.Fatalf("plan %s, want FETCH over OR", wp)
	}
	if f := wp.Lookup("filter").Document().String(); f != `{"author": {"$eq": "efg"}}` {
		t.Fatalf("FETCH filter %s, want {author: {$eq: \"efg\"}}", f)
	}
	// coffee: 1 (xyz), 2 (efg), 7 (efg).
	if got := idsString(ids(t, c, filter, nil, false)); got != "2 7" {
		t.Fatalf("ids %s, want 2 7", got)
	}
}

// TestTextInsideOrAggregate: the same $or as a pipeline's first $match;
// {$meta: "textScore"} is missing for the document without a score (as
// mongod's ExpressionMeta gives it) and sorts it last.
func TestTextInsideOrAggregate(t *testing.T) {
	c := articles(t)
	ctx := testenv.Ctx(t)
	meta := bson.D{{Key: "$meta", Value: "textScore"}}
	cur, err := c.Aggregate(ctx, bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "$or", Value: bson.A{textFilter("coffee"), bson.D{{Key: "_id", Value: 3}}}}}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "s", Value: meta}}}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "s", Value: meta}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) != 4 || docs[0].Lookup("_id").Int32() != 1 || docs[3].Lookup("_id").Int32() != 3 {
		t.Fatalf("docs %v, want 4 with _id 1 first and 3 last", docs)
	}
	if _, err := docs[3].LookupErr("s"); err == nil {
		t.Fatalf("_id 3 has a score: %v", docs[3])
	}
	for _, d := range docs[:3] {
		if s, ok := d.Lookup("s").DoubleOK(); !ok || s <= 0 {
			t.Fatalf("%v: want a positive score", d)
		}
	}
}

// TestTextInsideOrCompound: with a compound text index the $text branch
// needs its own equality on the prefix field; one beside the $or does
// not count (the planner error users of mongod report for it).
func TestTextInsideOrCompound(t *testing.T) {
	_, db := testenv.Open(t)
	c := db.Collection("posts")
	ctx := testenv.Ctx(t)
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "user", Value: 1}, {Key: "body", Value: "text"}}}); err != nil {
		t.Fatal(err)
	}
	docs := []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "user", Value: "u1"}, {Key: "body", Value: "red apples"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "user", Value: "u2"}, {Key: "body", Value: "red cherries"}},
		bson.D{{Key: "_id", Value: 3}, {Key: "user", Value: "u1"}, {Key: "body", Value: "green pears"}},
		bson.D{{Key: "_id", Value: 4}, {Key: "user", Value: "u2"}, {Key: "body", Value: "yellow lemons"}},
	}
	if _, err := c.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	red := append(bson.D{{Key: "user", Value: "u1"}}, textFilter("red")...)
	ok := bson.D{{Key: "$or", Value: bson.A{red, bson.D{{Key: "_id", Value: 4}}}}}
	if got := idsString(ids(t, c, ok, nil, false)); got != "1 4" {
		t.Fatalf("ids %s, want 1 4", got)
	}
	noPrefix := bson.D{{Key: "user", Value: "u1"}, {Key: "$or", Value: bson.A{textFilter("red"), bson.D{{Key: "_id", Value: 4}}}}}
	_, err := c.Find(ctx, noPrefix)
	testenv.WantCmdError(t, err, 2, "BadValue")
}

// TestTextInsideOrWrites: update and delete select the same union.
func TestTextInsideOrWrites(t *testing.T) {
	c := articles(t)
	ctx := testenv.Ctx(t)
	filter := bson.D{{Key: "$or", Value: bson.A{textFilter("coffee"), bson.D{{Key: "_id", Value: 3}}}}}
	up, err := c.UpdateMany(ctx, filter, bson.D{{Key: "$set", Value: bson.D{{Key: "hit", Value: true}}}})
	if err != nil || up.ModifiedCount != 4 {
		t.Fatalf("updateMany: %v %v, want 4 modified", up, err)
	}
	if got := idsString(ids(t, c, bson.D{{Key: "hit", Value: true}}, nil, false)); got != "1 2 3 7" {
		t.Fatalf("updated %s, want 1 2 3 7", got)
	}
	del, err := c.DeleteMany(ctx, filter)
	if err != nil || del.DeletedCount != 4 {
		t.Fatalf("deleteMany: %v %v, want 4 deleted", del, err)
	}
	if got := idsString(ids(t, c, bson.D{}, nil, false)); got != "4 5 6 8" {
		t.Fatalf("left %s, want 4 5 6 8", got)
	}
}
