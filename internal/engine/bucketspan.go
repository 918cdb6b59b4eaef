package engine

import (
	"context"
	"encoding/binary"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The widest bucket of a time series collection.
//
// A query on a time range finds its buckets by their _id, whose time is
// the bucket's rounded start, and by control.min/control.max of the time
// field. mongod widens those bounds by bucketMaxSpanSeconds, the most a
// bucket may span: with granularity "minutes" that is a day, so a query
// for one day also reads the buckets that started the day before and
// ended before the range. Lode keeps, per buckets collection, the widest
// span any bucket written into it has had (control.max of the time field
// less the earlier of the _id's time and control.min), raised whenever a
// write stores a wider one, by any path: a time series insert, a direct
// write into system.buckets (mongorestore), an update. The query
// rewrite ($_internalUnpackBucket's, in internal/agg) widens its bounds
// by that instead: buckets are usually far shorter than their limit.
//
// The span only grows. It is raised in memory when a write stages the
// bucket, before that write commits, and stored in the collection's
// catalog entry in the same batch (under the collection's writer lock,
// like every change of the entry); a write whose bucket is wider than
// what the entry holds writes the entry again, so that a raise whose
// commit failed cannot leave a later bucket uncovered after a restart. A query that reads it before its
// snapshot is taken can miss only a bucket committed in between, a
// write concurrent with the query; transactions, whose snapshot may
// predate the read, use bucketMaxSpanSeconds (BucketSpan). A catalog
// entry written before the span was kept has none: unknown (-1), and
// queries widen by bucketMaxSpanSeconds as mongod.

// bucketSpanKey is the catalog entry's field holding the span.
const bucketSpanKey = "bucketSpanMillis"

// tsTimeFieldOf returns the time field of a buckets collection's
// options, "" for any other collection.
func tsTimeFieldOf(options bsoncore.Document) string {
	if len(options) <= 5 {
		return ""
	}
	f, _ := options.Lookup("timeseries", "timeField").StringValueOK()
	return f
}

// decodeBucketSpan reads the span of a catalog entry: -1 (unknown) when
// it has none.
func decodeBucketSpan(entry bsoncore.Document) int64 {
	if v, ok := entry.Lookup(bucketSpanKey).Int64OK(); ok {
		return v
	}
	return -1
}

// noteBucketSpan raises the collection's span to that of bucket doc,
// which the batch is about to store. A bucket without an ObjectId _id
// or dates in control.min and control.max of the time field makes the
// span unknown for good.
func (t *writeBatch) noteBucketSpan(doc bsoncore.Document) {
	st := t.c.state
	cur := st.tsSpan.Load()
	if cur < 0 {
		return
	}
	span := int64(-1)
	id, okID := doc.Lookup("_id").ObjectIDOK()
	ctl, okCtl := doc.Lookup("control").DocumentOK()
	if okID && okCtl {
		lo, okLo := ctl.Lookup("min", t.c.tsTime).DateTimeOK()
		hi, okHi := ctl.Lookup("max", t.c.tsTime).DateTimeOK()
		if okLo && okHi {
			start := min(int64(binary.BigEndian.Uint32(id[:4]))*1000, lo)
			span = max(hi-start, 0)
		}
	}
	if span < 0 || span > cur {
		st.tsSpan.Store(span)
	}
	// The catalog entry must cover it too: a raise whose commit failed
	// left tsSpan above what the entry holds.
	if span < 0 || span > st.tsSpanStored.Load() {
		t.spanDirty = true
	}
}

// spanToStore returns the span the catalog entry written by the batch
// about to commit holds (-2 when the entry is not written or the
// collection is not a buckets collection); spanStored records it once
// the commit succeeded.
func (t *writeBatch) spanToStore() int64 {
	if t.c.tsTime == "" || !(t.metaDirty || t.spanDirty) {
		return -2
	}
	return t.c.state.tsSpan.Load()
}

func (t *writeBatch) spanStored(v int64) {
	if v != -2 {
		t.c.state.tsSpanStored.Store(v)
	}
}

// BucketSpan returns the widest span, in milliseconds, of any bucket
// written into buckets collection db.coll whose time field is
// timeField, for a query that reads it under ctx; ok is false when it
// is unknown, when db.coll is not such a collection, and inside a
// transaction (whose snapshot may be older than the span): widen by
// bucketMaxSpanSeconds then.
func (e *Engine) BucketSpan(ctx context.Context, db, coll, timeField string) (span int64, ok bool) {
	c := e.cat.Load().lookup(db, coll)
	if c == nil || c.tsTime == "" || c.tsTime != timeField || TxnFrom(ctx) != nil {
		return 0, false
	}
	span = c.state.tsSpan.Load()
	return span, span >= 0
}
