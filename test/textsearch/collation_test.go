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

// TestSimpleIndexOnCollatedCollection: the simple text index of a
// collection with a default collation survives $out into it (the index
// is copied as it is, not under the default), and an applyOps
// createIndexes entry without a collation builds a simple index, as
// mongod applies its entries.
func TestSimpleIndexOnCollatedCollection(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	if err := db.CreateCollection(ctx, "fr", options.CreateCollection().SetCollation(&options.Collation{Locale: "fr", Strength: 2})); err != nil {
		t.Fatal(err)
	}
	fr := db.Collection("fr")
	if _, err := fr.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "subject", Value: "text"}},
		Options: options.Index().SetCollation(&options.Collation{Locale: "simple"})}); err != nil {
		t.Fatal(err)
	}
	src := db.Collection("src")
	if _, err := src.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "subject", Value: "coffee"}}); err != nil {
		t.Fatal(err)
	}
	cur, err := src.Aggregate(ctx, mongo.Pipeline{{{Key: "$out", Value: "fr"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := idsString(ids(t, fr, textFilter("coffee"), nil, false)); got != "1" {
		t.Fatalf("after $out: %s, want 1", got)
	}
	if d := listIndex(t, fr, "subject_text"); d == nil {
		t.Fatal("text index lost by $out")
	}

	// applyOps: {a: 1} without a collation on the collated collection is
	// simple; it tells "A" from "a".
	entry := bson.D{{Key: "op", Value: "c"}, {Key: "ns", Value: db.Name() + ".$cmd"},
		{Key: "o", Value: bson.D{{Key: "createIndexes", Value: "fr"}, {Key: "v", Value: 2}, {Key: "key", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "name", Value: "a_1"}}}}
	if _, err := testenv.RunCmd(t, db.Client().Database("admin"), bson.D{{Key: "applyOps", Value: bson.A{entry}}}); err != nil {
		t.Fatal(err)
	}
	if d := listIndex(t, fr, "a_1"); d == nil {
		t.Fatal("a_1 not built")
	} else if _, err := d.LookupErr("collation"); err == nil {
		t.Fatalf("a_1 has a collation: %s", d)
	}
}
