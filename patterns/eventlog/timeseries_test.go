package eventlog

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/patterns/internal/plantest"
)

// TestTimeSeriesMode: the same events, inserted into a time series log,
// answer every query of the package as the plain log does, while the
// server keeps them in one bucket per host and span of time.
func TestTimeSeriesMode(t *testing.T) {
	ctx := context.Background()
	db, err := lode.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	d := db.Client().Database("event_db")
	// Hours: a bucket spans up to 30 days, so each host's events of the
	// test share one.
	l, err := NewTimeSeries(ctx, d, "events", TimeSeriesOptions{Granularity: "hours"})
	if err != nil {
		t.Fatal(err)
	}
	if !l.TimeSeries() {
		t.Fatal("NewTimeSeries returned a plain log")
	}
	if err := l.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	// A second NewTimeSeries reuses the collection; a plain collection of
	// that name is refused.
	if _, err := NewTimeSeries(ctx, d, "events", TimeSeriesOptions{}); err != nil {
		t.Fatalf("NewTimeSeries on the existing log: %v", err)
	}
	if err := d.CreateCollection(ctx, "plain"); err != nil {
		t.Fatal(err)
	}
	if _, err := NewTimeSeries(ctx, d, "plain", TimeSeriesOptions{}); err == nil || !strings.Contains(err.Error(), "not a time series") {
		t.Fatalf("NewTimeSeries on a plain collection: %v", err)
	}
	specs, err := d.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "events"}})
	if err != nil || len(specs) != 1 || specs[0].Type != "timeseries" {
		t.Fatalf("listCollections: %+v, %v", specs, err)
	}

	day := time.Date(2000, 10, 10, 0, 0, 0, 0, time.UTC)
	var batch []Event
	for i := 0; i < 48; i++ {
		batch = append(batch, event(fmt.Sprintf("10.0.0.%d", i%3), []string{"/a", "/b"}[i%2], day.Add(time.Duration(i)*time.Hour)))
	}
	for _, dur := range []Durability{W1, Journaled} {
		n, err := l.InsertMany(ctx, Events(batch[:24]), dur, dur == W1)
		if err != nil || n != 24 {
			t.Fatalf("InsertMany %s: %d, %v", dur, n, err)
		}
		batch = batch[24:]
	}
	e, _ := ParseCombined(seedLine)
	if err := l.Insert(ctx, e, Journaled); err != nil {
		t.Fatal(err)
	}
	check := func(name string, got []Event, err error, want int) {
		t.Helper()
		if err != nil || len(got) != want {
			t.Fatalf("%s: %d events (%v), want %d", name, len(got), err, want)
		}
	}
	got, err := l.ByPath(ctx, "/a")
	check("ByPath /a", got, err, 24)
	got, err = l.ByDay(ctx, day)
	check("ByDay 2000-10-10", got, err, 24+1)
	for i := 1; i < len(got); i++ {
		if got[i].Time.Before(got[i-1].Time) {
			t.Fatalf("ByDay not in time order at %d: %v after %v", i, got[i].Time, got[i-1].Time)
		}
	}
	got, err = l.ByHostDay(ctx, "10.0.0.1", day.AddDate(0, 0, 1))
	check("ByHostDay", got, err, 8)
	if got[0].Host != "10.0.0.1" || got[0].Path == "" || got[0].Status != 200 {
		t.Fatalf("ByHostDay's event lost fields: %+v", got[0])
	}
	hits, err := l.HitsPerPathPerDay(ctx, time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2000, 11, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	want := []Hits{
		{"/a", 2000, 10, 10, 12}, {"/a", 2000, 10, 11, 12},
		{"/apache_pb.gif", 2000, 10, 10, 1},
		{"/b", 2000, 10, 10, 12}, {"/b", 2000, 10, 11, 12},
	}
	if fmt.Sprint(hits) != fmt.Sprint(want) {
		t.Fatalf("hits %v\nwant %v", hits, want)
	}

	// The server keeps the 49 events in one bucket per host: the three
	// of the batches and the seed line's.
	nb, err := d.Collection("system.buckets.events").CountDocuments(ctx, bson.D{})
	if err != nil || nb != 4 {
		t.Fatalf("%d buckets (%v), want 4", nb, err)
	}
	// A one-day query unpacks buckets, and reads only those of its day.
	reply := plantest.Explain(t, d, bson.D{{Key: "find", Value: "events"}, {Key: "filter", Value: bson.D{{Key: "time", Value: dayRange(day.AddDate(0, 0, 1))}}}})
	if !strings.Contains(reply.String(), "$_internalUnpackBucket") {
		t.Errorf("a time series find does not unpack buckets: %v", reply)
	}
}
