package textsearch_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

func aggregate(t *testing.T, c *mongo.Collection, pipeline bson.A) ([]bson.M, error) {
	t.Helper()
	cur, err := c.Aggregate(testenv.Ctx(t), pipeline)
	if err != nil {
		return nil, err
	}
	var out []bson.M
	err = cur.All(testenv.Ctx(t), &out)
	return out, err
}

func metaScore() bson.D { return bson.D{{Key: "$meta", Value: "textScore"}} }

// TestAggregateTutorial runs the examples of "Text Search in the
// Aggregation Pipeline" against the $text reference page's articles
// (subject instead of the tutorial's title field).
func TestAggregateTutorial(t *testing.T) {
	c := articles(t)
	match := func(s string, extra ...bson.E) bson.D { return bson.D{{Key: "$match", Value: textFilter(s, extra...)}} }

	// Total views of the articles that contain "cake": only _id 3 (90).
	got, err := aggregate(t, c, bson.A{match("cake"), bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "views", Value: bson.D{{Key: "$sum", Value: "$views"}}}}}}})
	if err != nil || len(got) != 1 || got[0]["views"] != int32(90) {
		t.Fatalf("cake views: %v %v, want 90", got, err)
	}

	// Sorted by score, projected: "Baking a cake" (cake: 0.75) is the only
	// match of "cake tea"; the hidden score never shows.
	got, err = aggregate(t, c, bson.A{match("cake tea"), bson.D{{Key: "$sort", Value: bson.D{{Key: "score", Value: metaScore()}}}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "subject", Value: 1}, {Key: "_id", Value: 0}}}}})
	if err != nil || len(got) != 1 || len(got[0]) != 1 || got[0]["subject"] != "Baking a cake" {
		t.Fatalf("cake tea sorted: %v %v", got, err)
	}

	// Match on the projected score.
	pipe := func(min float64) bson.A {
		return bson.A{match("cake tea"), bson.D{{Key: "$project", Value: bson.D{{Key: "subject", Value: 1}, {Key: "_id", Value: 0}, {Key: "score", Value: metaScore()}}}},
			bson.D{{Key: "$match", Value: bson.D{{Key: "score", Value: bson.D{{Key: "$gt", Value: min}}}}}}}
	}
	got, err = aggregate(t, c, pipe(1.0))
	if err != nil || len(got) != 0 {
		t.Fatalf("score > 1.0: %v %v, want none", got, err)
	}
	got, err = aggregate(t, c, pipe(0.5))
	if err != nil || len(got) != 1 || got[0]["score"] != 0.75 || got[0]["subject"] != "Baking a cake" {
		t.Fatalf("score > 0.5: %v %v, want Baking a cake at 0.75", got, err)
	}

	// Spanish, with a negated term: no article has "saber".
	got, err = aggregate(t, c, bson.A{match("saber -claro", bson.E{Key: "$language", Value: "es"}), bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "views", Value: bson.D{{Key: "$sum", Value: "$views"}}}}}}})
	if err != nil || len(got) != 0 {
		t.Fatalf("saber -claro: %v %v, want no group", got, err)
	}

	// $addFields then a $sort on the added field, and a $meta sort after
	// another stage: "coffee" scores 1 on _id 1 and 0.75 on 2 and 7.
	got, err = aggregate(t, c, bson.A{match("coffee"), bson.D{{Key: "$addFields", Value: bson.D{{Key: "s", Value: metaScore()}}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "s", Value: -1}, {Key: "_id", Value: 1}}}}})
	if err != nil || len(got) != 3 || got[0]["_id"] != int32(1) || got[0]["s"] != 1.0 || got[1]["_id"] != int32(2) || got[2]["s"] != 0.75 {
		t.Fatalf("coffee $addFields: %v %v", got, err)
	}
	for _, d := range got {
		if _, ok := d["$textScore"]; ok {
			t.Fatalf("hidden score field in output: %v", d)
		}
	}
	got, err = aggregate(t, c, bson.A{match("coffee"), bson.D{{Key: "$match", Value: bson.D{{Key: "views", Value: bson.D{{Key: "$gte", Value: 10}}}}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "score", Value: metaScore()}}}}})
	if err != nil || len(got) != 2 || got[0]["_id"] != int32(1) || got[1]["_id"] != int32(7) {
		t.Fatalf("coffee, views >= 10, by score: %v %v, want 1 then 7", got, err)
	}
}

// TestAggregateErrors checks mongod's placement rules for $text and
// textScore in pipelines.
func TestAggregateErrors(t *testing.T) {
	c := articles(t)
	_, err := aggregate(t, c, bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "views", Value: 5}}}}, bson.D{{Key: "$match", Value: textFilter("coffee")}}})
	testenv.WantCmdError(t, err, 17313, "Location17313")
	_, err = aggregate(t, c, bson.A{bson.D{{Key: "$project", Value: bson.D{{Key: "score", Value: metaScore()}}}}})
	testenv.WantCmdError(t, err, 40218, "Location40218")
	_, err = aggregate(t, c, bson.A{bson.D{{Key: "$sort", Value: bson.D{{Key: "score", Value: metaScore()}}}}})
	testenv.WantCmdError(t, err, 40218, "Location40218")
}

// TestLookupSubPipeline: a $lookup sub-pipeline whose first $match has
// $text searches the foreign collection, with its scores.
func TestLookupSubPipeline(t *testing.T) {
	c := articles(t)
	other := c.Database().Collection("other")
	if _, err := other.InsertOne(testenv.Ctx(t), bson.D{{Key: "q", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	got, err := aggregate(t, other, bson.A{
		bson.D{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "articles"}, {Key: "pipeline", Value: bson.A{
			bson.D{{Key: "$match", Value: textFilter("coffee")}},
			bson.D{{Key: "$project", Value: bson.D{{Key: "s", Value: metaScore()}}}},
			bson.D{{Key: "$sort", Value: bson.D{{Key: "s", Value: -1}, {Key: "_id", Value: 1}}}}}}, {Key: "as", Value: "hits"}}}}})
	if err != nil || len(got) != 1 {
		t.Fatalf("lookup: %v %v", got, err)
	}
	hits := got[0]["hits"].(bson.A)
	if len(hits) != 3 {
		t.Fatalf("hits %v, want 3", hits)
	}
	first := bson.M{}
	for _, e := range hits[0].(bson.D) {
		first[e.Key] = e.Value
	}
	if first["_id"] != int32(1) || first["s"] != 1.0 || len(first) != 2 {
		t.Fatalf("first hit %v, want {_id: 1, s: 1}", first)
	}
}
