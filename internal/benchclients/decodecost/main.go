// Command decodecost splits the time of lodeperf's "recent" query into
// server plus wire and the Go driver's decoding: for each n it times one
// find command with batchSize n read as raw bytes, the driver's cursor
// without decoding, and the cursor with Decode into the struct lodeperf
// uses (docs/benchmarks.md, issue 12).
//
//	go run ./internal/benchclients/decodecost -uri mongodb://127.0.0.1:27601/?directConnection=true
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func main() {
	uri := flag.String("uri", "mongodb://127.0.0.1:27017/?directConnection=true", "server")
	dbName := flag.String("db", "peer", "database")
	flag.Parse()
	ctx := context.Background()
	cl, err := mongo.Connect(options.Client().ApplyURI(*uri))
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Disconnect(ctx)
	db := cl.Database(*dbName)
	coll := db.Collection("recent")
	filter := bson.D{{Key: "cat", Value: bson.D{{Key: "$in", Value: bson.A{0, 11, 22, 33, 44, 55, 66, 77, 88, 99}}}}}
	sort := bson.D{{Key: "ts", Value: -1}}
	for _, n := range []int{100, 10000, 100000} {
		for r := 0; r < 3; r++ {
			t := time.Now()
			raw, err := db.RunCommand(ctx, bson.D{{Key: "find", Value: "recent"}, {Key: "filter", Value: filter},
				{Key: "sort", Value: sort}, {Key: "limit", Value: n}, {Key: "batchSize", Value: n}}).Raw()
			if err != nil {
				log.Fatal(err)
			}
			rawT := time.Since(t)
			iterate := func(decode bool) time.Duration {
				t := time.Now()
				cur, err := coll.Find(ctx, filter, options.Find().SetSort(sort).SetLimit(int64(n)))
				if err != nil {
					log.Fatal(err)
				}
				var doc struct {
					ID  int64 `bson:"_id"`
					Cat int32 `bson:"cat"`
					TS  int64 `bson:"ts"`
				}
				for cur.Next(ctx) {
					if decode {
						if err := cur.Decode(&doc); err != nil {
							log.Fatal(err)
						}
					}
				}
				cur.Close(ctx)
				return time.Since(t)
			}
			fmt.Printf("n=%d  one raw batch %v (%d bytes)  cursor %v  cursor+Decode %v\n", n, rawT, len(raw), iterate(false), iterate(true))
		}
	}
}
