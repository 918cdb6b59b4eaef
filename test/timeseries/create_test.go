// Package timeseries_test checks time series collections' write side and
// catalog through the Go driver, as mongod 7.0 has them: create's
// options and errors, the system.buckets collection and its bucket
// documents (read directly, as the drivers' specification tests do),
// listCollections, drop, collMod, indexes and expiry.
package timeseries_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// listEntry returns listCollections' entry of name (nil when absent).
func listEntry(t *testing.T, d *mongo.Database, name string) bson.Raw {
	t.Helper()
	r, err := testenv.RunCmd(t, d, bson.D{{Key: "listCollections", Value: 1}, {Key: "filter", Value: bson.D{{Key: "name", Value: name}}}})
	if err != nil {
		t.Fatal(err)
	}
	b := testenv.FirstBatch(t, r)
	if len(b) == 0 {
		return nil
	}
	return b[0]
}

func createTS(t *testing.T, d *mongo.Database, name string, ts bson.D, extra ...bson.E) {
	t.Helper()
	cmd := bson.D{{Key: "create", Value: name}, {Key: "timeseries", Value: ts}}
	cmd = append(cmd, extra...)
	if _, err := testenv.RunCmd(t, d, cmd); err != nil {
		t.Fatalf("create %v: %v", ts, err)
	}
}

func TestCreateOptions(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	// The driver's helper, with granularity and expiry.
	o := options.CreateCollection().SetTimeSeriesOptions(options.TimeSeries().SetTimeField("time").SetMetaField("meta").SetGranularity("minutes")).SetExpireAfterSeconds(604800)
	if err := d.CreateCollection(c, "ts", o); err != nil {
		t.Fatal(err)
	}
	e := listEntry(t, d, "ts")
	if e == nil || e.Lookup("type").StringValue() != "timeseries" {
		t.Fatalf("listCollections entry %v", e)
	}
	tso := e.Lookup("options", "timeseries")
	if got := tso.String(); got != `{"timeField": "time","metaField": "meta","granularity": "minutes","bucketMaxSpanSeconds": {"$numberInt":"86400"}}` {
		t.Fatalf("options.timeseries %s", got)
	}
	if v := e.Lookup("options", "expireAfterSeconds"); v.AsInt64() != 604800 {
		t.Fatalf("options.expireAfterSeconds %v", v)
	}
	if ro := e.Lookup("info", "readOnly"); ro.Boolean() {
		t.Fatalf("info %v", e.Lookup("info"))
	}
	b := listEntry(t, d, "system.buckets.ts")
	if b == nil || b.Lookup("type").StringValue() != "collection" {
		t.Fatalf("buckets entry %v", b)
	}
	if ci := b.Lookup("options", "clusteredIndex"); ci.Type != bson.TypeBoolean || !ci.Boolean() {
		t.Fatalf("buckets clusteredIndex %v", ci)
	}
	if b.Lookup("options", "timeseries", "granularity").StringValue() != "minutes" {
		t.Fatalf("buckets timeseries %v", b.Lookup("options", "timeseries"))
	}
	if _, err := b.LookupErr("options", "validator", "$jsonSchema"); err != nil {
		t.Fatalf("buckets validator: %v", b)
	}
	// Creating it again with the same options succeeds; with others, 48.
	if err := d.CreateCollection(c, "ts", o); err != nil {
		t.Fatalf("same create again: %v", err)
	}
	_, err := testenv.RunCmd(t, d, bson.D{{Key: "create", Value: "ts"}, {Key: "timeseries", Value: bson.D{{Key: "timeField", Value: "t2"}}}})
	testenv.WantCode(t, "create with other options", err, 48)

	// Custom bucketing: both stored, no granularity.
	createTS(t, d, "custom", bson.D{{Key: "timeField", Value: "t"}, {Key: "bucketMaxSpanSeconds", Value: 4000}, {Key: "bucketRoundingSeconds", Value: 4000}})
	got := listEntry(t, d, "custom").Lookup("options", "timeseries").String()
	if got != `{"timeField": "t","bucketRoundingSeconds": {"$numberInt":"4000"},"bucketMaxSpanSeconds": {"$numberInt":"4000"}}` {
		t.Fatalf("custom options %s", got)
	}
	// timeField alone: granularity seconds.
	createTS(t, d, "plain", bson.D{{Key: "timeField", Value: "t"}})
	got = listEntry(t, d, "plain").Lookup("options", "timeseries").String()
	if got != `{"timeField": "t","granularity": "seconds","bucketMaxSpanSeconds": {"$numberInt":"3600"}}` {
		t.Fatalf("default options %s", got)
	}
	// A granularity with its own defaults spelled out is accepted and
	// stored as the granularity alone.
	createTS(t, d, "hours", bson.D{{Key: "timeField", Value: "t"}, {Key: "granularity", Value: "hours"}, {Key: "bucketMaxSpanSeconds", Value: 2592000}, {Key: "bucketRoundingSeconds", Value: 86400}})
	if _, err := listEntry(t, d, "hours").LookupErr("options", "timeseries", "bucketRoundingSeconds"); err == nil {
		t.Fatal("bucketRoundingSeconds listed with a granularity")
	}

	// Drop removes both.
	if err := d.Collection("ts").Drop(c); err != nil {
		t.Fatal(err)
	}
	if listEntry(t, d, "ts") != nil || listEntry(t, d, "system.buckets.ts") != nil {
		t.Fatal("time series collection left after drop")
	}
}

