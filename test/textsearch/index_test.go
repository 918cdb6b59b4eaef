package textsearch_test

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

func listIndex(t *testing.T, c *mongo.Collection, name string) bson.Raw {
	t.Helper()
	cur, err := c.Indexes().List(testenv.Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var all []bson.Raw
	if err := cur.All(testenv.Ctx(t), &all); err != nil {
		t.Fatal(err)
	}
	for _, d := range all {
		if d.Lookup("name").StringValue() == name {
			return d
		}
	}
	t.Fatalf("no index %q in %v", name, all)
	return nil
}

// TestListIndexesShape checks the stored form mongod lists (and mongodump
// saves): key {_fts: "text", _ftsx: 1}, the text fields in weights, the
// default language and override and textIndexVersion 3.
func TestListIndexesShape(t *testing.T) {
	_, db := testenv.Open(t)
	c := db.Collection("blog")
	ctx := testenv.Ctx(t)
	name, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{
		Keys:    bson.D{{Key: "content", Value: "text"}, {Key: "keywords", Value: "text"}},
		Options: options.Index().SetWeights(bson.D{{Key: "content", Value: 10}, {Key: "keywords", Value: 5}}),
	})
	if err != nil || name != "content_text_keywords_text" {
		t.Fatalf("createIndex: %q %v", name, err)
	}
	d := listIndex(t, c, name)
	want := `{"v": {"$numberInt":"2"},"key": {"_fts": "text","_ftsx": {"$numberInt":"1"}},"name": "content_text_keywords_text","weights": {"content": {"$numberInt":"10"},"keywords": {"$numberInt":"5"}},"default_language": "english","language_override": "language","textIndexVersion": {"$numberInt":"3"}}`
	if d.String() != want {
		t.Fatalf("listIndexes:\n got %s\nwant %s", d, want)
	}
	// Creating it again is a no-op; recreating from the stored form (as
	// mongorestore does) is too.
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "content", Value: "text"}, {Key: "keywords", Value: "text"}},
		Options: options.Index().SetWeights(bson.D{{Key: "content", Value: 10}, {Key: "keywords", Value: 5}})}); err != nil {
		t.Fatalf("same index again: %v", err)
	}
	r, err := testenv.RunCmd(t, db, bson.D{{Key: "createIndexes", Value: "blog"}, {Key: "indexes", Value: bson.A{bson.D{
		{Key: "key", Value: bson.D{{Key: "_fts", Value: "text"}, {Key: "_ftsx", Value: 1}}}, {Key: "name", Value: name},
		{Key: "weights", Value: bson.D{{Key: "content", Value: 10}, {Key: "keywords", Value: 5}}},
		{Key: "default_language", Value: "english"}, {Key: "language_override", Value: "language"}, {Key: "textIndexVersion", Value: 3}}}}})
	testenv.WantOK(t, r, err)
	testenv.WantInt32(t, r, "numIndexesAfter", 2)

	// One text index per collection (mongod: CannotCreateIndex).
	_, err = c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "title", Value: "text"}}})
	ce := testenv.WantCmdError(t, err, 67, "CannotCreateIndex")
	if ce.Message != `only one text index per collection allowed, found existing text index "content_text_keywords_text"` {
		t.Fatalf("message: %q", ce.Message)
	}
	// Dropping it by name lets another one be built.
	if err := c.Indexes().DropOne(ctx, name); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "$**", Value: "text"}}}); err != nil {
		t.Fatal(err)
	}
	d = listIndex(t, c, "$**_text")
	if w := d.Lookup("weights").Document().String(); w != `{"$**": {"$numberInt":"1"}}` {
		t.Fatalf("wildcard weights %s", w)
	}
}

