package bsoncolumn

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

var benchPaths = []string{"/", "/index.html", "/apache_pb.gif", "/about", "/products", "/cart", "/login", "/search", "/blog", "/contact"}

// eventBucket returns a version-1 bucket of n of the seed's events for one
// host (the meta field): _id as the drivers make them, time a second or so
// apart, path and status drawn as the seed's generator does.
func eventBucket(n int) bsoncore.Document {
	r := rand.New(rand.NewPCG(7, 8))
	t := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	ids, times, paths, statuses := bson.D{}, bson.D{}, bson.D{}, bson.D{}
	var oid bson.ObjectID
	copy(oid[4:9], []byte{0x5a, 0x11, 0x22, 0x33, 0x44})
	var minT, maxT time.Time
	for i := 0; i < n; i++ {
		t = t.Add(time.Duration(r.IntN(2000)) * time.Millisecond)
		if i == 0 {
			minT = t
		}
		maxT = t
		s := uint32(t.Unix())
		oid[0], oid[1], oid[2], oid[3] = byte(s>>24), byte(s>>16), byte(s>>8), byte(s)
		c := 0x10000 + i
		oid[9], oid[10], oid[11] = byte(c>>16), byte(c>>8), byte(c)
		k := strconv.Itoa(i)
		ids = append(ids, bson.E{Key: k, Value: oid})
		times = append(times, bson.E{Key: k, Value: bson.NewDateTimeFromTime(t)})
		paths = append(paths, bson.E{Key: k, Value: benchPaths[r.IntN(len(benchPaths))]})
		statuses = append(statuses, bson.E{Key: k, Value: int32([]int{200, 200, 200, 304, 404}[r.IntN(5)])})
	}
	b, err := bson.Marshal(bson.D{
		{Key: "_id", Value: bson.NewObjectIDFromTimestamp(minT)},
		{Key: "control", Value: bson.D{
			{Key: "version", Value: int32(1)},
			{Key: "min", Value: bson.D{{Key: "_id", Value: ids[0].Value}, {Key: "time", Value: bson.NewDateTimeFromTime(minT.Truncate(time.Minute))}, {Key: "path", Value: "/"}, {Key: "status", Value: int32(200)}}},
			{Key: "max", Value: bson.D{{Key: "_id", Value: ids[n-1].Value}, {Key: "time", Value: bson.NewDateTimeFromTime(maxT)}, {Key: "path", Value: "/search"}, {Key: "status", Value: int32(404)}}},
		}},
		{Key: "meta", Value: "10.0.1.17"},
		{Key: "data", Value: bson.D{{Key: "_id", Value: ids}, {Key: "time", Value: times}, {Key: "path", Value: paths}, {Key: "status", Value: statuses}}},
	})
	if err != nil {
		panic(err)
	}
	return b
}

func TestEventBucketSizes(t *testing.T) {
	v1 := eventBucket(1000)
	v2, err := CompressBucket(v1, "time")
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecompressBucket(v2)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(v1) {
		t.Fatalf("round trip changed the size: %d -> %d", len(v1), len(back))
	}
	t.Logf("1000 events: version 1 %d bytes, version 2 %d bytes (%.1f%%)", len(v1), len(v2), 100*float64(len(v2))/float64(len(v1)))
	for _, f := range []string{"_id", "time", "path", "status"} {
		_, data, _ := v2.Lookup("data", f).BinaryOK()
		t.Logf("  column %s: %d bytes", f, len(data))
	}
	if len(v2)*3 > len(v1) {
		t.Errorf("version 2 is %d bytes, more than a third of version 1's %d", len(v2), len(v1))
	}
}

func BenchmarkCompressBucket(b *testing.B) {
	v1 := eventBucket(1000)
	b.SetBytes(int64(len(v1)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CompressBucket(v1, "time"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecompressBucket(b *testing.B) {
	v2, _ := CompressBucket(eventBucket(1000), "time")
	b.SetBytes(int64(len(v2)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecompressBucket(v2); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIterateColumns reads every value of every column, as an unpack
// stage does, without building a version-1 bucket.
func BenchmarkIterateColumns(b *testing.B) {
	v2, _ := CompressBucket(eventBucket(1000), "time")
	var cols []Column
	for _, f := range []string{"_id", "time", "path", "status"} {
		c, _ := ColumnOf(v2.Lookup("data", f))
		cols = append(cols, c)
	}
	its := make([]Iterator, len(cols))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for i := range cols {
			its[i].Reset(cols[i])
		}
		for {
			v, ok := its[0].Next()
			if !ok {
				break
			}
			n += len(v.Data)
			for i := 1; i < len(its); i++ {
				its[i].Next()
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/measurement")
}

// BenchmarkIterateTime reads the time column alone (delta of delta dates).
func BenchmarkIterateTime(b *testing.B) {
	v2, _ := CompressBucket(eventBucket(1000), "time")
	col, _ := ColumnOf(v2.Lookup("data", "time"))
	var it Iterator
	b.ReportAllocs()
	for b.Loop() {
		it.Reset(col)
		for _, ok := it.Next(); ok; _, ok = it.Next() {
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/value")
}