func TestCreateErrors(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	for _, tc := range []struct {
		name string
		ts   any
		more bson.D
		code int32
	}{
		{"no timeField", bson.D{{Key: "metaField", Value: "m"}}, nil, 40414},
		{"unknown field", bson.D{{Key: "timeField", Value: "t"}, {Key: "x", Value: 1}}, nil, 40415},
		{"timeField type", bson.D{{Key: "timeField", Value: 1}}, nil, 14},
		{"granularity value", bson.D{{Key: "timeField", Value: "t"}, {Key: "granularity", Value: "days"}}, nil, 2},
		{"meta _id", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "_id"}}, nil, 72},
		{"meta is time", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "t"}}, nil, 72},
		{"dotted time", bson.D{{Key: "timeField", Value: "a.t"}}, nil, 72},
		{"dotted meta", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "a.b"}}, nil, 72},
		{"span alone", bson.D{{Key: "timeField", Value: "t"}, {Key: "bucketMaxSpanSeconds", Value: 3600}}, nil, 72},
		{"rounding alone", bson.D{{Key: "timeField", Value: "t"}, {Key: "bucketRoundingSeconds", Value: 4000}}, nil, 72},
		{"unequal", bson.D{{Key: "timeField", Value: "t"}, {Key: "bucketMaxSpanSeconds", Value: 50}, {Key: "bucketRoundingSeconds", Value: 100}}, nil, 72},
		{"negative", bson.D{{Key: "timeField", Value: "t"}, {Key: "bucketMaxSpanSeconds", Value: -1}, {Key: "bucketRoundingSeconds", Value: -1}}, nil, 51024},
		{"granularity and span", bson.D{{Key: "timeField", Value: "t"}, {Key: "granularity", Value: "minutes"}, {Key: "bucketMaxSpanSeconds", Value: 4000}, {Key: "bucketRoundingSeconds", Value: 4000}}, nil, 72},
		{"with capped", bson.D{{Key: "timeField", Value: "t"}}, bson.D{{Key: "capped", Value: true}, {Key: "size", Value: 1000}}, 72},
		{"with validator", bson.D{{Key: "timeField", Value: "t"}}, bson.D{{Key: "validator", Value: bson.D{}}}, 72},
		{"not an object", "t", nil, 14},
	} {
		cmd := bson.D{{Key: "create", Value: "bad"}, {Key: "timeseries", Value: tc.ts}}
		cmd = append(cmd, tc.more...)
		_, err := testenv.RunCmd(t, d, cmd)
		testenv.WantCode(t, tc.name, err, tc.code)
		if listEntry(t, d, "bad") != nil || listEntry(t, d, "system.buckets.bad") != nil {
			t.Fatalf("%s: collection left behind", tc.name)
		}
	}
}

// reopener returns a function that opens one embedded Lode data
// directory, the same each call, and its database "test": a test closes
// the DB it got and calls it again to restart.
func reopener(t *testing.T) func() (*lode.DB, *mongo.Database) {
	t.Helper()
	dir := t.TempDir()
	return func() (*lode.DB, *mongo.Database) {
		db, err := lode.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return db, db.Client().Database("test")
	}
}
