package timeseries_test

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

func TestMetaUpdatesAndDeletes(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	createTS(t, d, "ud", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	coll := d.Collection("ud")
	var docs []any
	for i := 0; i < 30; i++ {
		docs = append(docs, bson.D{{Key: "t", Value: t0.Add(time.Duration(i) * time.Second)}, {Key: "m", Value: bson.D{{Key: "host", Value: []string{"a", "b", "c"}[i%3]}}}, {Key: "v", Value: i}})
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	// updateMany on the metaField: whole buckets, measurements counted.
	r, err := coll.UpdateMany(c, bson.D{{Key: "m.host", Value: "a"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "m.host", Value: "A"}}}})
	if err != nil || r.MatchedCount != 10 || r.ModifiedCount != 10 {
		t.Fatalf("updateMany: %+v %v", r, err)
	}
	hosts := map[string]int{}
	for _, b := range buckets(t, d, "ud") {
		hosts[b.Lookup("meta", "host").StringValue()] += count(t, b)
	}
	if hosts["A"] != 10 || hosts["a"] != 0 {
		t.Fatalf("after the update %v", hosts)
	}
	// Refused: a filter or an update on measurement fields, updateOne.
	_, err = coll.UpdateMany(c, bson.D{{Key: "v", Value: 3}}, bson.D{{Key: "$set", Value: bson.D{{Key: "m.host", Value: "x"}}}})
	testenv.WantCode(t, "update filtering a measurement field", err, 238)
	_, err = coll.UpdateMany(c, bson.D{{Key: "m.host", Value: "b"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: 0}}}})
	testenv.WantCode(t, "update of a measurement field", err, 238)
	_, err = coll.UpdateOne(c, bson.D{{Key: "m.host", Value: "b"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "m.host", Value: "x"}}}})
	testenv.WantCode(t, "updateOne", err, 238)
	// deleteMany on the metaField.
	dr, err := coll.DeleteMany(c, bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "m.host", Value: "A"}}, bson.D{{Key: "m", Value: bson.D{{Key: "host", Value: "c"}}}}}}})
	if err != nil || dr.DeletedCount != 20 {
		t.Fatalf("deleteMany: %+v %v", dr, err)
	}
	if n := countMeasurements(t, d, "ud"); n != 10 {
		t.Fatalf("%d measurements left", n)
	}
	// By measurement fields (mongod 7.0's arbitrary deletes): the
	// buckets are rewritten without the measurements, or removed.
	// Left: the 10 of host b, v = 1, 4, ..., 28.
	dr, err = coll.DeleteMany(c, bson.D{{Key: "v", Value: bson.D{{Key: "$gte", Value: 20}}}})
	if err != nil || dr.DeletedCount != 3 {
		t.Fatalf("deleteMany by v: %+v %v", dr, err)
	}
	dr, err = coll.DeleteOne(c, bson.D{{Key: "t", Value: bson.D{{Key: "$gte", Value: t0}}}, {Key: "m.host", Value: "b"}})
	if err != nil || dr.DeletedCount != 1 {
		t.Fatalf("deleteOne: %+v %v", dr, err)
	}
	bs := buckets(t, d, "ud")
	if len(bs) != 1 || count(t, bs[0]) != 6 {
		t.Fatalf("buckets after the deletes: %v", bs)
	}
	// Rewritten: positions renumbered, control recomputed.
	if got := bs[0].Lookup("data", "v").String(); got != `{"0": {"$numberInt":"4"},"1": {"$numberInt":"7"},"2": {"$numberInt":"10"},"3": {"$numberInt":"13"},"4": {"$numberInt":"16"},"5": {"$numberInt":"19"}}` {
		t.Fatalf("data.v %s", got)
	}
	if bs[0].Lookup("control", "min", "v").AsInt64() != 4 || bs[0].Lookup("control", "max", "v").AsInt64() != 19 {
		t.Fatalf("control %v", bs[0].Lookup("control"))
	}
	if _, err := coll.DeleteMany(c, bson.D{{Key: "v", Value: bson.D{{Key: "$bad", Value: 1}}}}); err == nil {
		t.Fatal("a bad filter deleted")
	}
	if n := countMeasurements(t, d, "ud"); n != 6 {
		t.Fatalf("%d measurements", n)
	}
	// Inserts go on after buckets were removed under the catalog.
	if _, err := coll.InsertOne(c, bson.D{{Key: "t", Value: t0}, {Key: "m", Value: bson.D{{Key: "host", Value: "c"}}}}); err != nil {
		t.Fatal(err)
	}
	if n := countMeasurements(t, d, "ud"); n != 7 {
		t.Fatalf("%d measurements", n)
	}
	// Everything: an empty filter.
	if dr, err := coll.DeleteMany(c, bson.D{}); err != nil || dr.DeletedCount != 7 {
		t.Fatalf("deleteMany {}: %+v %v", dr, err)
	}
}
