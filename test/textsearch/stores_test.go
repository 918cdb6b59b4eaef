package textsearch_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestStoresTutorial runs the "Text Search on Self-Managed Deployments"
// tutorial: the stores collection with a text index on name and
// description, its term, phrase, negation and score-sorted searches.
func TestStoresTutorial(t *testing.T) {
	_, db := testenv.Open(t)
	c := db.Collection("stores")
	ctx := testenv.Ctx(t)
	if _, err := c.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "name", Value: "Java Hut"}, {Key: "description", Value: "Coffee and cakes"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "name", Value: "Burger Buns"}, {Key: "description", Value: "Gourmet hamburgers"}},
		bson.D{{Key: "_id", Value: 3}, {Key: "name", Value: "Coffee Shop"}, {Key: "description", Value: "Just coffee"}},
		bson.D{{Key: "_id", Value: 4}, {Key: "name", Value: "Clothes Clothes Clothes"}, {Key: "description", Value: "Discount clothing"}},
		bson.D{{Key: "_id", Value: 5}, {Key: "name", Value: "Java Shopping"}, {Key: "description", Value: "Indonesian goods"}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "name", Value: "text"}, {Key: "description", Value: "text"}}}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		search string
		want   string
	}{
		{"any term", "java coffee shop", "1 3 5"},
		{"exact phrase", `java "coffee shop"`, "3"},
		{"exclude a term", "java shop -coffee", "5"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := idsString(ids(t, c, textFilter(tc.search), nil, false)); got != tc.want {
				t.Fatalf("_ids %s, want %s", got, tc.want)
			}
		})
	}
	// Sorted by relevance: "Coffee Shop" / "Just coffee" matches three
	// times and comes first (2.25), then Java Hut and Java Shopping (1.5
	// each, in either order).
	cur, err := c.Find(ctx, textFilter("java coffee shop"), options.Find().SetProjection(scoreProj).SetSort(scoreProj))
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.M
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) != 3 || docs[0]["_id"] != int32(3) || docs[0]["score"] != 2.25 || docs[1]["score"] != 1.5 || docs[2]["score"] != 1.5 {
		t.Fatalf("by score: %v, want _id 3 (2.25) then 1 and 5 (1.5)", docs)
	}
	if rest := []int32{docs[1]["_id"].(int32), docs[2]["_id"].(int32)}; !(rest[0] == 1 && rest[1] == 5 || rest[0] == 5 && rest[1] == 1) {
		t.Fatalf("by score: %v", docs)
	}
}
