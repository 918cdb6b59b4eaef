package timeseries_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestClosedBucketsCompressed: a bucket closed (here by its size, 125 KB
// of measurements) is stored as mongod 7.0 stores it, in version 2 (control.version 2 and
// count, each data field a BSONColumn, BinData subtype 7), while the open
// one stays in version 1; finds through the time series collection give
// back every measurement with its values exactly, of every type (-0.0
// and a field some measurements lack included), from both.
func TestClosedBucketsCompressed(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	createTS(t, d, "z", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}, {Key: "granularity", Value: "hours"}})
	coll := d.Collection("z")
	dec, _ := bson.ParseDecimal128("1.50")
	// One type per field (mongod opens a new bucket when a field's type
	// changes), "sparse" in one measurement of three (the columns skip).
	measurement := func(i int) bson.D {
		m := bson.D{{Key: "_id", Value: i}, {Key: "t", Value: t0.Add(time.Duration(i) * time.Second)}, {Key: "m", Value: "a"},
			{Key: "d", Value: float64(i) / 4}, {Key: "i", Value: int32(i)}, {Key: "l", Value: int64(i) << 33},
			{Key: "s", Value: fmt.Sprintf("s%d", i%17)}, {Key: "o", Value: bson.D{{Key: "x", Value: i}, {Key: "y", Value: bson.A{i, "a"}}}},
			{Key: "z", Value: nil}, {Key: "b", Value: i%2 == 0}, {Key: "dec", Value: dec}, {Key: "nz", Value: math.Copysign(0, -1)}}
		if i%3 == 0 {
			m = append(m, bson.E{Key: "sparse", Value: bson.A{i}})
		}
		return m
	}
	const n = 1500
	docs := make([]any, n)
	for i := range docs {
		docs[i] = measurement(i)
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	raw := rawBuckets(t, d, "z")
	if len(raw) != 2 {
		t.Fatalf("%d buckets, want 2 (the first closed by its size)", len(raw))
	}
	if v, _ := raw[0].Lookup("control", "version").AsInt64OK(); v != 2 {
		t.Fatalf("the closed bucket is version %d: %v", v, raw[0].Lookup("control"))
	}
	if cnt, _ := raw[0].Lookup("control", "count").AsInt64OK(); cnt != int64(count(t, buckets(t, d, "z")[0])) || cnt < 500 {
		t.Fatalf("the closed bucket counts %d", cnt)
	}
	for _, f := range []string{"_id", "t", "d", "i", "l", "s", "o", "z", "b", "dec", "nz", "sparse"} {
		if st, _, ok := raw[0].Lookup("data", f).BinaryOK(); !ok || st != 7 {
			t.Fatalf("data.%s of the closed bucket is %v, want a BSONColumn", f, raw[0].Lookup("data", f).Type)
		}
	}
	if v, _ := raw[1].Lookup("control", "version").AsInt64OK(); v != 1 {
		t.Fatalf("the open bucket is version %d", v)
	}
	cur, err := coll.Find(c, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for cur.Next(c) {
		want, _ := bson.Marshal(measurement(i))
		for _, f := range []string{"_id", "t", "m", "d", "i", "l", "s", "o", "z", "b", "dec", "nz", "sparse"} {
			g, w := cur.Current.Lookup(f), bson.Raw(want).Lookup(f)
			if g.Type != w.Type || string(g.Value) != string(w.Value) {
				t.Fatalf("measurement %d: %s = %v, want %v", i, f, g, w)
			}
		}
		i++
	}
	if err := cur.Err(); err != nil || i != n {
		t.Fatalf("%d measurements read back (%v), want %d", i, err, n)
	}
}
