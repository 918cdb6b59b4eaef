package agg

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// BenchmarkParse measures parsing and optimizing a typical pipeline: the
// per-stage lookups in the registry (placement, coalescing) are on this
// path.
func BenchmarkParse(b *testing.B) {
	var pipe []bsoncore.Document
	for _, s := range []bson.D{
		{{Key: "$match", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$gt", Value: 1}}}}}},
		{{Key: "$sort", Value: bson.D{{Key: "b", Value: -1}}}},
		{{Key: "$limit", Value: 100}},
		{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "o"}, {Key: "localField", Value: "a"}, {Key: "foreignField", Value: "b"}, {Key: "as", Value: "j"}}}},
		{{Key: "$unwind", Value: "$j"}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$c"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
		{{Key: "$project", Value: bson.D{{Key: "n", Value: 1}}}},
		{{Key: "$skip", Value: 1}},
		{{Key: "$skip", Value: 2}},
	} {
		raw, err := bson.Marshal(s)
		if err != nil {
			b.Fatal(err)
		}
		pipe = append(pipe, bsoncore.Document(raw))
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(pipe, &ParseContext{DB: "db", Coll: "c"}); err != nil {
			b.Fatal(err)
		}
	}
}
