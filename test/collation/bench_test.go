package collation_test

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// benchColl fills a collection with n users whose names differ in case
// (user00000, USER00001, ...), indexed by name with {locale: "en",
// strength: 2} and, separately, by the simple collation on name2.
func benchColl(b *testing.B, n int) *mongo.Collection {
	_, d := testenv.Open(b)
	ctx := testenv.Ctx(b)
	c := d.Collection("users")
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "name", Value: 1}},
		Options: options.Index().SetCollation(coll(enStrength2))}); err != nil {
		b.Fatal(err)
	}
	testenv.CreateIndex(b, c, bson.D{{Key: "name2", Value: 1}})
	testenv.InsertBatches(b, c, n, func(i int) any {
		name := fmt.Sprintf("user%05d", i)
		if i%2 == 1 {
			name = fmt.Sprintf("USER%05d", i)
		}
		return bson.D{{Key: "_id", Value: i}, {Key: "name", Value: name}, {Key: "name2", Value: name}}
	})
	return c
}

// BenchmarkCaseInsensitiveFind compares a case-insensitive equality
// served by the collated index with the same query as a collection scan,
// and the simple-collation equality on a simple index.
func BenchmarkCaseInsensitiveFind(b *testing.B) {
	n := testenv.Size(20000, 200000)
	c := benchColl(b, n)
	ctx := testenv.Ctx(b)
	ci := coll(enStrength2)
	run := func(b *testing.B, filter bson.D, opts *options.FindOptionsBuilder, want int) {
		for i := 0; i < b.N; i++ {
			cur, err := c.Find(ctx, filter, opts)
			if err != nil {
				b.Fatal(err)
			}
			var docs []bson.Raw
			if err := cur.All(ctx, &docs); err != nil || len(docs) != want {
				b.Fatalf("%d docs, %v", len(docs), err)
			}
		}
	}
	b.Run("collated-index", func(b *testing.B) {
		run(b, bson.D{{Key: "name", Value: "user01235"}}, options.Find().SetCollation(ci), 1)
	})
	b.Run("collated-collscan", func(b *testing.B) {
		run(b, bson.D{{Key: "name", Value: "user01235"}}, options.Find().SetCollation(ci).SetHint(bson.D{{Key: "$natural", Value: 1}}), 1)
	})
	b.Run("simple-index", func(b *testing.B) {
		run(b, bson.D{{Key: "name2", Value: "USER01235"}}, options.Find(), 1)
	})
	b.Run("simple-sort-limit", func(b *testing.B) {
		run(b, bson.D{}, options.Find().SetSort(bson.D{{Key: "name2", Value: -1}}).SetLimit(10).SetHint(bson.D{{Key: "$natural", Value: 1}}), 10)
	})
	b.Run("collated-sort-limit", func(b *testing.B) {
		run(b, bson.D{}, options.Find().SetSort(bson.D{{Key: "name2", Value: -1}}).SetLimit(10).SetCollation(ci).SetHint(bson.D{{Key: "$natural", Value: 1}}), 10)
	})
}
