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
	_, err = coll.DeleteMany(c, bson.D{{Key: "t", Value: bson.D{{Key: "$lt", Value: t0}}}})
	testenv.WantCode(t, "delete on the time field", err, 238)
	// Inserts go on after buckets were removed under the catalog.
	if _, err := coll.InsertOne(c, bson.D{{Key: "t", Value: t0}, {Key: "m", Value: bson.D{{Key: "host", Value: "c"}}}}); err != nil {
		t.Fatal(err)
	}
	if n := countMeasurements(t, d, "ud"); n != 11 {
		t.Fatalf("%d measurements", n)
	}
	// Everything: an empty filter.
	if dr, err := coll.DeleteMany(c, bson.D{}); err != nil || dr.DeletedCount != 11 {
		t.Fatalf("deleteMany {}: %+v %v", dr, err)
	}
}
