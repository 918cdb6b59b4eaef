package timeseries_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// indexes lists coll's index specifications as name -> key.
func indexes(t *testing.T, coll *mongo.Collection) map[string]string {
	t.Helper()
	cur, err := coll.Indexes().List(testenv.Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for cur.Next(testenv.Ctx(t)) {
		out[cur.Current.Lookup("name").StringValue()] = cur.Current.Lookup("key").String()
	}
	return out
}

func TestIndexes(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	createTS(t, d, "ix", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	coll := d.Collection("ix")
	// The default index on meta and time, in the user's terms; on the
	// buckets as mongod keeps it.
	got := indexes(t, coll)
	if len(got) != 1 || got["m_1_t_1"] != `{"m": {"$numberInt":"1"},"t": {"$numberInt":"1"}}` {
		t.Fatalf("indexes %v", got)
	}
	bix := indexes(t, d.Collection("system.buckets.ix"))
	if bix["m_1_t_1"] != `{"meta": {"$numberInt":"1"},"control.min.t": {"$numberInt":"1"},"control.max.t": {"$numberInt":"1"}}` {
		t.Fatalf("buckets indexes %v", bix)
	}
	// Secondary indexes on a meta subfield, time descending and a
	// measurement field.
	for _, k := range []bson.D{
		{{Key: "m.region", Value: 1}, {Key: "t", Value: -1}},
		{{Key: "temp", Value: 1}},
	} {
		if _, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: k}); err != nil {
			t.Fatal(err)
		}
	}
	bix = indexes(t, d.Collection("system.buckets.ix"))
	if bix["m.region_1_t_-1"] != `{"meta.region": {"$numberInt":"1"},"control.max.t": {"$numberInt":"-1"},"control.min.t": {"$numberInt":"-1"}}` {
		t.Fatalf("buckets indexes %v", bix)
	}
	if bix["temp_1"] != `{"control.min.temp": {"$numberInt":"1"},"control.max.temp": {"$numberInt":"1"}}` {
		t.Fatalf("buckets indexes %v", bix)
	}
	got = indexes(t, coll)
	if len(got) != 3 || got["m.region_1_t_-1"] != `{"m.region": {"$numberInt":"1"},"t": {"$numberInt":"-1"}}` || got["temp_1"] != `{"temp": {"$numberInt":"1"}}` {
		t.Fatalf("indexes %v", got)
	}
	// Refused: unique, and non-numeric keys on measurements.
	_, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: bson.D{{Key: "m", Value: 1}}, Options: optionsUnique()})
	testenv.WantCode(t, "unique", err, 72)
	_, err = coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: bson.D{{Key: "temp", Value: "hashed"}}})
	testenv.WantCode(t, "hashed measurement", err, 2)
	// Drop by key pattern (translated) and by name.
	if err := coll.Indexes().DropWithKey(c, bson.D{{Key: "temp", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := coll.Indexes().DropOne(c, "m.region_1_t_-1"); err != nil {
		t.Fatal(err)
	}
	if got := indexes(t, coll); len(got) != 1 {
		t.Fatalf("after drops %v", got)
	}
	// Measurements keep going into indexed buckets.
	if _, err := coll.InsertMany(c, []any{bson.D{{Key: "t", Value: t0}, {Key: "m", Value: bson.D{{Key: "region", Value: "eu"}}}, {Key: "temp", Value: 3}}}); err != nil {
		t.Fatal(err)
	}
	if n := countMeasurements(t, d, "ix"); n != 1 {
		t.Fatalf("%d measurements", n)
	}
}

func optionsUnique() *options.IndexOptionsBuilder { return options.Index().SetUnique(true) }
