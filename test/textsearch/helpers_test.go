// Package textsearch_test tests text indexes and $text through the Go
// driver against an embedded Lode, with the examples of MongoDB's $text
// reference page and text-search tutorials and their documented results.
package textsearch_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// articles loads the $text reference page's articles collection with its
// text index on subject.
func articles(t *testing.T) *mongo.Collection {
	t.Helper()
	_, db := testenv.Open(t)
	c := db.Collection("articles")
	ctx := testenv.Ctx(t)
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "subject", Value: "text"}}}); err != nil {
		t.Fatal(err)
	}
	docs := []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "subject", Value: "coffee"}, {Key: "author", Value: "xyz"}, {Key: "views", Value: 50}},
		bson.D{{Key: "_id", Value: 2}, {Key: "subject", Value: "Coffee Shopping"}, {Key: "author", Value: "efg"}, {Key: "views", Value: 5}},
		bson.D{{Key: "_id", Value: 3}, {Key: "subject", Value: "Baking a cake"}, {Key: "author", Value: "abc"}, {Key: "views", Value: 90}},
		bson.D{{Key: "_id", Value: 4}, {Key: "subject", Value: "baking"}, {Key: "author", Value: "xyz"}, {Key: "views", Value: 100}},
		bson.D{{Key: "_id", Value: 5}, {Key: "subject", Value: "Café Con Leche"}, {Key: "author", Value: "abc"}, {Key: "views", Value: 200}},
		bson.D{{Key: "_id", Value: 6}, {Key: "subject", Value: "Сырники"}, {Key: "author", Value: "jkl"}, {Key: "views", Value: 80}},
		bson.D{{Key: "_id", Value: 7}, {Key: "subject", Value: "coffee and cream"}, {Key: "author", Value: "efg"}, {Key: "views", Value: 10}},
		bson.D{{Key: "_id", Value: 8}, {Key: "subject", Value: "Cafe con Leche"}, {Key: "author", Value: "xyz"}, {Key: "views", Value: 10}},
	}
	if _, err := c.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	return c
}

// ids runs find and returns the _id values, sorted unless ordered.
func ids(t *testing.T, c *mongo.Collection, filter any, opts *options.FindOptionsBuilder, ordered bool) []int32 {
	t.Helper()
	if opts == nil {
		opts = options.Find()
	}
	cur, err := c.Find(testenv.Ctx(t), filter, opts)
	if err != nil {
		t.Fatalf("find %v: %v", filter, err)
	}
	var docs []bson.Raw
	if err := cur.All(testenv.Ctx(t), &docs); err != nil {
		t.Fatal(err)
	}
	out := make([]int32, 0, len(docs))
	for _, d := range docs {
		out = append(out, d.Lookup("_id").Int32())
	}
	if !ordered {
		sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	}
	return out
}

func idsString(v []int32) string { return strings.Trim(fmt.Sprint(v), "[]") }

// textFilter builds {$text: {$search: s, extra...}}.
func textFilter(s string, extra ...bson.E) bson.D {
	t := bson.D{{Key: "$search", Value: s}}
	t = append(t, extra...)
	return bson.D{{Key: "$text", Value: t}}
}

var scoreProj = bson.D{{Key: "score", Value: bson.D{{Key: "$meta", Value: "textScore"}}}}
