package scenarios

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/internal/sim"
	"github.com/lodedb/lode/patterns/eventlog"
)

var (
	paths  = []string{"/", "/index.html", "/apache_pb.gif", "/about", "/products", "/cart", "/login", "/search", "/blog", "/contact"}
	agents = []string{"Mozilla/4.08 [en] (Win98; I ;Nav)", "curl/8.5.0", "Mozilla/5.0 (X11; Linux x86_64)"}
)

// logDays is the span of preloaded events, ending now.
const logDays = 30

// event returns a synthetic Apache access-log event at t.
func event(i int, t time.Time) eventlog.Event {
	return eventlog.Event{
		Host:      fmt.Sprintf("10.0.%d.%d", i%7, i%251),
		User:      "frank",
		Time:      t,
		Method:    "GET",
		Path:      paths[i%len(paths)],
		Protocol:  "HTTP/1.0",
		Status:    []int{200, 200, 200, 304, 404}[i%5],
		Size:      int64(100 + i%5000),
		Referer:   "http://www.example.com/start.html",
		UserAgent: agents[i%len(agents)],
	}
}

// eventSetup drops the log, creates it as a time series collection when
// timeseries=true, preloads events spread over the last 30 days and
// creates the seed's indexes (on a time series log, {host: 1, time: 1}).
func eventSetup(ctx context.Context, db *mongo.Database, p sim.Params, progress sim.Progress) error {
	c := coll(db, p)
	if err := drop(ctx, c, p); err != nil {
		return err
	}
	l := eventlog.New(c)
	if p.Bool("timeseries", false) {
		var err error
		if l, err = eventlog.NewTimeSeries(ctx, db, c.Name(), eventlog.TimeSeriesOptions{}); err != nil {
			return err
		}
	}
	n := p.Int("preload", 0)
	end := time.Now().UTC()
	span := logDays * 24 * time.Hour
	err := preload(ctx, c, n, func(i int) any {
		return event(i, end.Add(-span+time.Duration(int64(span)/int64(max(n, 1))*int64(i))))
	}, progress)
	if err != nil {
		return err
	}
	return withIndexes(p, func() error { return l.EnsureIndexes(ctx) })
}

// timeseriesNote ends the description of a scenario that takes the
// timeseries parameter.
const timeseriesNote = " timeseries=true stores the log as a time series collection (timeField time, metaField host)."

func registerInsert(name string, d eventlog.Durability, what string, ts bool) {
	desc := "Event logging with the seed's indexes. Op: eventlog.Log.Insert of one access-log event with write concern " +
		what + "." + timeseriesNote
	if ts {
		desc = "Event logging into a time series collection (timeField time, metaField host; the server buckets the events " +
			"per host). Op: eventlog.Log.Insert of one access-log event with write concern " + what + "."
	}
	sim.Register(&sim.Scenario{
		Name:        name,
		Seed:        "003",
		Description: desc,
		Defaults:    sim.Params{"collection": "events", "preload": 0, "indexes": true, "timeseries": ts},
		Setup:       eventSetup,
		Bind: func(ctx context.Context, db *mongo.Database, p sim.Params) (sim.Op, error) {
			l := eventlog.New(coll(db, p))
			return func(ctx context.Context) error {
				return l.Insert(ctx, event(rand.IntN(1<<30), time.Now().UTC()), d)
			}, nil
		},
		Teardown: dropTeardown,
	})
}

func init() {
	registerInsert("event_insert_w0", eventlog.W0, "{w: 0} (unacknowledged: latency is the client's send time, errors are never seen)", false)
	registerInsert("event_insert_w1", eventlog.W1, "{w: 1}", false)
	registerInsert("event_insert_j", eventlog.Journaled, "{w: 1, j: true} (acknowledged after the journal sync)", false)
	registerInsert("event_insert_ts", eventlog.W1, "{w: 1}", true)
	sim.Register(&sim.Scenario{
		Name: "events_host_day",
		Seed: "003",
		Description: "The seed's per-host range over `preload` events spread over 30 days. Op: eventlog.Log.ByHostDay, " +
			"find({host: H, time: {$gte: day, $lt: day+1}}).sort({time: 1}) for the host of a random preloaded event and a " +
			"random day, served by the seed's {host: 1, time: 1} (indexes=false leaves it out)." + timeseriesNote,
		Users:    100,
		Defaults: sim.Params{"collection": "events", "preload": 100000, "indexes": true, "timeseries": false},
		Setup:    eventSetup,
		Bind: func(ctx context.Context, db *mongo.Database, p sim.Params) (sim.Op, error) {
			l := eventlog.New(coll(db, p))
			n := max(p.Int("preload", 100000), 1)
			return func(ctx context.Context) error {
				day := time.Now().UTC().AddDate(0, 0, -rand.IntN(logDays))
				_, err := l.ByHostDay(ctx, event(rand.IntN(n), day).Host, day)
				return err
			}, nil
		},
		Teardown: dropTeardown,
	})
	registerHits("hits_per_day", false)
	registerHits("hits_per_day_ts", true)
}

// registerHits registers the seed's report over a plain or a time series
// log.
func registerHits(name string, ts bool) {
	desc := "The seed's report over `preload` events spread over 30 days. Op: eventlog.Log.HitsPerPathPerDay over a random " +
		"`days`-day range: $match on time, $group by path and $year/$month/$dayOfMonth, $sort." + timeseriesNote
	if ts {
		desc = "The seed's report over `preload` events spread over 30 days in a time series collection (timeField time, " +
			"metaField host): the $match on time reads only the buckets of the range, which are unpacked into events for the " +
			"$group. Op: eventlog.Log.HitsPerPathPerDay over a random `days`-day range."
	}
	sim.Register(&sim.Scenario{
		Name:        name,
		Seed:        "003",
		Description: desc,
		Users:       20,
		Defaults:    sim.Params{"collection": "events", "preload": 100000, "days": 7, "indexes": true, "timeseries": ts},
		Setup:       eventSetup,
		Bind: func(ctx context.Context, db *mongo.Database, p sim.Params) (sim.Op, error) {
			l := eventlog.New(coll(db, p))
			days := min(max(p.Int("days", 7), 1), logDays)
			return func(ctx context.Context) error {
				start := time.Now().UTC().AddDate(0, 0, -logDays+rand.IntN(logDays-days+1))
				_, err := l.HitsPerPathPerDay(ctx, start, start.AddDate(0, 0, days))
				return err
			}, nil
		},
		Teardown: dropTeardown,
	})
}
