package textsearch_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestReferenceExamples runs every example of the $text reference page
// (query operator "$text", "Examples") against its articles collection
// and compares the documented result sets.
func TestReferenceExamples(t *testing.T) {
	c := articles(t)
	cases := []struct {
		name   string
		filter bson.D
		want   string
	}{
		{"single word", textFilter("coffee"), "1 2 7"},
		{"any of the terms", textFilter("bake coffee cake"), "1 2 3 4 7"},
		{"phrase", textFilter(`"coffee shop"`), "2"},
		{"negated term", textFilter("coffee -shop"), "1 7"},
		{"different language", textFilter("leche", bson.E{Key: "$language", Value: "es"}), "5 8"},
		{"language by name", textFilter("leche", bson.E{Key: "$language", Value: "spanish"}), "5 8"},
		{"case and diacritic insensitive", textFilter("сы́рники CAFÉS"), "5 6 8"},
		{"case sensitive term", textFilter("Coffee", bson.E{Key: "$caseSensitive", Value: true}), "2"},
		{"case sensitive phrase", textFilter(`"Café Con Leche"`, bson.E{Key: "$caseSensitive", Value: true}), "5"},
		{"case sensitive negated term", textFilter("Coffee -shop", bson.E{Key: "$caseSensitive", Value: true}), "2"},
		{"diacritic sensitive term", textFilter("CAFÉ", bson.E{Key: "$diacriticSensitive", Value: true}), "5"},
		{"diacritic sensitive negated term", textFilter("leches -cafés", bson.E{Key: "$diacriticSensitive", Value: true}), "8"},
		{"additional query", append(bson.D{{Key: "author", Value: "xyz"}}, textFilter("coffee bake")...), "1 4"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := idsString(ids(t, c, tc.filter, nil, false)); got != tc.want {
				t.Fatalf("_ids %s, want %s", got, tc.want)
			}
		})
	}
}

// TestReferenceScores checks the documented scores: "cake" scores 0.75 on
// "Baking a cake", and the top two "coffee" matches by score are _id 1
// then 7.
func TestReferenceScores(t *testing.T) {
	c := articles(t)
	ctx := testenv.Ctx(t)
	var doc bson.M
	if err := c.FindOne(ctx, textFilter("cake"), options.FindOne().SetProjection(scoreProj)).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc["_id"] != int32(3) || doc["score"] != 0.75 || doc["views"] != int32(90) {
		t.Fatalf("cake: %v, want _id 3 with score 0.75 and every field", doc)
	}
	sortScore := bson.D{{Key: "score", Value: bson.D{{Key: "$meta", Value: "textScore"}}}}
	// "coffee" alone scores 1 (one token of weight 1; the stem "coffe"
	// differs from the raw string, so no 1.1 boost); "Coffee Shopping" and
	// "coffee and cream" ("and" is a stop word) have two tokens: 0.75.
	cur, err := c.Find(ctx, textFilter("coffee"), options.Find().SetProjection(scoreProj).SetSort(sortScore).SetLimit(2))
	if err != nil {
		t.Fatal(err)
	}
	var top []bson.M
	if err := cur.All(ctx, &top); err != nil {
		t.Fatal(err)
	}
	if len(top) != 2 || top[0]["_id"] != int32(1) || top[0]["score"] != 1.0 || top[1]["score"] != 0.75 {
		t.Fatalf("top 2 coffee: %v, want _id 1 (score 1) then a 0.75", top)
	}
	// A hint naming the text index is accepted.
	if got := ids(t, c, textFilter("cake"), options.Find().SetHint("subject_text"), false); idsString(got) != "3" {
		t.Fatalf("hinted: %v", got)
	}
	// The sort alone (MongoDB 4.4+), without the projection.
	got := ids(t, c, textFilter("coffee"), options.Find().SetSort(sortScore), true)
	if len(got) != 3 || got[0] != 1 {
		t.Fatalf("coffee by score: %v, want _id 1 first of 3", got)
	}
	// Compound sort: date (missing: null everywhere) then score.
	got = ids(t, c, append(bson.D{{Key: "author", Value: "xyz"}}, textFilter("coffee bake")...),
		options.Find().SetProjection(scoreProj).SetSort(bson.D{{Key: "date", Value: 1}, {Key: "score", Value: bson.D{{Key: "$meta", Value: "textScore"}}}}), true)
	if idsString(got) != "1 4" {
		t.Fatalf("author xyz, coffee bake: %v, want 1 4", got)
	}
}
