package textsearch_test

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestLanguages: for each language an index's default_language selects
// the stemmer (an inflected word is found by another form with the same
// Snowball stem) and the stop words (a query of stop words only matches
// nothing, but does under $language "none").
func TestLanguages(t *testing.T) {
	cases := []struct {
		lang, doc, query, stop string
	}{
		{"english", "The consignment arrived", "CONSIGNED", "the"},
		{"french", "Il parle continuellement", "continuel", "le"},
		{"german", "Die aufeinanderfolgenden Tage", "aufeinanderfolgen", "und"},
		{"spanish", "La casa abandonada", "abandonadas", "el"},
		{"portuguese", "Estradas quilométricas", "quilométrica", "não"},
		{"italian", "Una casa abbandonata", "abbandonate", "il"},
	}
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	for i, c := range cases {
		t.Run(c.lang, func(t *testing.T) {
			coll := db.Collection(fmt.Sprintf("l%d", i))
			if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "t", Value: "text"}},
				Options: options.Index().SetDefaultLanguage(c.lang)}); err != nil {
				t.Fatal(err)
			}
			if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: c.doc}},
				bson.D{{Key: "_id", Value: 2}, {Key: "t", Value: c.stop + " zzz"}}}); err != nil {
				t.Fatal(err)
			}
			if got := idsString(ids(t, coll, textFilter(c.query), nil, false)); got != "1" {
				t.Fatalf("%q: %s, want 1", c.query, got)
			}
			if got := idsString(ids(t, coll, textFilter(c.stop), nil, false)); got != "" {
				t.Fatalf("stop word %q: %s, want none", c.stop, got)
			}
		})
	}
}
