// Command insertcost splits the time of lodeperf's "recent" load into the
// Go driver's encoding and the server's insert: it builds the same
// documents ({_id, cat, ts}) and times, per 10,000-document batch, the
// driver's marshalling alone (bson.Marshal of each bson.D) and the
// insertMany of pre-encoded bson.Raw documents, whose round trip is almost
// all server time (docs/benchmarks.md, issue 13).
//
//	go run ./internal/benchclients/insertcost -uri mongodb://127.0.0.1:27601/?directConnection=true
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func main() {
	uri := flag.String("uri", "mongodb://127.0.0.1:27017/?directConnection=true", "server")
	rows := flag.Int("rows", 1_000_000, "documents")
	batch := flag.Int("batch", 10_000, "documents per insertMany")
	prof := flag.String("cpuprofile", "", "write a CPU profile of this client here")
	flag.Parse()
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	ctx := context.Background()
	cl, err := mongo.Connect(options.Client().ApplyURI(*uri))
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Disconnect(ctx)
	coll := cl.Database("insertcost").Collection("recent")
	_ = coll.Drop(ctx)
	r := rand.New(rand.NewPCG(1, 0))
	var encode, insert time.Duration
	docs := make([]any, 0, *batch)
	for i := 0; i < *rows; {
		docs = docs[:0]
		t := time.Now()
		for ; len(docs) < *batch && i < *rows; i++ {
			raw, err := bson.Marshal(bson.D{{Key: "_id", Value: int64(i + 1)}, {Key: "cat", Value: int32(r.IntN(100))}, {Key: "ts", Value: int64(i)}})
			if err != nil {
				log.Fatal(err)
			}
			docs = append(docs, bson.Raw(raw))
		}
		encode += time.Since(t)
		t = time.Now()
		if _, err := coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil {
			log.Fatal(err)
		}
		insert += time.Since(t)
	}
	fmt.Printf("%d docs in batches of %d: marshal %.2fs, insertMany of raw documents %.2fs (%.1f ms a batch)\n",
		*rows, *batch, encode.Seconds(), insert.Seconds(), insert.Seconds()*1000/float64((*rows+*batch-1) / *batch))
}
