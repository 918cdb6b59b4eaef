package textsearch_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestExplainShape checks 7.0's plan for $text: TEXT_MATCH over TEXT_OR
// over one IXSCAN per term, with parsedTextQuery.
func TestExplainShape(t *testing.T) {
	c := articles(t)
	res := testenv.Explain(t, c.Database(), bson.D{{Key: "find", Value: "articles"},
		{Key: "filter", Value: textFilter(`coffee cakes -shop "coffee and" -"sugar free"`)}}, "executionStats")
	wp := testenv.WinningPlan(res)
	if got := testenv.Stages(wp); len(got) < 3 || got[0] != "TEXT_MATCH" || got[1] != "TEXT_OR" || got[2] != "IXSCAN" {
		t.Fatalf("stages %v, want TEXT_MATCH, TEXT_OR, IXSCAN...", got)
	}
	tm := testenv.FindStage(wp, "TEXT_MATCH")
	pq := tm.Lookup("parsedTextQuery").Document().String()
	want := `{"terms": ["cake","coffe"],"negatedTerms": ["shop"],"phrases": ["coffee and"],"negatedPhrases": ["sugar free"]}`
	if pq != want {
		t.Fatalf("parsedTextQuery %s, want %s", pq, want)
	}
	if tm.Lookup("indexName").StringValue() != "subject_text" || tm.Lookup("textIndexVersion").Int32() != 3 {
		t.Fatalf("TEXT_MATCH %s", tm)
	}
	or := testenv.FindStage(wp, "TEXT_OR")
	scans, _ := or.Lookup("inputStages").Array().Values()
	if n := len(scans); n != 2 {
		t.Fatalf("TEXT_OR has %d scans, want one per term (2)", n)
	}
	ix := testenv.FindStage(wp, "IXSCAN")
	if k := ix.Lookup("keyPattern").Document().String(); k != `{"_fts": "text","_ftsx": {"$numberInt":"1"}}` {
		t.Fatalf("IXSCAN keyPattern %s", k)
	}
	// "coffee and" as a phrase: only _id 7 ("coffee and cream").
	if n := res.Lookup("executionStats", "nReturned").Int32(); n != 1 {
		t.Fatalf("nReturned %d, want 1", n)
	}
}

// TestWriteCommands: count, distinct, update, delete and findAndModify
// with $text select the same documents as find.
func TestWriteCommands(t *testing.T) {
	c := articles(t)
	ctx := testenv.Ctx(t)
	n, err := c.CountDocuments(ctx, textFilter("coffee"))
	if err != nil || n != 3 {
		t.Fatalf("countDocuments: %d %v, want 3", n, err)
	}
	r, err := testenv.RunCmd(t, c.Database(), bson.D{{Key: "count", Value: "articles"}, {Key: "query", Value: textFilter("coffee -shop")}})
	testenv.WantOK(t, r, err)
	if r.Lookup("n").AsInt64() != 2 {
		t.Fatalf("count: %s", r)
	}
	var authors []string
	if err := c.Distinct(ctx, "author", textFilter("coffee")).Decode(&authors); err != nil || len(authors) != 2 {
		t.Fatalf("distinct: %v %v, want [efg xyz]", authors, err)
	}
	ur, err := c.UpdateMany(ctx, textFilter("bake"), bson.D{{Key: "$inc", Value: bson.D{{Key: "views", Value: 1}}}})
	if err != nil || ur.MatchedCount != 2 || ur.ModifiedCount != 2 {
		t.Fatalf("updateMany: %+v %v, want 2", ur, err)
	}
	if d := testenv.FindDoc(t, c, 4); d["views"] != int32(101) {
		t.Fatalf("after update: %v", d)
	}
	// The update changes the indexed field: the old terms go, the new come.
	if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: 4}}, bson.D{{Key: "$set", Value: bson.D{{Key: "subject", Value: "tea time"}}}}); err != nil {
		t.Fatal(err)
	}
	if got := idsString(ids(t, c, textFilter("bake"), nil, false)); got != "3" {
		t.Fatalf("bake after update: %s, want 3", got)
	}
	if got := idsString(ids(t, c, textFilter("tea"), nil, false)); got != "4" {
		t.Fatalf("tea after update: %s, want 4", got)
	}
	// findAndModify by score: the best "coffee" match is _id 1.
	var fam bson.M
	err = c.FindOneAndUpdate(ctx, textFilter("coffee"), bson.D{{Key: "$set", Value: bson.D{{Key: "top", Value: true}}}},
		options.FindOneAndUpdate().SetSort(bson.D{{Key: "score", Value: bson.D{{Key: "$meta", Value: "textScore"}}}})).Decode(&fam)
	if err != nil || fam["_id"] != int32(1) {
		t.Fatalf("findOneAndUpdate: %v %v, want _id 1", fam, err)
	}
	dr, err := c.DeleteMany(ctx, textFilter("leche"))
	if err != nil || dr.DeletedCount != 2 {
		t.Fatalf("deleteMany: %+v %v, want 2", dr, err)
	}
	if got := idsString(ids(t, c, textFilter("leche cafe"), nil, false)); got != "" {
		t.Fatalf("after delete: %s, want none", got)
	}
	// validate checks the text index's entries against the documents.
	vr, err := testenv.RunCmd(t, c.Database(), bson.D{{Key: "validate", Value: "articles"}, {Key: "full", Value: true}})
	testenv.WantOK(t, vr, err)
	if !vr.Lookup("valid").Boolean() {
		t.Fatalf("validate: %s", vr)
	}
}
