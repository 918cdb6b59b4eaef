package timeseries_test

import (
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// TestParallelGroupOverBuckets: the seed's hits-per-path-per-day pipeline
// over a time series collection with enough buckets to be split into
// parallel parts on the buckets' cluster key gives the groups and counts
// of the same events in a plain collection, over the whole month and
// over a range that starts inside it, and so does a $group that keeps
// the first and last value seen (the parts are merged in bucket order).
func TestParallelGroupOverBuckets(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	createTS(t, d, "ev", bson.D{{Key: "timeField", Value: "time"}, {Key: "metaField", Value: "host"}})
	ts, plain := d.Collection("ev"), d.Collection("plain")
	start := time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC)
	const n = 60000 // 50 hosts over 30 days: about 30,000 one-hour buckets
	step := 30 * 24 * time.Hour / n
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "time", Value: start.Add(time.Duration(i) * step)}, {Key: "host", Value: fmt.Sprintf("h%02d", i*7%50)},
			{Key: "path", Value: fmt.Sprintf("/p%03d", i*13%200)}, {Key: "i", Value: int32(i)}}
	}
	for _, coll := range []*mongo.Collection{ts, plain} {
		testenv.InsertBatches(t, coll, n, func(i int) any { return docs[i] })
	}
	if nb := testenv.Count(t, d.Collection("system.buckets.ev"), bson.D{}); nb < 20000 {
		t.Fatalf("%d buckets: too few to be split", nb)
	}
	type row struct {
		P           string `bson:"p"`
		Y, M, D     int32
		Hits        int32 `bson:"hits"`
		First, Last int32
	}
	run := func(coll *mongo.Collection, from time.Time) []row {
		cur, err := coll.Aggregate(c, mongo.Pipeline{
			{{Key: "$match", Value: bson.D{{Key: "time", Value: bson.D{{Key: "$gte", Value: from}, {Key: "$lt", Value: start.AddDate(0, 0, 30)}}}}}},
			{{Key: "$project", Value: bson.D{{Key: "path", Value: 1}, {Key: "i", Value: 1}, {Key: "year", Value: bson.D{{Key: "$year", Value: "$time"}}},
				{Key: "month", Value: bson.D{{Key: "$month", Value: "$time"}}}, {Key: "day", Value: bson.D{{Key: "$dayOfMonth", Value: "$time"}}}}}},
			{{Key: "$group", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "p", Value: "$path"}, {Key: "y", Value: "$year"}, {Key: "m", Value: "$month"}, {Key: "d", Value: "$day"}}},
				{Key: "hits", Value: bson.D{{Key: "$sum", Value: 1}}}, {Key: "first", Value: bson.D{{Key: "$min", Value: "$i"}}}, {Key: "last", Value: bson.D{{Key: "$max", Value: "$i"}}}}}},
			{{Key: "$project", Value: bson.D{{Key: "p", Value: "$_id.p"}, {Key: "y", Value: "$_id.y"}, {Key: "m", Value: "$_id.m"}, {Key: "d", Value: "$_id.d"},
				{Key: "hits", Value: 1}, {Key: "first", Value: 1}, {Key: "last", Value: 1}}}},
			{{Key: "$sort", Value: bson.D{{Key: "p", Value: 1}, {Key: "d", Value: 1}}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		var out []row
		if err := cur.All(c, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, from := range []time.Time{start, start.Add(11*24*time.Hour + 5*time.Hour)} {
		a, b := run(ts, from), run(plain, from)
		if len(a) == 0 || fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("from %v: %d groups over the buckets, %d over the plain collection\n%v\n%v", from, len(a), len(b), a[:min(3, len(a))], b[:min(3, len(b))])
		}
	}
}
