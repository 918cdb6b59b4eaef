//go:build unix

package agg

import (
	"context"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/expr"
)

// eventDocs returns n documents shaped as the event-log seed's: an
// ObjectId, a time advancing 1.296 s per event (2M events over 30 days),
// one of 50 hosts and one of 1000 paths.
func eventDocs(n int) []bsoncore.Document {
	r := rand.New(rand.NewPCG(1, 3))
	start := time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	paths := make([]string, 1000)
	for i := range paths {
		paths[i] = fmt.Sprintf("/site/section%02d/page%04d.html", i%37, i)
	}
	docs := make([]bsoncore.Document, n)
	for i := range docs {
		id := bson.NewObjectID()
		b := bsoncore.NewDocumentBuilder().
			AppendObjectID("_id", id).
			AppendDateTime("time", start+int64(i)*1296).
			AppendString("host", fmt.Sprintf("10.0.0.%d", r.IntN(50)+1)).
			AppendString("path", paths[r.IntN(len(paths))])
		docs[i] = b.Build()
	}
	return docs
}

// BenchmarkHitsPerPathPerDay measures the event-log seed's $project of
// date parts folded into its $group by path and day, over documents in
// memory (the inner loop of a collection scan's parallel $group, without
// the scan): ns/op is per input document.
func BenchmarkHitsPerPathPerDay(b *testing.B) {
	var pipe []bsoncore.Document
	for _, s := range []bson.D{
		{{Key: "$project", Value: bson.D{{Key: "path", Value: 1}, {Key: "year", Value: bson.D{{Key: "$year", Value: "$time"}}},
			{Key: "month", Value: bson.D{{Key: "$month", Value: "$time"}}}, {Key: "day", Value: bson.D{{Key: "$dayOfMonth", Value: "$time"}}}}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "p", Value: "$path"}, {Key: "y", Value: "$year"},
			{Key: "m", Value: "$month"}, {Key: "d", Value: "$day"}}}, {Key: "hits", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	} {
		raw, err := bson.Marshal(s)
		if err != nil {
			b.Fatal(err)
		}
		pipe = append(pipe, raw)
	}
	p, err := Parse(pipe, &ParseContext{DB: "db", Coll: "c"})
	if err != nil {
		b.Fatal(err)
	}
	const n = 200_000
	docs := eventDocs(n)
	in := make([]bsoncore.Document, n)
	b.ReportAllocs()
	cpu0 := processCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i += n {
		copy(in, docs)
		rc := &runCtx{ctx: context.Background(), vars: expr.NewVars(time.Now()), pc: p.pc}
		it, err := p.runOnInput(rc, &sliceIter{docs: in})
		if err != nil {
			b.Fatal(err)
		}
		groups := 0
		for {
			d, err := it.Next()
			if err != nil {
				b.Fatal(err)
			}
			if d == nil {
				break
			}
			groups++
		}
		it.Close()
		if groups < 1000 {
			b.Fatalf("%d groups", groups)
		}
	}
	// Process CPU per document: on a shared machine it varies less than
	// the elapsed time.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU returns the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
