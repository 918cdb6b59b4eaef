package timeseries_test

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/test/testenv"
)

// TestDayQueryReadsItsBuckets: a time range query on a time series
// collection reads the buckets its range reaches, not every bucket that
// started up to bucketMaxSpanSeconds (a day, granularity "minutes")
// before it; a bucket stored directly into system.buckets, wider than
// any before, is still found; what the collection has held survives a
// restart; and with an index on the time field only the buckets that
// overlap the day are read.
func TestDayQueryReadsItsBuckets(t *testing.T) {
	t.Parallel()
	open := reopener(t)
	db, d := open()
	c := testenv.Ctx(t)
	createTS(t, d, "day", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "host"}, {Key: "granularity", Value: "minutes"}})
	// Three days, four hosts, a measurement every 30 s per host: buckets
	// of 1,000 measurements span about 8 h 20 min.
	start := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	const hosts, step = 4, 30 * time.Second
	var docs []any
	for at := start; at.Before(start.AddDate(0, 0, 3)); at = at.Add(step) {
		for h := 0; h < hosts; h++ {
			docs = append(docs, bson.D{{Key: "t", Value: at}, {Key: "host", Value: h}, {Key: "v", Value: 1}})
		}
	}
	if _, err := d.Collection("day").InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	day := start.AddDate(0, 0, 1)
	dayFilter := bson.D{{Key: "t", Value: bson.D{{Key: "$gte", Value: day}, {Key: "$lt", Value: day.AddDate(0, 0, 1)}}}}
	perDay := int64(24 * time.Hour / step * hosts)
	bk := d.Collection("system.buckets.day")
	// examined runs the day query, checks its result and returns the
	// buckets it read with those that overlap the day and those that
	// started within a day before it (what widening by
	// bucketMaxSpanSeconds reads).
	examined := func(d *mongo.Database, want int64) (read, overlap, widened int64) {
		t.Helper()
		n, err := d.Collection("day").CountDocuments(c, dayFilter)
		if err != nil || n != want {
			t.Fatalf("the day holds %d measurements (%v), want %d", n, err, want)
		}
		ex, err := testenv.RunCmd(t, d, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "day"}, {Key: "filter", Value: dayFilter}}},
			{Key: "verbosity", Value: "executionStats"}})
		if err != nil {
			t.Fatal(err)
		}
		read = bsonutil.FirstInt(ex, "totalDocsExamined")
		bk := d.Collection("system.buckets.day")
		overlap, _ = bk.CountDocuments(c, bson.D{{Key: "control.min.t", Value: bson.D{{Key: "$lt", Value: day.AddDate(0, 0, 1)}}},
			{Key: "control.max.t", Value: bson.D{{Key: "$gte", Value: day}}}})
		lo := bson.ObjectID{}
		binary.BigEndian.PutUint32(lo[:4], uint32(day.AddDate(0, 0, -1).Unix()))
		hi := bson.ObjectID{}
		binary.BigEndian.PutUint32(hi[:4], uint32(day.AddDate(0, 0, 1).Unix()))
		widened, _ = bk.CountDocuments(c, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: lo}, {Key: "$lt", Value: hi}}}})
		return read, overlap, widened
	}
	read, overlap, widened := examined(d, perDay)
	// Each host's bucket that ends before the day but started within
	// its span of it may be read: at most one per host.
	if read < overlap || read > overlap+hosts || read >= widened {
		t.Fatalf("the day query read %d buckets; %d overlap the day, %d started within a day before its end", read, overlap, widened)
	}

	// A bucket written directly (as mongorestore does) that started 23 h
	// before the day and holds a measurement of it: wider than any
	// before, it widens the next query's bounds.
	first := day.Add(-23 * time.Hour)
	last := day.Add(30 * time.Minute)
	id := bson.NewObjectID()
	binary.BigEndian.PutUint32(id[:4], uint32(first.Unix()))
	wide := bson.D{{Key: "_id", Value: id},
		{Key: "control", Value: bson.D{{Key: "version", Value: 1},
			{Key: "min", Value: bson.D{{Key: "t", Value: first}, {Key: "v", Value: 7}}},
			{Key: "max", Value: bson.D{{Key: "t", Value: last}, {Key: "v", Value: 7}}}}},
		{Key: "meta", Value: 99},
		{Key: "data", Value: bson.D{
			{Key: "t", Value: bson.D{{Key: "0", Value: first}, {Key: "1", Value: last}}},
			{Key: "v", Value: bson.D{{Key: "0", Value: 7}, {Key: "1", Value: 7}}}}}}
	if _, err := bk.InsertOne(c, wide); err != nil {
		t.Fatal(err)
	}
	examined(d, perDay+1)
	db.Close()

	// After a restart the widest bucket is still known: the query reads
	// as few buckets as before it, and still finds the wide one.
	db, d = open()
	defer db.Close()
	read2, _, _ := examined(d, perDay+1)
	_, _, widened2 := examined(d, perDay+1)
	if read2 >= widened2 {
		t.Fatalf("after the restart the day query read %d buckets, as many as widening by a day reads (%d)", read2, widened2)
	}

	// With an index on the time field (control.min and control.max on
	// the buckets) the query reads exactly the buckets that overlap the
	// day: the bounds on control.max are tested on the index keys.
	if _, err := d.Collection("day").Indexes().CreateOne(c, mongo.IndexModel{Keys: bson.D{{Key: "t", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	read3, overlap3, _ := examined(d, perDay+1)
	if read3 != overlap3 {
		t.Fatalf("with the time index the day query read %d buckets; %d overlap the day", read3, overlap3)
	}
}

// TestBulkRestoredBucketsKeepTheirSpan: buckets inserted straight into
// system.buckets in one large batch (as mongorestore sends them; a batch
// this large is committed by ingestion) raise the collection's widest
// bucket like any write, and the collection remembers it across a
// restart: a day query still finds the measurement of the one bucket
// that began 20 hours before the day.
func TestBulkRestoredBucketsKeepTheirSpan(t *testing.T) {
	t.Parallel()
	open := reopener(t)
	db, d := open()
	c := testenv.Ctx(t)
	createTS(t, d, "restored", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}, {Key: "granularity", Value: "minutes"}})
	start := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	bucket := func(i int, first, last time.Time) bson.D {
		id := bson.NewObjectID()
		binary.BigEndian.PutUint32(id[:4], uint32(first.Unix()))
		return bson.D{{Key: "_id", Value: id},
			{Key: "control", Value: bson.D{{Key: "version", Value: 1},
				{Key: "min", Value: bson.D{{Key: "t", Value: first}, {Key: "v", Value: i}}},
				{Key: "max", Value: bson.D{{Key: "t", Value: last}, {Key: "v", Value: i}}}}},
			{Key: "meta", Value: fmt.Sprintf("%d%0900d", i%7, 0)},
			{Key: "data", Value: bson.D{
				{Key: "t", Value: bson.D{{Key: "0", Value: first}, {Key: "1", Value: last}}},
				{Key: "v", Value: bson.D{{Key: "0", Value: i}, {Key: "1", Value: i}}}}}}
	}
	// 1,200 buckets (with their 900-byte meta values, over a MiB: the
	// batch is ingested) of ten minutes, one an hour from the start; and one
	// that starts 20 hours before day 30 and ends in it.
	var docs []any
	for i := 0; i < 1200; i++ {
		first := start.Add(time.Duration(i) * time.Hour)
		docs = append(docs, bucket(i, first, first.Add(10*time.Minute)))
	}
	day := start.AddDate(0, 0, 30)
	docs = append(docs, bucket(-1, day.Add(-20*time.Hour), day.Add(time.Hour+30*time.Minute)))
	if _, err := d.Collection("system.buckets.restored").InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	st, err := testenv.RunCmd(t, d, bson.D{{Key: "serverStatus", Value: 1}})
	if err != nil || st.Lookup("lode", "storage", "commitsByIngestion").AsInt64() == 0 {
		t.Fatalf("the restore was not committed by ingestion: %v %v", st.Lookup("lode", "storage"), err)
	}
	dayFilter := bson.D{{Key: "t", Value: bson.D{{Key: "$gte", Value: day}, {Key: "$lt", Value: day.AddDate(0, 0, 1)}}}}
	// The day holds two measurements of each of its 24 hourly buckets
	// and the wide bucket's last one.
	want := int64(24*2 + 1)
	check := func(d *mongo.Database, when string) {
		t.Helper()
		n, err := d.Collection("restored").CountDocuments(c, dayFilter)
		if err != nil || n != want {
			t.Fatalf("%s: the day holds %d measurements (%v), want %d", when, n, err, want)
		}
	}
	check(d, "after the restore")
	db.Close()
	db, d = open()
	defer db.Close()
	check(d, "after a restart")
}
