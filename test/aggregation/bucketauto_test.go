package aggregation_test

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// bucketAutoRun runs one $bucketAuto over db.coll and returns each
// bucket as "min-max:count".
func bucketAutoRun(t *testing.T, d *mongo.Database, coll, spec string) []string {
	t.Helper()
	var stage bson.D
	if err := bson.UnmarshalExtJSON([]byte(spec), false, &stage); err != nil {
		t.Fatal(err)
	}
	cur, err := d.Collection(coll).Aggregate(testenv.Ctx(t), bson.A{bson.D{{Key: "$bucketAuto", Value: stage}}})
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	var out []struct {
		ID    struct{ Min, Max any } `bson:"_id"`
		Count int                    `bson:"count"`
	}
	if err := cur.All(testenv.Ctx(t), &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range out {
		got = append(got, fmt.Sprintf("%v-%v:%d", b.ID.Min, b.ID.Max, b.Count))
	}
	return got
}

// TestBucketAutoBoundaries checks through the Go driver that $bucketAuto
// cuts its buckets as mongod does (each about round(n/buckets)
// documents, the last one the rest) and rounds the boundaries to a
// granularity's series: the R20 result below is the one MongoDB gives
// (224 × 0.1 is 22.400000000000002), the others follow mongod's rules
// for the other series, and the errors are mongod's.
func TestBucketAutoBoundaries(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	var lengths []any
	for _, v := range []float64{10.5, 50.3, 20.8, 80.2, 200.3} {
		lengths = append(lengths, bson.D{{Key: "length", Value: v}})
	}
	if _, err := d.Collection("places").InsertMany(ctx, lengths); err != nil {
		t.Fatal(err)
	}
	var ints []any
	for i := 0; i < 100; i++ {
		ints = append(ints, bson.D{{Key: "_id", Value: i}})
	}
	if _, err := d.Collection("ints").InsertMany(ctx, ints); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		coll, spec string
		want       []string
	}{
		// Five documents in three buckets: two, two, one.
		{"places", `{"groupBy": "$length", "buckets": 3}`, []string{"10.5-50.3:2", "50.3-200.3:2", "200.3-200.3:1"}},
		{"places", `{"groupBy": "$length", "buckets": 3, "granularity": "R20"}`, []string{"10-22.400000000000002:2", "22.400000000000002-90:2", "90-224:1"}},
		// Ten in four: three, three, three, one.
		{"ints", `{"groupBy": {"$mod": ["$_id", 10]}, "buckets": 4}`, []string{"0-3:30", "3-6:30", "6-9:30", "9-9:10"}},
		{"ints", `{"groupBy": "$_id", "buckets": 5, "granularity": "R20"}`, []string{"0-20:20", "20-40:20", "40-63:23", "63-90:27", "90-100:10"}},
		{"ints", `{"groupBy": "$_id", "buckets": 5, "granularity": "1-2-5"}`, []string{"0-20:20", "20-50:30", "50-100:50"}},
		{"ints", `{"groupBy": "$_id", "buckets": 5, "granularity": "E6"}`, []string{"0-22:22", "22-47:25", "47-68:21", "68-100:32"}},
		{"ints", `{"groupBy": "$_id", "buckets": 5, "granularity": "POWERSOF2"}`, []string{"0-32:32", "32-64:32", "64-128:36"}},
	} {
		got := bucketAutoRun(t, d, c.coll, c.spec)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s over %s:\n got %v\nwant %v", c.spec, c.coll, got, c.want)
		}
	}
	for _, c := range []struct {
		spec string
		code int32
	}{
		{`{"groupBy": "$_id", "buckets": 5, "granularity": "R99"}`, 40257},
		{`{"groupBy": "$_id", "buckets": 5, "granularity": 5}`, 40261},
		{`{"groupBy": "$nope", "buckets": 5, "granularity": "R5"}`, 40258},
		{`{"groupBy": {"$subtract": [0, "$_id"]}, "buckets": 5, "granularity": "R5"}`, 40260},
	} {
		var stage bson.D
		if err := bson.UnmarshalExtJSON([]byte(c.spec), false, &stage); err != nil {
			t.Fatal(err)
		}
		cur, err := d.Collection("ints").Aggregate(ctx, bson.A{bson.D{{Key: "$bucketAuto", Value: stage}}})
		if err == nil {
			err = cur.All(ctx, &[]bson.D{})
		}
		testenv.WantCmdError(t, err, c.code, "")
	}
}