// TestWeights follows "Assign Weights to Text Search Results": a match in
// content (weight 10) scores ten times one in keywords (weight 1, left
// out of weights), and about: 5.
func TestWeights(t *testing.T) {
	_, db := testenv.Open(t)
	c := db.Collection("blog")
	ctx := testenv.Ctx(t)
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{
		Keys:    bson.D{{Key: "content", Value: "text"}, {Key: "keywords", Value: "text"}, {Key: "about", Value: "text"}},
		Options: options.Index().SetWeights(bson.D{{Key: "content", Value: 10}, {Key: "keywords", Value: 5}}).SetName("TextIndex"),
	}); err != nil {
		t.Fatal(err)
	}
	_, err := c.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "content", Value: "This morning I had a cup of coffee."}, {Key: "about", Value: "beverage"}, {Key: "keywords", Value: bson.A{"coffee"}}},
		bson.D{{Key: "_id", Value: 2}, {Key: "content", Value: "Who likes chocolate ice cream for dessert?"}, {Key: "about", Value: "food"}, {Key: "keywords", Value: bson.A{"poll"}}},
		bson.D{{Key: "_id", Value: 3}, {Key: "content", Value: "My favorite flavors are strawberry and chocolate."}, {Key: "about", Value: "ice cream"}, {Key: "keywords", Value: bson.A{"food", "dessert"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	score := func(id int, search string) float64 {
		var d bson.M
		if err := c.FindOne(ctx, append(bson.D{{Key: "_id", Value: id}}, textFilter(search)...), options.FindOne().SetProjection(scoreProj)).Decode(&d); err != nil {
			t.Fatalf("%d %q: %v", id, search, err)
		}
		return d["score"].(float64)
	}
	// _id 1, "coffee": content "This morning I had a cup of coffee." has
	// the tokens morn, cup, coffe (this, i, had, a, of: stop words), so
	// 10 * 1 * (0.5/3 + 0.5); keywords ["coffee"]: 5 * 1 * 1 * 1.0 (the
	// stem "coffe" is not the whole string).
	if got, want := score(1, "coffee"), 10*(0.5/3+0.5)+5; got != want {
		t.Fatalf("coffee score %v, want %v", got, want)
	}
	// about weight 1: "ice cream" (2 tokens) for "cream" on _id 3 is
	// 0.75, and content's "strawberry" etc do not have it.
	if got := score(3, "cream"); got != 0.75 {
		t.Fatalf("cream score %v, want 0.75", got)
	}
	// A repeated term: each occurrence adds half the previous one.
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 4}, {Key: "about", Value: "tea tea tea"}}); err != nil {
		t.Fatal(err)
	}
	// freq 1 + 1/2 + 1/4, coefficient 0.5*3/3 + 0.5 = 1.
	if got := score(4, "tea"); got != 1.75 {
		t.Fatalf("tea tea tea score %v, want 1.75", got)
	}
	// A field equal to its stemmed term gets the 1.1 boost.
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: 5}, {Key: "about", Value: "Tea"}}); err != nil {
		t.Fatal(err)
	}
	if got := score(5, "tea"); got != 1.1 {
		t.Fatalf("Tea score %v, want 1.1", got)
	}
}

