package timeseries_test

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

func TestCollMod(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	createTS(t, d, "m", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "h"}})
	coll := d.Collection("m")
	if _, err := coll.InsertOne(c, bson.D{{Key: "t", Value: t0}, {Key: "h", Value: "a"}}); err != nil {
		t.Fatal(err)
	}
	run := func(cmd bson.D) error {
		_, err := testenv.RunCmd(t, d, cmd)
		return err
	}
	if err := run(bson.D{{Key: "collMod", Value: "m"}, {Key: "timeseries", Value: bson.D{{Key: "granularity", Value: "hours"}}}, {Key: "expireAfterSeconds", Value: 3600}}); err != nil {
		t.Fatal(err)
	}
	e := listEntry(t, d, "m")
	if got := e.Lookup("options", "timeseries").String(); got != `{"timeField": "t","metaField": "h","granularity": "hours","bucketMaxSpanSeconds": {"$numberInt":"2592000"}}` {
		t.Fatalf("after collMod: %s", got)
	}
	if e.Lookup("options", "expireAfterSeconds").AsInt64() != 3600 {
		t.Fatalf("expireAfterSeconds: %v", e)
	}
	// The view's unpack stage follows the new span.
	views, err := d.Collection("system.views").Find(c, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var vs []bson.Raw
	for views.Next(c) {
		vs = append(vs, append(bson.Raw(nil), views.Current...))
	}
	if len(vs) != 1 || vs[0].Lookup("pipeline", "0", "$_internalUnpackBucket", "bucketMaxSpanSeconds").Int32() != 2592000 {
		t.Fatalf("system.views %v", vs)
	}
	// Back to a finer granularity: refused.
	err = run(bson.D{{Key: "collMod", Value: "m"}, {Key: "timeseries", Value: bson.D{{Key: "granularity", Value: "minutes"}}}})
	testenv.WantCode(t, "finer granularity", err, 72)
	err = run(bson.D{{Key: "collMod", Value: "m"}, {Key: "timeseries", Value: bson.D{{Key: "granularity", Value: "weeks"}}}})
	testenv.WantCode(t, "unknown granularity", err, 2)
	err = run(bson.D{{Key: "collMod", Value: "m"}, {Key: "validator", Value: bson.D{}}})
	testenv.WantCode(t, "validator", err, 72)
	err = d.Client().Database("admin").RunCommand(c, bson.D{{Key: "renameCollection", Value: d.Name() + ".system.buckets.m"}, {Key: "to", Value: d.Name() + ".other"}}).Err()
	testenv.WantCode(t, "rename of the buckets", err, 20)
	// Custom bucketing parameters: together, equal, not lower.
	err = run(bson.D{{Key: "collMod", Value: "m"}, {Key: "timeseries", Value: bson.D{{Key: "bucketMaxSpanSeconds", Value: 2592000}}}})
	testenv.WantCode(t, "span alone", err, 72)
	err = run(bson.D{{Key: "collMod", Value: "m"}, {Key: "timeseries", Value: bson.D{{Key: "bucketMaxSpanSeconds", Value: 3600}, {Key: "bucketRoundingSeconds", Value: 3600}}}})
	testenv.WantCode(t, "lower span", err, 72)
	if err := run(bson.D{{Key: "collMod", Value: "m"}, {Key: "timeseries", Value: bson.D{{Key: "bucketMaxSpanSeconds", Value: 2592000}, {Key: "bucketRoundingSeconds", Value: 2592000}}}}); err != nil {
		t.Fatal(err)
	}
	if got := listEntry(t, d, "m").Lookup("options", "timeseries").String(); got != `{"timeField": "t","metaField": "h","bucketRoundingSeconds": {"$numberInt":"2592000"},"bucketMaxSpanSeconds": {"$numberInt":"2592000"}}` {
		t.Fatalf("after collMod of the bucketing: %s", got)
	}
	if err := run(bson.D{{Key: "collMod", Value: "m"}, {Key: "expireAfterSeconds", Value: "off"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := listEntry(t, d, "m").LookupErr("options", "expireAfterSeconds"); err == nil {
		t.Fatal("expireAfterSeconds still set after off")
	}
	// Measurements after the change open buckets under the new
	// parameters: rounded to the day.
	if _, err := coll.InsertOne(c, bson.D{{Key: "t", Value: t0}, {Key: "h", Value: "b"}}); err != nil {
		t.Fatal(err)
	}
	// Rounded to a multiple of 30 days since the epoch.
	day := time.Unix(t0.Unix()-t0.Unix()%2592000, 0).UTC()
	found := false
	for _, b := range buckets(t, d, "m") {
		if b.Lookup("meta").StringValue() == "b" {
			found = true
			if got := b.Lookup("control", "min", "t").Time(); !got.Equal(day) {
				t.Fatalf("bucket start %v, want %v", got, day)
			}
		}
	}
	if !found {
		t.Fatal("no bucket for b")
	}
}

func TestExpiry(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	createTS(t, d, "x", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "h"}}, bson.E{Key: "expireAfterSeconds", Value: 60})
	coll := d.Collection("x")
	now := time.Now().UTC()
	var docs []any
	// Old measurements (two days ago) and recent ones.
	for i := 0; i < 5; i++ {
		docs = append(docs, bson.D{{Key: "t", Value: now.Add(-48 * time.Hour).Add(time.Duration(i) * time.Second)}, {Key: "h", Value: "old"}})
		docs = append(docs, bson.D{{Key: "t", Value: now.Add(-time.Duration(i) * time.Second)}, {Key: "h", Value: "new"}})
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	if n := len(buckets(t, d, "x")); n < 2 {
		t.Fatalf("%d buckets", n)
	}
	testenv.SetParameter(t, d.Client().Database("admin"), "ttlMonitorSleepSecs", 1)
	deadline := time.Now().Add(20 * time.Second)
	for {
		old := 0
		for _, b := range buckets(t, d, "x") {
			if b.Lookup("meta").StringValue() == "old" {
				old++
			}
		}
		if old == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("TTL left %d old buckets", old)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if n := countMeasurements(t, d, "x"); n != 5 {
		t.Fatalf("%d measurements left, want the 5 recent ones", n)
	}
	// Inserting after the expiry still works (the catalog forgot the
	// removed buckets).
	if _, err := coll.InsertOne(c, bson.D{{Key: "t", Value: now}, {Key: "h", Value: "new"}}); err != nil {
		t.Fatal(err)
	}
	if n := countMeasurements(t, d, "x"); n != 6 {
		t.Fatalf("%d measurements, want 6", n)
	}
}

func TestCollStats(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	createTS(t, d, "s", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "h"}})
	testenv.InsertBatches(t, d.Collection("s"), 2500, func(i int) any {
		return bson.D{{Key: "t", Value: t0.Add(time.Duration(i) * time.Second / 10)}, {Key: "h", Value: i % 2}, {Key: "v", Value: i}}
	})
	r, err := testenv.RunCmd(t, d, bson.D{{Key: "collStats", Value: "s"}})
	if err != nil {
		t.Fatal(err)
	}
	_ = c
	if r.Lookup("ns").StringValue() != d.Name()+".s" {
		t.Fatalf("ns %v", r.Lookup("ns"))
	}
	ts := r.Lookup("timeseries").Document()
	if ts.Lookup("bucketsNs").StringValue() != d.Name()+".system.buckets.s" {
		t.Fatalf("bucketsNs %v", ts)
	}
	// 1250 measurements per series: two buckets each.
	if n := ts.Lookup("bucketCount").AsInt64(); n != 4 {
		t.Fatalf("bucketCount %d, want 4", n)
	}
	if n := ts.Lookup("numMeasurementsCommitted").AsInt64(); n != 2500 {
		t.Fatalf("numMeasurementsCommitted %d", n)
	}
	if n := ts.Lookup("numBucketsClosedDueToCount").AsInt64(); n != 2 {
		t.Fatalf("numBucketsClosedDueToCount %d", n)
	}
	if n := ts.Lookup("numBucketsOpenedDueToMetadata").AsInt64(); n != 2 {
		t.Fatalf("numBucketsOpenedDueToMetadata %d", n)
	}
	if r.Lookup("storageSize").AsInt64() <= 0 && r.Lookup("size").AsInt64() <= 0 {
		t.Fatalf("sizes %v", r)
	}
}
