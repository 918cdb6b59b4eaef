package aggregation_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// openBenchDB opens an embedded Lode for a benchmark.
func openBenchDB(b *testing.B) *mongo.Database {
	b.Helper()
	db, _ := testenv.Open(b)
	return db.Client().Database("bench")
}

// BenchmarkGraphLookup measures a 20-round $graphLookup through the
// driver over a 10,000-document collection, with and without an index on
// connectToField. Run with:
//
//	go test ./test/aggregation -run '^$' -bench BenchmarkGraphLookup -benchtime 20x
func BenchmarkGraphLookup(b *testing.B) {
	ctx := context.Background()
	for _, indexed := range []bool{false, true} {
		name := "collscan"
		if indexed {
			name = "index"
		}
		b.Run(name, func(b *testing.B) {
			db := openBenchDB(b)
			nodes := db.Collection("nodes")
			docs := make([]any, 0, 10000)
			for i := 0; i < 10000; i++ {
				docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "name", Value: i}, {Key: "next", Value: bson.A{i + 1, i + 2}}})
			}
			if _, err := nodes.InsertMany(ctx, docs); err != nil {
				b.Fatal(err)
			}
			if indexed {
				if _, err := nodes.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "name", Value: 1}}}); err != nil {
					b.Fatal(err)
				}
			}
			pipeline := bson.A{
				bson.D{{Key: "$match", Value: bson.D{{Key: "_id", Value: 0}}}},
				bson.D{{Key: "$graphLookup", Value: bson.D{{Key: "from", Value: "nodes"}, {Key: "startWith", Value: "$name"},
					{Key: "connectFromField", Value: "next"}, {Key: "connectToField", Value: "name"}, {Key: "as", Value: "r"}, {Key: "maxDepth", Value: 19}}}},
				bson.D{{Key: "$project", Value: bson.D{{Key: "n", Value: bson.D{{Key: "$size", Value: "$r"}}}}}},
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cur, err := nodes.Aggregate(ctx, pipeline)
				if err != nil {
					b.Fatal(err)
				}
				var out []bson.M
				if err := cur.All(ctx, &out); err != nil {
					b.Fatal(err)
				}
				if len(out) != 1 || out[0]["n"] != int32(39) {
					b.Fatalf("result %v", out)
				}
			}
		})
	}
}