// TestCompoundIndex: prefix fields need an equality predicate; suffix
// fields are stored in the entries.
func TestCompoundIndex(t *testing.T) {
	_, db := testenv.Open(t)
	c := db.Collection("inventory")
	ctx := testenv.Ctx(t)
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "dept", Value: 1}, {Key: "description", Value: "text"}, {Key: "qty", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	d := listIndex(t, c, "dept_1_description_text_qty_1")
	if k := d.Lookup("key").Document().String(); k != `{"dept": {"$numberInt":"1"},"_fts": "text","_ftsx": {"$numberInt":"1"},"qty": {"$numberInt":"1"}}` {
		t.Fatalf("key %s", k)
	}
	_, err := c.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "dept", Value: "tech"}, {Key: "description", Value: "lime green computer"}, {Key: "qty", Value: 3}},
		bson.D{{Key: "_id", Value: 2}, {Key: "dept", Value: "tech"}, {Key: "description", Value: "wireless red mouse"}},
		bson.D{{Key: "_id", Value: 3}, {Key: "dept", Value: "kitchen"}, {Key: "description", Value: "green placemat"}},
		bson.D{{Key: "_id", Value: 4}, {Key: "dept", Value: "kitchen"}, {Key: "description", Value: "red peeler"}},
		bson.D{{Key: "_id", Value: 5}, {Key: "dept", Value: "food"}, {Key: "description", Value: "green apple"}},
		bson.D{{Key: "_id", Value: 6}, {Key: "dept", Value: "food"}, {Key: "description", Value: "red potato"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// "Limit the Number of Entries Scanned": dept kitchen, green.
	if got := idsString(ids(t, c, append(bson.D{{Key: "dept", Value: "kitchen"}}, textFilter("green")...), nil, false)); got != "3" {
		t.Fatalf("kitchen green: %s, want 3", got)
	}
	if got := idsString(ids(t, c, append(bson.D{{Key: "dept", Value: "tech"}}, textFilter("green red")...), nil, false)); got != "1 2" {
		t.Fatalf("tech green red: %s, want 1 2", got)
	}
	// Without the prefix equality: BadValue.
	_, err = c.Find(ctx, textFilter("green"))
	testenv.WantCmdError(t, err, 2, "BadValue")
	_, err = c.Find(ctx, append(bson.D{{Key: "dept", Value: bson.D{{Key: "$in", Value: bson.A{"tech", "food"}}}}}, textFilter("green")...))
	testenv.WantCmdError(t, err, 2, "BadValue")
	// An array in a prefix field cannot be indexed (16675).
	_, err = c.InsertOne(ctx, bson.D{{Key: "dept", Value: bson.A{"a", "b"}}, {Key: "description", Value: "x"}})
	if code, _ := testenv.ErrCode(t, err); code != 16675 {
		t.Fatalf("array prefix: %v, want 16675", err)
	}
}

// TestWildcardAndNested: "$**" indexes every string, in nested documents
// and arrays too.
func TestWildcardAndNested(t *testing.T) {
	_, db := testenv.Open(t)
	c := db.Collection("w")
	ctx := testenv.Ctx(t)
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "$**", Value: "text"}}}); err != nil {
		t.Fatal(err)
	}
	_, err := c.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: "apples"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "n", Value: bson.D{{Key: "deep", Value: bson.A{"x", bson.D{{Key: "s", Value: "apple pie"}}}}}}},
		bson.D{{Key: "_id", Value: 3}, {Key: "a", Value: 5}, {Key: "b", Value: "pears"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := idsString(ids(t, c, textFilter("apple"), nil, false)); got != "1 2" {
		t.Fatalf("apple: %s, want 1 2", got)
	}
	if got := idsString(ids(t, c, textFilter("pear"), nil, false)); got != "3" {
		t.Fatalf("pear: %s, want 3", got)
	}
}

// TestLanguageOverride follows "Specify the Language of a Document": the
// "language" field picks each document's stemmer and stop words, and
// language_override renames that field.
func TestLanguageOverride(t *testing.T) {
	_, db := testenv.Open(t)
	c := db.Collection("quotes")
	ctx := testenv.Ctx(t)
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "original", Value: "text"}, {Key: "translation.quote", Value: "text"}}}); err != nil {
		t.Fatal(err)
	}
	_, err := c.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "language", Value: "portuguese"}, {Key: "original", Value: "A sorte protege os audazes."},
			{Key: "translation", Value: bson.A{bson.D{{Key: "language", Value: "english"}, {Key: "quote", Value: "Fortune favors the bold."}},
				bson.D{{Key: "language", Value: "spanish"}, {Key: "quote", Value: "La suerte protege a los audaces."}}}}},
		bson.D{{Key: "_id", Value: 2}, {Key: "language", Value: "spanish"}, {Key: "original", Value: "Nada hay más surrealista que la realidad."},
			{Key: "translation", Value: bson.A{bson.D{{Key: "language", Value: "english"}, {Key: "quote", Value: "There is nothing more surreal than reality."}},
				bson.D{{Key: "language", Value: "french"}, {Key: "quote", Value: "Il n'y a rien de plus surréaliste que la réalité."}}}}},
		bson.D{{Key: "_id", Value: 3}, {Key: "original", Value: "is this a dagger which I see before me."},
			{Key: "translation", Value: bson.D{{Key: "language", Value: "spanish"}, {Key: "quote", Value: "Es este un puñal que veo delante de mí."}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// "protege" is stemmed by Portuguese in _id 1's original and by
	// Spanish in its translation; a Portuguese query finds it.
	if got := idsString(ids(t, c, textFilter("protege", bson.E{Key: "$language", Value: "portuguese"}), nil, false)); got != "1" {
		t.Fatalf("protege: %s, want 1", got)
	}
	// "dagger" in English (the default) in _id 3.
	if got := idsString(ids(t, c, textFilter("daggers"), nil, false)); got != "3" {
		t.Fatalf("daggers: %s, want 3", got)
	}
	// An unknown language in the override field is refused on insert.
	_, err = c.InsertOne(ctx, bson.D{{Key: "original", Value: "x"}, {Key: "language", Value: "klingon"}})
	if code, _ := testenv.ErrCode(t, err); code != 17262 {
		t.Fatalf("klingon: %v, want 17262", err)
	}

	// language_override: "idioma".
	c2 := db.Collection("quotes2")
	if _, err := c2.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "quote", Value: "text"}},
		Options: options.Index().SetLanguageOverride("idioma").SetDefaultLanguage("none")}); err != nil {
		t.Fatal(err)
	}
	d := listIndex(t, c2, "quote_text")
	if d.Lookup("language_override").StringValue() != "idioma" || d.Lookup("default_language").StringValue() != "none" {
		t.Fatalf("options: %s", d)
	}
	_, err = c2.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "idioma", Value: "english"}, {Key: "quote", Value: "running dogs"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "quote", Value: "running dogs"}},
		bson.D{{Key: "_id", Value: 3}, {Key: "quote", Value: "the end"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Default "none": no stemming, no stop words. _id 1 is English.
	if got := idsString(ids(t, c2, textFilter("running"), nil, false)); got != "2" {
		t.Fatalf("running (none): %s, want 2", got)
	}
	if got := idsString(ids(t, c2, textFilter("run", bson.E{Key: "$language", Value: "english"}), nil, false)); got != "1" {
		t.Fatalf("run (english): %s, want 1", got)
	}
	if got := idsString(ids(t, c2, textFilter("the"), nil, false)); got != "3" {
		t.Fatalf("the (none keeps stop words): %s, want 3", got)
	}
}

// TestPartialTextIndex: a partial text index holds only the documents of
// its filter, and answers only $text queries that imply it.
func TestPartialTextIndex(t *testing.T) {
	_, db := testenv.Open(t)
	c := db.Collection("p")
	ctx := testenv.Ctx(t)
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "s", Value: "text"}},
		Options: options.Index().SetPartialFilterExpression(bson.D{{Key: "live", Value: true}})}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}, {Key: "s", Value: "red fox"}, {Key: "live", Value: true}},
		bson.D{{Key: "_id", Value: 2}, {Key: "s", Value: "red fox"}, {Key: "live", Value: false}}}); err != nil {
		t.Fatal(err)
	}
	if got := idsString(ids(t, c, append(bson.D{{Key: "live", Value: true}}, textFilter("fox")...), nil, false)); got != "1" {
		t.Fatalf("live fox: %s, want 1", got)
	}
	_, err := c.Find(ctx, textFilter("fox"))
	testenv.WantCmdError(t, err, 27, "IndexNotFound")
}

