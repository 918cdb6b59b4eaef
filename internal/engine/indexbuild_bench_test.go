package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// BenchmarkIndexBuild measures the event log seed's index builds, ns per
// document: {path: 1} (a thousand values, grouped), {time: 1} (rising
// with the records, streamed) and {host: 1, time: 1} (fifty hosts, each
// rising in time), and {status: 1} (ten integers stored as doubles, as
// mongosh and the Node driver send them: type bits on every key), each
// over b.N events {time, host, path, status} loaded before
// the timer, as lodeperf's eventlog load makes them. Each is the first
// build after the load, as a createIndex after a bulk load is: its scan
// finds no record block in the block cache, and the sort's memory is
// new to the process (docs/benchmarks.md, fourteenth session, measures
// what each costs).
func BenchmarkIndexBuild(b *testing.B) {
	for _, ix := range []struct {
		name string
		key  bson.D
	}{
		{"path", bson.D{{Key: "path", Value: 1}}},
		{"time", bson.D{{Key: "time", Value: 1}}},
		{"host_time", bson.D{{Key: "host", Value: 1}, {Key: "time", Value: 1}}},
		{"status", bson.D{{Key: "status", Value: 1}}},
	} {
		b.Run(ix.name, func(b *testing.B) {
			e, err := Open(b.TempDir(), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			r := rand.New(rand.NewPCG(1, 3))
			t0 := time.Unix(1700000000, 0)
			ctx := context.Background()
			batch := make([]bsoncore.Document, 0, 10000)
			for n := 0; n < b.N; n++ {
				batch = append(batch, bsoncore.NewDocumentBuilder().
					AppendObjectID("_id", bson.NewObjectID()).
					AppendDateTime("time", t0.Add(time.Duration(n)*time.Second).UnixMilli()).
					AppendString("host", fmt.Sprintf("host-%02d.example.net", r.IntN(50))).
					AppendString("path", fmt.Sprintf("/app/section-%d/page-%03d", r.IntN(10), r.IntN(100))).
					AppendDouble("status", float64(200+r.IntN(10))).
					Build())
				if len(batch) == cap(batch) || n == b.N-1 {
					if _, err := e.Insert(ctx, "db", "events", batch, WriteOptions{ValidBSON: true, IDFirst: true}); err != nil {
						b.Fatal(err)
					}
					batch = batch[:0]
				}
			}
			key, _ := bson.Marshal(ix.key)
			b.ReportAllocs()
			b.ResetTimer()
			if _, err := e.CreateIndex("db", "events", IndexSpec{Key: key}); err != nil {
				b.Fatal(err)
			}
		})
	}
}
