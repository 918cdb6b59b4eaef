package durability_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// BenchmarkInsertSingle measures single-document inserts with j:true and
// w:1 at 1, 16 and 64 concurrent clients, reporting fsyncs per
// acknowledged write.
func BenchmarkInsertSingle(b *testing.B) {
	for _, wc := range []struct {
		name string
		wc   *writeconcern.WriteConcern
	}{{"j=true", writeconcern.Journaled()}, {"w=1", writeconcern.W1()}} {
		for _, clients := range []int{1, 16, 64} {
			b.Run(fmt.Sprintf("%s/clients=%d", wc.name, clients), func(b *testing.B) {
				db, _ := testenv.Open(b, lode.WithClientOptions(options.Client().SetMaxPoolSize(128)))
				coll := db.Client().Database("bench").Collection("ins", options.Collection().SetWriteConcern(wc.wc))
				before := testenv.LodeMetric(b, db, "syncs")
				start := time.Now()
				testenv.RunConcurrent(b, clients, func(w, i int) error {
					_, err := coll.InsertOne(context.Background(), bson.D{{Key: "w", Value: w}, {Key: "i", Value: i}, {Key: "payload", Value: "0123456789abcdef"}})
					return err
				})
				el := time.Since(start)
				syncs := testenv.LodeMetric(b, db, "syncs") - before
				b.ReportMetric(float64(b.N)/el.Seconds(), "writes/s")
				b.ReportMetric(float64(syncs)/float64(b.N), "fsyncs/write")
			})
		}
	}
}
