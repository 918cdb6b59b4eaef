package bsoncolumn_test

import (
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/internal/bsoncolumn"
)

// Compress a version-1 bucket, then read its measurements back the way an
// unpack stage does: the columns side by side, one iterator each.
func Example() {
	t0 := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	v1, _ := bson.Marshal(bson.D{
		{Key: "_id", Value: bson.NewObjectIDFromTimestamp(t0)},
		{Key: "control", Value: bson.D{{Key: "version", Value: int32(1)}}},
		{Key: "meta", Value: "host1"},
		{Key: "data", Value: bson.D{
			{Key: "time", Value: bson.D{
				{Key: "0", Value: bson.NewDateTimeFromTime(t0.Add(2 * time.Second))},
				{Key: "1", Value: bson.NewDateTimeFromTime(t0)},
			}},
			{Key: "status", Value: bson.D{{Key: "0", Value: int32(404)}}},
		}},
	})
	v2, err := bsoncolumn.CompressBucket(v1, "time")
	if err != nil {
		panic(err)
	}
	cols, _ := bsoncolumn.DataColumns(v2, nil)
	its := make([]bsoncolumn.Iterator, len(cols))
	for i := range cols {
		its[i].Reset(cols[i].Column)
	}
	for {
		t, ok := its[0].Next()
		if !ok {
			break
		}
		status, _ := its[1].Next()
		if status.Type == 0 {
			fmt.Println(t.Time().UTC().Format(time.TimeOnly), "no status")
		} else {
			fmt.Println(t.Time().UTC().Format(time.TimeOnly), status.Int32())
		}
	}
	// Output:
	// 00:00:00 no status
	// 00:00:02 404
}
