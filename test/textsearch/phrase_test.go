package textsearch_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// TestReferenceBehavior runs the $text reference page's "Behavior"
// rules (phrases, negation, stemming, stop words, case and diacritic
// insensitivity of phrases) over its articles collection.
func TestReferenceBehavior(t *testing.T) {
	c := articles(t)
	cases := []struct {
		name   string
		filter bson.D
		want   string
	}{
		// "If the $search string includes a phrase and individual terms,
		// text search will only match the documents that include the
		// phrase."
		{"phrase and term", textFilter(`"coffee shop" cake`), "2"},
		// Several phrases: each one must be present.
		{"two phrases", textFilter(`"coffee shop" "coffee and"`), ""},
		{"two phrases both present", textFilter(`"coffee" "shopping"`), "2"},
		// A negated phrase excludes the documents holding it.
		{"negated phrase", textFilter(`coffee -"coffee shop"`), "1 7"},
		// Phrases are case and diacritic insensitive by default.
		{"phrase case insensitive", textFilter(`"COFFEE SHOP"`), "2"},
		{"phrase diacritic insensitive", textFilter(`"cafe con"`), "5 8"},
		{"phrase diacritic sensitive", textFilter(`"cafe con"`, bson.E{Key: "$diacriticSensitive", Value: true}), "8"},
		// Stemming: "shopping" and "shop" share the stem "shop".
		{"stemmed term", textFilter("shop"), "2"},
		{"stemmed query", textFilter("shops"), "2"},
		{"stemmed baking", textFilter("bake"), "3 4"},
		// Stop words are dropped from the query: "and" alone finds nothing.
		{"stop word", textFilter("and"), ""},
		// Only negated terms: nothing matches.
		{"only negation", textFilter("-coffee"), ""},
		// $language none: the query's terms are not stemmed, while the
		// index keyed the English stems: "shopping" stays "shopping" and
		// finds nothing, "shop" finds the stem of "Shopping", and "and"
		// was never indexed.
		{"language none unstemmed query", textFilter("shopping", bson.E{Key: "$language", Value: "none"}), ""},
		{"language none stem itself", textFilter("shop", bson.E{Key: "$language", Value: "none"}), "2"},
		{"language none stop word", textFilter("and", bson.E{Key: "$language", Value: "none"}), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := idsString(ids(t, c, tc.filter, nil, false)); got != tc.want {
				t.Fatalf("_ids %q, want %q", got, tc.want)
			}
		})
	}
}

// TestStemmedWords: the $text page's "Stemmed Words": a search matches
// the complete stemmed word, so "blue" does not find "blueberry" while
// "blueberry" and "blueberries" do; and "Case Sensitive Search and
// Stemmed Words": with $caseSensitive the stem must match in case too.
func TestStemmedWords(t *testing.T) {
	_, db := testenv.Open(t)
	c := db.Collection("berries")
	ctx := testenv.Ctx(t)
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "t", Value: "text"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: "a blueberry pie"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "t", Value: "Blueberries"}},
		bson.D{{Key: "_id", Value: 3}, {Key: "t", Value: "blue sky"}},
	}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		filter bson.D
		want   string
	}{
		{"prefix is not a stem", textFilter("blue"), "3"},
		{"singular", textFilter("blueberry"), "1 2"},
		{"plural", textFilter("blueberries"), "1 2"},
		{"case sensitive", textFilter("Blueberry", bson.E{Key: "$caseSensitive", Value: true}), "2"},
		{"case sensitive lower", textFilter("blueberries", bson.E{Key: "$caseSensitive", Value: true}), "1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := idsString(ids(t, c, tc.filter, nil, false)); got != tc.want {
				t.Fatalf("_ids %q, want %q", got, tc.want)
			}
		})
	}
}
