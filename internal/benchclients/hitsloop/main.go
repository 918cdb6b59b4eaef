// Command hitsloop runs seed 003's "hits per path per day" pipeline
// against a Lode (or MongoDB) server a few times and prints each run's
// time: the loop used with cpu.sh in docs/benchmarks.md to compare server
// CPU per run between builds on the same data (lodeperf eventlog loads
// it into database peer, collection events).
//
//	go run ./internal/benchclients/hitsloop -uri mongodb://127.0.0.1:27600/?directConnection=true [-nomatch]
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
	runs := flag.Int("runs", 4, "runs")
	nomatch := flag.Bool("nomatch", false, "use $match {} instead of the month's time range")
	flag.Parse()
	ctx := context.Background()
	cl, err := mongo.Connect(options.Client().ApplyURI(*uri))
	if err != nil {
		log.Fatal(err)
	}
	defer cl.Disconnect(ctx)
	coll := cl.Database(*dbName).Collection("events")
	start := time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC)
	match := bson.D{{Key: "time", Value: bson.D{{Key: "$gte", Value: start}, {Key: "$lt", Value: start.AddDate(0, 0, 30)}}}}
	if *nomatch {
		match = bson.D{}
	}
	pipe := bson.A{
		bson.D{{Key: "$match", Value: match}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "path", Value: 1}, {Key: "year", Value: bson.D{{Key: "$year", Value: "$time"}}},
			{Key: "month", Value: bson.D{{Key: "$month", Value: "$time"}}}, {Key: "day", Value: bson.D{{Key: "$dayOfMonth", Value: "$time"}}}}}},
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "p", Value: "$path"}, {Key: "y", Value: "$year"}, {Key: "m", Value: "$month"}, {Key: "d", Value: "$day"}}},
			{Key: "hits", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	}
	for i := 0; i < *runs; i++ {
		t := time.Now()
		cur, err := coll.Aggregate(ctx, pipe)
		if err != nil {
			log.Fatal(err)
		}
		groups, hits := 0, int64(0)
		for cur.Next(ctx) {
			groups++
			hits += cur.Current.Lookup("hits").AsInt64()
		}
		if err := cur.Err(); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("groups %d hits %d in %v\n", groups, hits, time.Since(t))
	}
}
