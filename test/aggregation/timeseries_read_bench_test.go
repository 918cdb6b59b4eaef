package aggregation_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
)

// The seed's hits-per-path-per-day pipeline over the same events stored
// as plain documents (with an index on time) and as version-1 buckets in
// a clustered collection (host as the meta field, an hour and at most
// 1,000 events to a bucket), read through $_internalUnpackBucket as a
// time series view reads them. LODE_BENCH_EVENTS sets the number of
// events (default 200,000).
//
//	go test -run '^$' -bench HitsPerPathPerDayBuckets -benchtime 5x ./test/aggregation
func BenchmarkHitsPerPathPerDayBuckets(b *testing.B) {
	n := 200000
	if s := os.Getenv("LODE_BENCH_EVENTS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	dir := b.TempDir()
	db, err := lode.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	d := db.Client().Database("event_db")
	plain := d.Collection("events")
	o := options.CreateCollection().SetClusteredIndex(bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}})
	if err := d.CreateCollection(ctx, "bucketsevents", o); err != nil {
		b.Fatal(err)
	}
	buckets := d.Collection("bucketsevents")
	base := time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC)
	step := time.Duration(hitsDays) * 24 * time.Hour / time.Duration(n)
	const hosts = 10
	event := func(i int) bson.D {
		return bson.D{{Key: "time", Value: base.Add(time.Duration(i) * step)}, {Key: "host", Value: fmt.Sprintf("10.0.0.%d", i%hosts)},
			{Key: "_id", Value: bson.NewObjectIDFromTimestamp(base.Add(time.Duration(i) * step))},
			{Key: "path", Value: fmt.Sprintf("/page/%d", (i*7919)%100)},
			{Key: "referer", Value: "http://www.example.com/start.html"}, {Key: "user_agent", Value: "Mozilla/4.08 [en] (Win98; I ;Nav)"}}
	}
	// Plain documents.
	var docs []any
	for i := 0; i < n; i++ {
		docs = append(docs, event(i))
		if len(docs) == 5000 || i == n-1 {
			if _, err := plain.InsertMany(ctx, docs); err != nil {
				b.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	if _, err := plain.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "time", Value: 1}}}); err != nil {
		b.Fatal(err)
	}
	// Buckets: per host and hour, at most 1,000 events.
	open := map[string][]bson.D{}
	seq := 0
	flush := func(host string) {
		ms := open[host]
		if len(ms) == 0 {
			return
		}
		docs = append(docs, benchBucket(ms, seq))
		seq++
		open[host] = nil
		if len(docs) >= 50 {
			if _, err := buckets.InsertMany(ctx, docs); err != nil {
				b.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	for i := 0; i < n; i++ {
		e := event(i)
		host := e[1].Value.(string)
		if ms := open[host]; len(ms) > 0 && (len(ms) == 1000 || e[0].Value.(time.Time).Truncate(time.Hour) != ms[0][0].Value.(time.Time).Truncate(time.Hour)) {
			flush(host)
		}
		open[host] = append(open[host], e)
	}
	for h := 0; h < hosts; h++ {
		flush(fmt.Sprintf("10.0.0.%d", h))
	}
	if len(docs) > 0 {
		if _, err := buckets.InsertMany(ctx, docs); err != nil {
			b.Fatal(err)
		}
	}
	from, to := base, base.AddDate(0, 0, hitsDays)
	seedPipeline := hitsPerDayPipeline(from, to)
	unpack := bson.D{{Key: "$_internalUnpackBucket", Value: bson.D{{Key: "timeField", Value: "time"}, {Key: "metaField", Value: "host"}, {Key: "bucketMaxSpanSeconds", Value: int32(3600)}}}}
	run := func(b *testing.B, coll *mongo.Collection, p bson.A) {
		for i := 0; i < b.N; i++ {
			cur, err := coll.Aggregate(ctx, p)
			if err != nil {
				b.Fatal(err)
			}
			var rows []bson.Raw
			if err := cur.All(ctx, &rows); err != nil {
				b.Fatal(err)
			}
			if len(rows) == 0 {
				b.Fatal("no rows")
			}
		}
	}
	// The pattern's own form (patterns/eventlog): the date parts nested
	// under one field, then sorted.
	nested := bson.A{
		seedPipeline[0],
		bson.D{{Key: "$project", Value: bson.D{{Key: "path", Value: 1}, {Key: "date", Value: bson.D{
			{Key: "y", Value: bson.D{{Key: "$year", Value: "$time"}}}, {Key: "m", Value: bson.D{{Key: "$month", Value: "$time"}}},
			{Key: "d", Value: bson.D{{Key: "$dayOfMonth", Value: "$time"}}}}}}}},
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "p", Value: "$path"}, {Key: "y", Value: "$date.y"},
			{Key: "m", Value: "$date.m"}, {Key: "d", Value: "$date.d"}}}, {Key: "hits", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "_id.p", Value: 1}, {Key: "_id.y", Value: 1}, {Key: "_id.m", Value: 1}, {Key: "_id.d", Value: 1}}}},
	}
	b.Run("plain", func(b *testing.B) { run(b, plain, seedPipeline) })
	b.Run("buckets", func(b *testing.B) { run(b, buckets, append(bson.A{unpack}, seedPipeline...)) })
	b.Run("pattern-plain", func(b *testing.B) { run(b, plain, nested) })
	b.Run("pattern-buckets", func(b *testing.B) { run(b, buckets, append(bson.A{unpack}, nested...)) })
}

// benchBucket is the version-1 bucket of one host's events ms (time
// first, host second), with _id the hour's ObjectId and seq in its tail.
func benchBucket(ms []bson.D, seq int) bson.D {
	hour := ms[0][0].Value.(time.Time).Truncate(time.Hour)
	var order []string
	cols := map[string]bson.D{}
	for i, m := range ms {
		for _, e := range m {
			if e.Key == "host" {
				continue
			}
			if _, ok := cols[e.Key]; !ok {
				order = append(order, e.Key)
			}
			cols[e.Key] = append(cols[e.Key], bson.E{Key: strconv.Itoa(i), Value: e.Value})
		}
	}
	data := bson.D{}
	for _, f := range order {
		data = append(data, bson.E{Key: f, Value: cols[f]})
	}
	var oid bson.ObjectID
	binary.BigEndian.PutUint32(oid[:4], uint32(hour.Unix()))
	binary.BigEndian.PutUint64(oid[4:], uint64(seq))
	return bson.D{{Key: "_id", Value: oid},
		{Key: "control", Value: bson.D{{Key: "version", Value: int32(1)},
			{Key: "min", Value: bson.D{{Key: "time", Value: hour}}},
			{Key: "max", Value: bson.D{{Key: "time", Value: ms[len(ms)-1][0].Value}}}}},
		{Key: "meta", Value: ms[0][1].Value}, {Key: "data", Value: data}}
}
