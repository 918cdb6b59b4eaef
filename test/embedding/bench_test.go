package embedding_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode"
)

// BenchmarkRoundTrip compares one findOne by _id through the driver over
// loopback TCP and over InProcess's in-memory connections.
func BenchmarkRoundTrip(b *testing.B) {
	for _, c := range []struct {
		name string
		opts []lode.Option
	}{{"tcp", nil}, {"inprocess", []lode.Option{lode.InProcess()}}} {
		b.Run(c.name, func(b *testing.B) {
			db, err := lode.Open(b.TempDir(), c.opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			coll := db.Client().Database("bench").Collection("c")
			if _, err := coll.InsertOne(b.Context(), bson.D{{Key: "_id", Value: 1}, {Key: "v", Value: "x"}}); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := coll.FindOne(b.Context(), bson.D{{Key: "_id", Value: 1}}).Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
