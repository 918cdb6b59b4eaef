package textsearch_test

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestTextIndexCollation follows the text index page's "Text Indexes and
// Collation" rule: text indexes support only the simple collation, so on
// a collection with a default collation the index must give {locale:
// "simple"} (mongod refuses text and 2d indexes with any other collation,
// given or inherited, with CannotCreateIndex); 2dsphere indexes take the
// collation. A $text query ignores the query's collation.
func TestTextIndexCollation(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	if err := db.CreateCollection(ctx, "fr", options.CreateCollection().SetCollation(&options.Collation{Locale: "fr"})); err != nil {
		t.Fatal(err)
	}
	fr := db.Collection("fr")
	plain := db.Collection("plain")
	cases := []struct {
		name string
		c    *mongo.Collection
		key  bson.D
		coll *options.Collation
		code int32 // 0: created
	}{
		{"text inherits the default", fr, bson.D{{Key: "subject", Value: "text"}}, nil, 67},
		{"2d inherits the default", fr, bson.D{{Key: "loc", Value: "2d"}}, nil, 67},
		{"text given a collation", plain, bson.D{{Key: "subject", Value: "text"}}, &options.Collation{Locale: "en"}, 67},
		{"2d given a collation", plain, bson.D{{Key: "loc", Value: "2d"}}, &options.Collation{Locale: "en", Strength: 2}, 67},
		{"compound text given a collation", plain, bson.D{{Key: "a", Value: 1}, {Key: "subject", Value: "text"}}, &options.Collation{Locale: "en"}, 67},
		{"text simple on the fr collection", fr, bson.D{{Key: "subject", Value: "text"}}, &options.Collation{Locale: "simple"}, 0},
		{"2d simple on the fr collection", fr, bson.D{{Key: "loc", Value: "2d"}}, &options.Collation{Locale: "simple"}, 0},
		{"2dsphere inherits the default", fr, bson.D{{Key: "geo", Value: "2dsphere"}}, nil, 0},
		{"2dsphere given a collation", plain, bson.D{{Key: "geo", Value: "2dsphere"}}, &options.Collation{Locale: "en"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := options.Index()
			if tc.coll != nil {
				opts.SetCollation(tc.coll)
			}
			_, err := tc.c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: tc.key, Options: opts})
			if tc.code == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			testenv.WantCode(t, tc.name, err, tc.code)
			if !strings.Contains(err.Error(), "does not support collation") {
				t.Fatalf("message: %v", err)
			}
		})
	}
	// The simple-collation text index answers $text on the fr collection.
	if _, err := fr.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "subject", Value: "Café au lait"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "subject", Value: "thé"}},
	}); err != nil {
		t.Fatal(err)
	}
	if got := idsString(ids(t, fr, textFilter("cafe"), nil, false)); got != "1" {
		t.Fatalf("cafe on fr: %s, want 1", got)
	}
	// A query collation does not change $text's matching.
	c := articles(t)
	got := ids(t, c, textFilter("COFFEE"), options.Find().SetCollation(&options.Collation{Locale: "en", Strength: 1}), false)
	if idsString(got) != "1 2 7" {
		t.Fatalf("coffee with a collation: %v, want 1 2 7", got)
	}
}
