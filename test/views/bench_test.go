package views

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// benchFindOne times FindOne {_id: 4} through the driver on name, after
// a view "evens" on "src" has been created (so system.views exists).
func benchFindOne(b *testing.B, name string) {
	_, d := testenv.Open(b)
	ctx := testenv.Ctx(b)
	var docs []any
	for i := 0; i < 10; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i}})
	}
	if _, err := d.Collection("src").InsertMany(ctx, docs); err != nil {
		b.Fatal(err)
	}
	if _, err := testenv.RunCmd(b, d, bson.D{{Key: "create", Value: "evens"}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: evens}}); err != nil {
		b.Fatal(err)
	}
	coll := d.Collection(name)
	filter := bson.D{{Key: "_id", Value: 4}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := coll.FindOne(ctx, filter).Err(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFindOnView is a point read through a one-stage view.
func BenchmarkFindOnView(b *testing.B) { benchFindOne(b, "evens") }

// BenchmarkFindOnCollection is the same read on the collection, in a
// database that has views.
func BenchmarkFindOnCollection(b *testing.B) { benchFindOne(b, "src") }
