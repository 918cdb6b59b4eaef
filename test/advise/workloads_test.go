package advise_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/patterns/eventlog"
	"github.com/lodedb/lode/patterns/metadata"
	"github.com/lodedb/lode/patterns/queue"
	"github.com/lodedb/lode/patterns/recent"
	"github.com/lodedb/lode/test/testenv"
)

// workload is one seed's data and queries, run without its indexes.
type workload struct {
	name string
	// load inserts the data set of n documents.
	load func(t *testing.T, ctx context.Context, db *mongo.Database, n int)
	// run issues the seed's queries (ops of each kind); it must not fail
	// for lack of an index.
	run func(t *testing.T, ctx context.Context, db *mongo.Database, n, ops int)
	// want are the indexes the advisor must propose, as key strings.
	want []string
	// maxN, when set, caps the data set: each unindexed queue claim
	// scans the whole collection, and four of them per operation over
	// 200,000 jobs took most of the acceptance run.
	maxN int
}

func workloads() []workload {
	return []workload{
		{name: "seed000_recent", load: loadRecent, run: runRecent, want: []string{"{ cat: 1, ts: -1 }"}},
		{name: "seed002_metadata", load: loadMetadata, run: runMetadata, want: []string{"{ metadata.key: 1, metadata.value: 1 }"}},
		{name: "seed003_hostday", load: loadEvents, run: runEvents, want: []string{"{ host: 1, time: 1 }"}},
		{name: "seed004_queue", load: loadQueue, run: runQueue,
			want: []string{"{ startTime: 1, createdOn: 1 }", "{ startTime: 1, priority: -1, createdOn: 1 }"}, maxN: 50000},
	}
}

const recentCats = 20

func loadRecent(t *testing.T, ctx context.Context, db *mongo.Database, n int) {
	testenv.InsertBatches(t, db.Collection("docs"), n, func(i int) any {
		return bson.D{{Key: "_id", Value: i}, {Key: "cat", Value: fmt.Sprintf("c%02d", rand.IntN(recentCats))}, {Key: "ts", Value: int64(i)}}
	})
}

// runRecent is seed 000's sorted query: the newest 100 of three
// categories (recent.Latest: $in, sort {ts: -1}, limit).
func runRecent(t *testing.T, ctx context.Context, db *mongo.Database, n, ops int) {
	for i := 0; i < ops; i++ {
		cats := []any{}
		for _, k := range rand.Perm(recentCats)[:3] {
			cats = append(cats, fmt.Sprintf("c%02d", k))
		}
		docs, err := recent.Latest(ctx, db.Collection("docs"), recent.CatField, cats, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) != 100 {
			t.Fatalf("recent.Latest returned %d documents, want 100", len(docs))
		}
	}
}

func loadMetadata(t *testing.T, ctx context.Context, db *mongo.Database, n int) {
	testenv.InsertBatches(t, db.Collection("images"), n, func(i int) any { return testenv.MetadataImage(i) })
}

// runMetadata is seed 002's query: one image by File Name and MIME type
// ($all of two $elemMatch).
func runMetadata(t *testing.T, ctx context.Context, db *mongo.Database, n, ops int) {
	st := metadata.New(db.Collection("images"))
	mimes := []string{"image/jpeg", "image/png", "image/gif"}
	for k := 0; k < ops; k++ {
		i := rand.IntN(n)
		docs, err := st.Find(ctx, metadata.P("File Name", fmt.Sprintf("img_%d.jpg", i)), metadata.P("MIME type", mimes[i%3]))
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) != 1 {
			t.Fatalf("metadata.Find found %d images, want 1", len(docs))
		}
	}
}

const (
	eventHosts = 20
	eventDays  = 10
)

var eventStart = time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC)

func loadEvents(t *testing.T, ctx context.Context, db *mongo.Database, n int) {
	span := eventDays * 24 * time.Hour
	testenv.InsertBatches(t, db.Collection("events"), n, func(i int) any {
		return eventlog.Event{Host: fmt.Sprintf("10.0.0.%d", i%eventHosts), User: "frank",
			Time: eventStart.Add(time.Duration(int64(span) / int64(n) * int64(i))), Method: "GET",
			Path: "/apache_pb.gif", Protocol: "HTTP/1.0", Status: 200, Size: 2326}
	})
}

// runEvents is seed 003's per-host range: the events of one host on one
// day, {host: H, time: {$gte: day, $lt: day+1}} sorted by time.
func runEvents(t *testing.T, ctx context.Context, db *mongo.Database, n, ops int) {
	l := eventlog.New(db.Collection("events"))
	for i := 0; i < ops; i++ {
		day := eventStart.AddDate(0, 0, rand.IntN(eventDays))
		evs, err := l.ByHostDay(ctx, fmt.Sprintf("10.0.0.%d", rand.IntN(eventHosts)), day)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) == 0 {
			t.Fatal("eventlog.ByHostDay found no events")
		}
	}
}

func loadQueue(t *testing.T, ctx context.Context, db *mongo.Database, n int) {
	base := time.Now().UTC().Add(-time.Hour)
	testenv.InsertBatches(t, db.Collection("jobs"), n, func(i int) any {
		return bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "startTime", Value: nil}, {Key: "endTime", Value: nil},
			{Key: "createdOn", Value: base.Add(time.Duration(i) * time.Millisecond)}, {Key: "priority", Value: rand.IntN(10)},
			{Key: "payload", Value: bson.D{{Key: "n", Value: i}}}, {Key: "attempts", Value: 0}}
	})
}

// runQueue is seed 004's consumers: FIFO and priority claims
// (findAndModify on {startTime: null}) finished through their claim,
// and publishers adding as many jobs.
func runQueue(t *testing.T, ctx context.Context, db *mongo.Database, n, ops int) {
	q := queue.New(db.Collection("jobs"))
	for i := 0; i < ops; i++ {
		for _, next := range []func(context.Context) (*queue.Job, error){q.NextFIFO, q.NextByPriority} {
			j, err := next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := q.FinishClaim(ctx, j); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := q.Publish(ctx, bson.D{{Key: "n", Value: i}}, rand.IntN(10)); err != nil {
			t.Fatal(err)
		}
	}
}
