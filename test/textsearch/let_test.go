package textsearch_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestTextWithLetVariables: the $text page's "additional query" example
// ({author: "xyz", $text: "coffee bake"}: _ids 1 and 4) with the author
// given as a let variable in $expr, through aggregate (sorted by score,
// projected) and find.
func TestTextWithLetVariables(t *testing.T) {
	c := articles(t)
	ctx := testenv.Ctx(t)
	filter := append(textFilter("coffee bake"), bson.E{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{"$author", "$$a"}}}})
	let := bson.D{{Key: "a", Value: "xyz"}}
	cur, err := c.Aggregate(ctx, mongo.Pipeline{
		{{Key: "$match", Value: filter}},
		{{Key: "$sort", Value: bson.D{{Key: "s", Value: metaScore()}, {Key: "_id", Value: 1}}}},
		{{Key: "$project", Value: bson.D{{Key: "s", Value: metaScore()}}}},
	}, options.Aggregate().SetLet(let))
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.M
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	// "coffee" alone scores 1 on _id 1; "baking" alone scores 1 on 4.
	if len(docs) != 2 || docs[0]["_id"] != int32(1) || docs[1]["_id"] != int32(4) || docs[0]["s"] != 1.0 || docs[1]["s"] != 1.0 {
		t.Fatalf("aggregate: %v, want _ids 1 and 4 scoring 1", docs)
	}
	if got := idsString(ids(t, c, filter, options.Find().SetLet(let), false)); got != "1 4" {
		t.Fatalf("find: %s, want 1 4", got)
	}
}