// TestIndexSpecErrors: mongod's FTSSpec checks of a text index spec.
func TestIndexSpecErrors(t *testing.T) {
	_, db := testenv.Open(t)
	create := func(spec bson.D) error {
		_, err := testenv.RunCmd(t, db, bson.D{{Key: "createIndexes", Value: "e"}, {Key: "indexes", Value: bson.A{append(bson.D{{Key: "name", Value: "t"}}, spec...)}}})
		return err
	}
	key := func(k bson.D) bson.E { return bson.E{Key: "key", Value: k} }
	text := bson.D{{Key: "a", Value: "text"}}
	cases := []struct {
		name string
		spec bson.D
		code int32
		msg  string
	}{
		{"text fields apart", bson.D{key(bson.D{{Key: "a", Value: "text"}, {Key: "b", Value: 1}, {Key: "c", Value: "text"}})}, 17389, "'text' fields in index must all be adjacent"},
		{"weight not a number", bson.D{key(text), {Key: "weights", Value: bson.D{{Key: "a", Value: "x"}}}}, 17283, "weight for text index needs numeric type"},
		{"weight too high", bson.D{key(text), {Key: "weights", Value: bson.D{{Key: "a", Value: 100000}}}}, 16674, "score for word too high"},
		{"weights not an object", bson.D{key(text), {Key: "weights", Value: 1}}, 17284, "text index option 'weights' must be an object"},
		{"weight path with $", bson.D{key(text), {Key: "weights", Value: bson.D{{Key: "b.$c", Value: 1}}}}, 17292, "weight cannot have path component with $ prefix"},
		{"default_language not a string", bson.D{key(text), {Key: "default_language", Value: 1}}, 17263, "default_language needs a string type"},
		{"unknown default_language", bson.D{key(text), {Key: "default_language", Value: "klingon"}}, 17264, "default_language is not valid"},
		{"language_override with a dot", bson.D{key(text), {Key: "language_override", Value: "a.b"}}, 17136, "language_override is not valid"},
		{"textIndexVersion not a number", bson.D{key(text), {Key: "textIndexVersion", Value: "3"}}, 17293, "text index option 'textIndexVersion' must be a number"},
		{"compound key not 1 or -1", bson.D{key(bson.D{{Key: "a", Value: 2}, {Key: "b", Value: "text"}})}, 17273, "expected value 1 or -1 for non-text key in compound index"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ce := testenv.WantCmdError(t, create(c.spec), c.code, fmt.Sprintf("Location%d", c.code))
			if ce.Message != c.msg {
				t.Fatalf("errmsg %q, want %q", ce.Message, c.msg)
			}
		})
	}
}
