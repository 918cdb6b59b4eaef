package changestreams

import (
	"context"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// BenchmarkOplogInsertCost measures what the oplog costs single-document
// inserts: 16 concurrent clients insert one document each per operation,
// with the oplog on (the default bound) and off (lode.WithOplogSizeMB(0)),
// at w:1 and j:true. Besides the rate it reports the process's CPU time
// (user and system: the driver's clients and the server, which share the
// process) per insert, which another program's load disturbs less, and
// the WAL fsyncs per insert (j:true inserts share them: group commit). On a
// shared machine, run the command several times (-count repeats one
// sub-benchmark back to back) so that the load of the moment falls on
// both alike; docs/benchmarks.md has the loop.
func BenchmarkOplogInsertCost(b *testing.B) {
	const clients = 16
	for _, wc := range []struct {
		name string
		wc   *writeconcern.WriteConcern
	}{{"w=1", writeconcern.W1()}, {"j=true", writeconcern.Journaled()}} {
		for _, oplog := range []struct {
			name string
			mb   int64
		}{{"oplog=on", 1024}, {"oplog=off", 0}} {
			b.Run(fmt.Sprintf("%s/%s/clients=%d", wc.name, oplog.name, clients), func(b *testing.B) {
				db, _ := testenv.Open(b, lode.WithOplogSizeMB(oplog.mb),
					lode.WithClientOptions(options.Client().SetMaxPoolSize(2*clients)))
				coll := db.Client().Database("bench").Collection("ins", options.Collection().SetWriteConcern(wc.wc))
				syncs0 := testenv.LodeMetric(b, db, "syncs")
				cpu0 := cpuTime()
				testenv.RunConcurrent(b, clients, func(w, i int) error {
					_, err := coll.InsertOne(context.Background(), bson.D{{Key: "w", Value: w}, {Key: "i", Value: i}, {Key: "payload", Value: "0123456789abcdef"}})
					return err
				})
				cpu := cpuTime() - cpu0
				syncs := testenv.LodeMetric(b, db, "syncs") - syncs0
				b.ReportMetric(float64(syncs)/float64(b.N), "fsyncs/write")
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
				b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/write")
			})
		}
	}
}
