package agg

import (
	"context"
	"strconv"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The benchmarks of unpacking: 2M event-log measurements (the seed's
// events, host as the meta field) in version-1 buckets of 1,000, and the
// seed's hits-per-path-per-day pipeline over them against the same
// events as plain documents, without a server: the buckets and documents
// are served from memory (benchDistinct of them, over and over).

const (
	benchMeasurements = 2_000_000
	benchPerBucket    = 1000
	benchDistinct     = 100 // distinct buckets (and 1,000 times as many events)
)

var benchPaths = []string{"/", "/index.html", "/apache_pb.gif", "/favicon.ico", "/about", "/blog", "/contact", "/search"}

// benchEvent is event i of host h, as the eventlog pattern stores it.
func benchEvent(h, i int) bson.D {
	t := time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * 3 * time.Second)
	return bson.D{{Key: "time", Value: t}, {Key: "host", Value: "10.0.0." + strconv.Itoa(h)},
		{Key: "_id", Value: bson.NewObjectIDFromTimestamp(t)}, {Key: "path", Value: benchPaths[i%len(benchPaths)]},
		{Key: "referer", Value: "http://www.example.com/start.html"}, {Key: "user_agent", Value: "Mozilla/4.08 [en] (Win98; I ;Nav)"},
		{Key: "status", Value: int32(200)}, {Key: "response_size", Value: int32(2326 + i%100)}}
}

// benchBuckets returns benchDistinct buckets of benchPerBucket events.
func benchBuckets(b *testing.B) []bsoncore.Document {
	var out []bsoncore.Document
	for k := 0; k < benchDistinct; k++ {
		cols := map[string]bson.D{}
		var order []string
		for j := 0; j < benchPerBucket; j++ {
			for _, e := range benchEvent(k%4, k*benchPerBucket+j) {
				if e.Key == "host" {
					continue
				}
				if _, ok := cols[e.Key]; !ok {
					order = append(order, e.Key)
				}
				cols[e.Key] = append(cols[e.Key], bson.E{Key: strconv.Itoa(j), Value: e.Value})
			}
		}
		data := bson.D{}
		for _, f := range order {
			data = append(data, bson.E{Key: f, Value: cols[f]})
		}
		first := benchEvent(k%4, k*benchPerBucket)
		last := benchEvent(k%4, k*benchPerBucket+benchPerBucket-1)
		raw, err := bson.Marshal(bson.D{{Key: "_id", Value: bson.NewObjectIDFromTimestamp(first[0].Value.(time.Time))},
			{Key: "control", Value: bson.D{{Key: "version", Value: int32(1)},
				{Key: "min", Value: bson.D{{Key: "time", Value: first[0].Value}}}, {Key: "max", Value: bson.D{{Key: "time", Value: last[0].Value}}}}},
			{Key: "meta", Value: first[1].Value}, {Key: "data", Value: data}})
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, raw)
	}
	return out
}

// benchPlain returns the same events as plain documents.
func benchPlain(b *testing.B) []bsoncore.Document {
	var out []bsoncore.Document
	for k := 0; k < benchDistinct; k++ {
		for j := 0; j < benchPerBucket; j++ {
			e := benchEvent(k%4, k*benchPerBucket+j)
			e[0], e[1], e[2] = e[2], e[0], e[1] // _id first, as stored
			raw, err := bson.Marshal(e)
			if err != nil {
				b.Fatal(err)
			}
			out = append(out, raw)
		}
	}
	return out
}

// cycleIter serves docs over and over until n have been served.
type cycleIter struct {
	docs []bsoncore.Document
	i, n int
}

func (c *cycleIter) Next() (bsoncore.Document, error) {
	if c.n == 0 {
		return nil, nil
	}
	c.n--
	d := c.docs[c.i]
	c.i = (c.i + 1) % len(c.docs)
	return d, nil
}

func (c *cycleIter) Close() error { return nil }

// memCatalog is a Catalog whose every collection is docs served n times
// over (only Find is used).
type memCatalog struct {
	Catalog
	docs []bsoncore.Document
	n    int
}

func (m *memCatalog) Find(context.Context, string, string, FindSpec) (Iterator, error) {
	return &cycleIter{docs: m.docs, n: m.n}, nil
}

func BenchmarkUnpackBucket(b *testing.B) {
	buckets := benchBuckets(b)
	spec, err := parseUnpackSpec(docValue(bsoncore.NewDocumentBuilder().AppendString("timeField", "time").
		AppendString("metaField", "host").AppendInt32("bucketMaxSpanSeconds", 3600).Build()))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		include []string
	}{{"all", nil}, {"include-path-time", []string{"path", "time"}}} {
		b.Run(c.name, func(b *testing.B) {
			sp := spec
			if c.include != nil {
				sp.include, sp.fields = true, c.include
			}
			st, err := newUnpackStage(sp, &ParseContext{})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				it, _ := st.open(nil, &cycleIter{docs: buckets, n: benchMeasurements / benchPerBucket})
				n := 0
				for {
					d, err := it.Next()
					if err != nil {
						b.Fatal(err)
					}
					if d == nil {
						break
					}
					n++
				}
				if n != benchMeasurements {
					b.Fatalf("%d measurements", n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchMeasurements, "ns/measurement")
		})
	}
}

// BenchmarkUnpackHitsPerDay runs the seed's hits-per-path-per-day
// pipeline over the 2M events, as buckets (behind the unpack stage, as
// the time series view runs it) and as plain documents.
func BenchmarkUnpackHitsPerDay(b *testing.B) {
	const seed = `[{"$match": {"time": {"$gte": {"$date": "2000-10-01T00:00:00Z"}, "$lt": {"$date": "2001-01-01T00:00:00Z"}}}},
	 {"$project": {"path": 1, "date": {"y": {"$year": "$time"}, "m": {"$month": "$time"}, "d": {"$dayOfMonth": "$time"}}}},
	 {"$group": {"_id": {"p": "$path", "y": "$date.y", "m": "$date.m", "d": "$date.d"}, "hits": {"$sum": 1}}}]`
	var stages bson.A
	if err := bson.UnmarshalExtJSON([]byte(seed), false, &stages); err != nil {
		b.Fatal(err)
	}
	parse := func(unpack bool) []bsoncore.Document {
		var out []bsoncore.Document
		if unpack {
			out = append(out, bsoncore.NewDocumentBuilder().AppendDocument("$_internalUnpackBucket",
				bsoncore.NewDocumentBuilder().AppendString("timeField", "time").AppendString("metaField", "host").
					AppendInt32("bucketMaxSpanSeconds", 3600).Build()).Build())
		}
		for _, s := range stages {
			raw, _ := bson.Marshal(s)
			out = append(out, raw)
		}
		return out
	}
	for _, c := range []struct {
		name   string
		unpack bool
		docs   []bsoncore.Document
		n      int
	}{
		{"buckets", true, benchBuckets(b), benchMeasurements / benchPerBucket},
		{"plain", false, benchPlain(b), benchMeasurements},
	} {
		b.Run(c.name, func(b *testing.B) {
			cat := &memCatalog{docs: c.docs, n: c.n}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				p, err := Parse(parse(c.unpack), &ParseContext{DB: "test", Coll: "events"})
				if err != nil {
					b.Fatal(err)
				}
				it, err := p.Run(context.Background(), cat, nil)
				if err != nil {
					b.Fatal(err)
				}
				out, err := drain(it)
				if err != nil {
					b.Fatal(err)
				}
				if len(out) == 0 {
					b.Fatal("no groups")
				}
			}
		})
	}
}
