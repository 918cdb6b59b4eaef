// Package eventlog stores web-server access events in a collection, the
// "storing log data" pattern of seed 003: one typed document per request,
//
//	{_id: ObjectId, host: "127.0.0.1", time: ISODate(...), path: "/apache_pb.gif",
//	 referer: "...", user_agent: "...", status: 200, response_size: 2326, ...}
//
// written with the write concern the application can afford (Durability:
// w:0 fire-and-forget, w:1 acknowledged, or journaled j:true), singly or in
// bulk, ordered or unordered (the modern form of the seed's
// continue_on_error: every document that can be inserted is, and every
// failure is reported, not only the last one).
//
// EnsureIndexes creates the indexes the seed recommends for its queries:
// {path: 1} for ByPath, {time: 1} for ByDay and {host: 1, time: 1} for
// ByHostDay (equality first, then range: the seed's explain shows it scans
// 11 keys for 11 documents where {time: 1, host: 1} scans 1,296).
// HitsPerPathPerDay is the seed's aggregation: $match on a time range,
// $project of year/month/day, $group counting hits per path and day.
//
// Sharding: the seed suggests path (or time) as the shard key so that a
// path's events group on one shard; {path: 1, time: 1} (or a hashed _id when
// insert throughput matters more than query locality) is the usual choice.
// A monotonically increasing key such as time alone sends every insert to
// one shard.
//
// Time series mode: seed 001's tip, "time series collections apply the
// bucket pattern automatically", applies to these events. NewTimeSeries
// creates the log as a time series collection with time as its timeField
// and host as its metaField: the server keeps one bucket document per host
// and span of time, with its columns compressed, and a query on a time
// range or a host reads only the buckets that can match. Inserts and every
// query above are unchanged; EnsureIndexes then asks for {host: 1, time: 1}
// only (a time range is served by the buckets' own bounds, and a path is a
// measurement, which is found by unpacking the buckets of the range).
package eventlog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// Durability is the write concern of inserts.
type Durability int

// Durability levels.
const (
	W1        Durability = iota // w:1, acknowledged (the default)
	W0                          // w:0, unacknowledged: fastest, errors are never seen
	Journaled                   // w:1, j:true: acknowledged after the journal is on disk
)

func (d Durability) concern() *writeconcern.WriteConcern {
	switch d {
	case W0:
		return writeconcern.Unacknowledged()
	case Journaled:
		return writeconcern.Journaled()
	default:
		return writeconcern.W1()
	}
}

// String returns "w0", "w1" or "j".
func (d Durability) String() string {
	return [...]string{"w1", "w0", "j"}[d]
}

// Log is an event log in one collection.
type Log struct {
	coll *mongo.Collection
	ts   bool // a time series collection (NewTimeSeries)
}

// TimeSeriesOptions are the settings of a time series log.
type TimeSeriesOptions struct {
	// Granularity is "seconds" (the default), "minutes" or "hours": the
	// expected interval between one host's events, which sets how much
	// time one bucket spans (one hour, one day, thirty days).
	Granularity string
	// ExpireAfter, when positive, has the server delete events this much
	// older than now (whole buckets, once their newest event has
	// expired), the log's retention.
	ExpireAfter time.Duration
}

// TimeField and MetaField are a time series log's fields: each event's
// time, and its host, by which the server groups events into buckets.
const (
	TimeField = "time"
	MetaField = "host"
)

// NewTimeSeries creates the time series collection name in db, with time
// as its timeField and host as its metaField, and returns its Log. A time
// series collection of that name is reused as it is; a plain collection
// of that name is an error (the two cannot be converted into each other
// in place: copy the events with InsertMany instead).
func NewTimeSeries(ctx context.Context, db *mongo.Database, name string, o TimeSeriesOptions) (*Log, error) {
	ts := options.TimeSeries().SetTimeField(TimeField).SetMetaField(MetaField)
	if o.Granularity != "" {
		ts.SetGranularity(o.Granularity)
	}
	co := options.CreateCollection().SetTimeSeriesOptions(ts)
	if o.ExpireAfter > 0 {
		co.SetExpireAfterSeconds(int64(o.ExpireAfter / time.Second))
	}
	err := db.CreateCollection(ctx, name, co)
	var ce mongo.CommandError
	if errors.As(err, &ce) && ce.Code == 48 { // NamespaceExists
		specs, lerr := db.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: name}})
		if lerr != nil {
			return nil, fmt.Errorf("eventlog: %s exists: %w", name, lerr)
		}
		if len(specs) != 1 || specs[0].Type != "timeseries" {
			return nil, fmt.Errorf("eventlog: %s exists and is not a time series collection", name)
		}
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("eventlog: create time series %s: %w", name, err)
	}
	return &Log{coll: db.Collection(name), ts: true}, nil
}

// TimeSeries reports whether the log is a time series collection.
func (l *Log) TimeSeries() bool { return l.ts }

// New returns a Log on coll.
func New(coll *mongo.Collection) *Log { return &Log{coll: coll} }

// Collection returns the events collection.
func (l *Log) Collection() *mongo.Collection { return l.coll }

// EnsureIndexes creates {path: 1}, {time: 1} and {host: 1, time: 1}; on a
// time series log, {host: 1, time: 1} only (the package comment says why).
func (l *Log) EnsureIndexes(ctx context.Context) error {
	models := []mongo.IndexModel{
		{Keys: bson.D{{Key: "path", Value: 1}}},
		{Keys: bson.D{{Key: "time", Value: 1}}},
		{Keys: bson.D{{Key: "host", Value: 1}, {Key: "time", Value: 1}}},
	}
	if l.ts {
		models = models[2:]
	}
	_, err := l.coll.Indexes().CreateMany(ctx, models)
	if err != nil {
		return fmt.Errorf("eventlog: create indexes: %w", err)
	}
	return nil
}

func (l *Log) with(d Durability) *mongo.Collection {
	return l.coll.Clone(options.Collection().SetWriteConcern(d.concern()))
}

// Insert stores one event.
func (l *Log) Insert(ctx context.Context, e Event, d Durability) error {
	if _, err := l.with(d).InsertOne(ctx, e); err != nil {
		return fmt.Errorf("eventlog: insert: %w", err)
	}
	return nil
}

// InsertMany stores events in bulk. Ordered stops at the first failure;
// unordered inserts all it can. It returns how many were acknowledged as
// inserted (len(docs) for w:0, where nothing is known) and, on failure, a
// mongo.BulkWriteException listing every failed index.
func (l *Log) InsertMany(ctx context.Context, docs []any, d Durability, ordered bool) (int, error) {
	if len(docs) == 0 {
		return 0, nil
	}
	r, err := l.with(d).InsertMany(ctx, docs, options.InsertMany().SetOrdered(ordered))
	n := 0
	if r != nil {
		n = len(r.InsertedIDs)
	}
	var bwe mongo.BulkWriteException
	if errors.As(err, &bwe) {
		n = len(docs) - len(bwe.WriteErrors)
		if ordered && len(bwe.WriteErrors) > 0 {
			n = bwe.WriteErrors[0].Index
		}
	}
	if err != nil {
		return n, fmt.Errorf("eventlog: insert %d events: %w", len(docs), err)
	}
	if d == W0 {
		n = len(docs)
	}
	return n, nil
}

// Events converts events to the documents InsertMany takes.
func Events(es []Event) []any {
	out := make([]any, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

func dayRange(day time.Time) bson.D {
	y, m, d := day.UTC().Date()
	from := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	return bson.D{{Key: "$gte", Value: from}, {Key: "$lt", Value: from.AddDate(0, 0, 1)}}
}

func (l *Log) find(ctx context.Context, filter bson.D) ([]Event, error) {
	cur, err := l.coll.Find(ctx, filter, options.Find().SetSort(bson.D{{Key: "time", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("eventlog: find: %w", err)
	}
	var out []Event
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("eventlog: find: %w", err)
	}
	return out, nil
}

// ByPath returns the events for path: find({path: p}).
func (l *Log) ByPath(ctx context.Context, path string) ([]Event, error) {
	return l.find(ctx, bson.D{{Key: "path", Value: path}})
}

// ByDay returns the events of the UTC day containing day:
// find({time: {$gte: day, $lt: day+1}}).
func (l *Log) ByDay(ctx context.Context, day time.Time) ([]Event, error) {
	return l.find(ctx, bson.D{{Key: "time", Value: dayRange(day)}})
}

// ByHostDay returns the events of host on the UTC day containing day.
func (l *Log) ByHostDay(ctx context.Context, host string, day time.Time) ([]Event, error) {
	return l.find(ctx, bson.D{{Key: "host", Value: host}, {Key: "time", Value: dayRange(day)}})
}

// Hits is one row of HitsPerPathPerDay.
type Hits struct {
	Path  string
	Year  int
	Month int
	Day   int
	Hits  int64
}

// HitsPerPathPerDay counts events per path and UTC day with from <= time
// < to, the seed's pipeline. Rows are sorted by path, then date.
func (l *Log) HitsPerPathPerDay(ctx context.Context, from, to time.Time) ([]Hits, error) {
	pipeline := mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "time", Value: bson.D{{Key: "$gte", Value: from}, {Key: "$lt", Value: to}}}}}},
		{{Key: "$project", Value: bson.D{
			{Key: "path", Value: 1},
			{Key: "date", Value: bson.D{
				{Key: "y", Value: bson.D{{Key: "$year", Value: "$time"}}},
				{Key: "m", Value: bson.D{{Key: "$month", Value: "$time"}}},
				{Key: "d", Value: bson.D{{Key: "$dayOfMonth", Value: "$time"}}},
			}},
		}}},
		{{Key: "$group", Value: bson.D{
			{Key: "_id", Value: bson.D{{Key: "p", Value: "$path"}, {Key: "y", Value: "$date.y"}, {Key: "m", Value: "$date.m"}, {Key: "d", Value: "$date.d"}}},
			{Key: "hits", Value: bson.D{{Key: "$sum", Value: 1}}},
		}}},
		{{Key: "$sort", Value: bson.D{{Key: "_id.p", Value: 1}, {Key: "_id.y", Value: 1}, {Key: "_id.m", Value: 1}, {Key: "_id.d", Value: 1}}}},
	}
	cur, err := l.coll.Aggregate(ctx, pipeline)
	if err != nil {
		return nil, fmt.Errorf("eventlog: hits per path per day: %w", err)
	}
	var rows []struct {
		ID struct {
			P string `bson:"p"`
			Y int    `bson:"y"`
			M int    `bson:"m"`
			D int    `bson:"d"`
		} `bson:"_id"`
		Hits int64 `bson:"hits"`
	}
	if err := cur.All(ctx, &rows); err != nil {
		return nil, fmt.Errorf("eventlog: hits per path per day: %w", err)
	}
	out := make([]Hits, len(rows))
	for i, r := range rows {
		out[i] = Hits{Path: r.ID.P, Year: r.ID.Y, Month: r.ID.M, Day: r.ID.D, Hits: r.Hits}
	}
	return out, nil
}
