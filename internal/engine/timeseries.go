package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/indexkey"
	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/timeseries"
)

// Time series collections, as mongod 7.0 has them: the user's namespace
// is a view (system.views) on the clustered collection
// system.buckets.<name>, whose options hold the time series options
// (options.timeseries). Inserts into the view come here
// (InsertTimeseries): each measurement is routed by the buckets
// collection's bucket catalog (internal/timeseries, kept in collState
// and used under the writer lock) into an open bucket of its meta value,
// and every bucket the command touched is written once, at the end, in
// the command's one batch: a new bucket as an insert, a bucket already
// stored as an update of its record (logged as a diff). A bucket that
// leaves the catalog (rolled over, or expired from memory) is written in
// its final form through compressBucket.

// compressBucket turns a closed bucket into the form it is stored in for
// good (tscompress.go: mongod 7.0's version 2).
var compressBucket = func(bucket []byte, timeField string) ([]byte, error) { return bucket, nil }

// TimeseriesOptions returns the time series options of buckets collection
// db.coll (nil when it is not one).
func (e *Engine) TimeseriesOptions(db, coll string) *timeseries.Options {
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return nil
	}
	return timeseriesOf(c)
}

// timeseriesOf reads c's time series options (nil: not a buckets
// collection).
func timeseriesOf(c *collection) *timeseries.Options {
	if len(c.Options) <= 5 {
		return nil
	}
	d, ok := c.Options.Lookup("timeseries").DocumentOK()
	if !ok {
		return nil
	}
	return timeseries.FromStored(d)
}

// InsertTimeseries inserts measurements into the time series collection
// db.coll (its buckets collection db.system.buckets.coll). Each
// measurement is a statement: a measurement without a date in the time
// field is a write error, and ordered stops there; measurements before
// it are inserted.
func (e *Engine) InsertTimeseries(ctx context.Context, db, coll string, docs []bsoncore.Document, opts WriteOptions) (InsertResult, error) {
	var res InsertResult
	if err := e.checkOpen(); err != nil {
		return res, err
	}
	if TxnFrom(ctx) != nil {
		return res, errs.New(errs.OperationNotSupportedInTransaction, "Cannot insert into a time-series collection in a multi-document transaction: %s.%s", db, coll)
	}
	c, err := e.lockCollCtx(ctx, db, timeseries.BucketsName(coll), false)
	if err != nil {
		return res, err
	}
	if c == nil {
		return res, errs.New(errs.NamespaceNotFound, "Time-series buckets collection %s.%s does not exist", db, timeseries.BucketsName(coll))
	}
	defer c.state.mu.Unlock()
	o := timeseriesOf(c)
	if o == nil {
		return res, errs.New(errs.NamespaceNotFound, "%s.%s is not a time-series collection", db, coll)
	}
	if c.state.ts == nil {
		c.state.ts = timeseries.NewCatalog()
	}
	cat := c.state.ts
	// A series the catalog does not hold may go on in a stored bucket
	// (after a restart): mongod 7.0 reopens it.
	cat.Reopen = func(meta []byte, tm int64) (bsoncore.Document, uint64) {
		return e.reopenableBucket(ctx, c, o, meta, tm)
	}
	defer func() { cat.Reopen = nil }()
	t := e.newWriteBatchCtx(ctx, c)
	t.tsInsert = true
	var (
		touched []*timeseries.Bucket
		closed  []*timeseries.Bucket
	)
	for i, doc := range docs {
		if err := ctx.Err(); err != nil {
			break
		}
		if t.rec != nil && t.rec.Begin(i) {
			continue // ran in an earlier attempt of this retryable write
		}
		prepared, werr := prepareInsert(doc, nil, !opts.ShallowDocs)
		var m timeseries.Measurement
		if werr == nil {
			var err error
			if m, err = timeseries.Read(o, prepared); err != nil {
				werr = errs.As(err)
			}
		}
		if werr != nil {
			res.WriteErrors = append(res.WriteErrors, WriteError{Index: i, Err: werr})
			if opts.Ordered {
				break
			}
			continue
		}
		var b *timeseries.Bucket
		b, closed = cat.Add(o, m, closed)
		if !b.Touched() {
			b.SetTouched(true)
			touched = append(touched, b)
		}
		// A retryable write notes the measurement as its statement's
		// change; the bucket writes carry it.
		if t.rec != nil {
			t.rec.Change('i', nil, prepared)
		}
		res.N++
	}
	closed = cat.Expire(closed)
	err = e.writeBuckets(t, touched, closed)
	if err == nil {
		err = t.commit()
	}
	t.abort()
	if err != nil {
		cat.Clear()
		return InsertResult{}, err
	}
	if res.N > 0 {
		cat.Stats.Commits.Add(1)
		cat.Stats.MeasurementsCommitted.Add(int64(res.N))
	}
	if err := e.waitDurable(ctx, t.lastSeq, opts.Journal); err != nil {
		return res, err
	}
	return res, nil
}

// writeBuckets stages the buckets of one command: the closed ones in
// their final form, then the open ones it touched.
func (e *Engine) writeBuckets(t *writeBatch, touched, closed []*timeseries.Bucket) error {
	st := &t.c.state.ts.Stats
	isClosed := make(map[*timeseries.Bucket]bool, len(closed))
	timeField := ""
	if o := timeseriesOf(t.c); o != nil {
		timeField = o.TimeField
	}
	for _, b := range closed {
		isClosed[b] = true
		doc := b.Document(nil)
		final, err := compressBucket(doc, timeField)
		if err != nil {
			return err
		}
		if !b.Dirty() && bytes.Equal(final, b.Written) {
			continue
		}
		if err := e.writeBucket(t, b, final, st); err != nil {
			return err
		}
	}
	for _, b := range touched {
		b.SetTouched(false)
		if isClosed[b] || !b.Dirty() {
			continue
		}
		if err := e.writeBucket(t, b, b.Document(nil), st); err != nil {
			return err
		}
	}
	return nil
}

// writeBucket stores doc as bucket b's new version.
func (e *Engine) writeBucket(t *writeBatch, b *timeseries.Bucket, doc bsoncore.Document, st *timeseries.Stats) error {
	if b.Written == nil {
		st.BucketInserts.Add(1)
		rid, err := t.insert(doc)
		if err != nil {
			var me *errs.Error
			if errors.As(err, &me) {
				return errs.New(me.Code, "time-series bucket insert failed: %s", me.Msg)
			}
			return err
		}
		b.MarkWritten(doc, rid)
		return nil
	}
	st.BucketUpdates.Add(1)
	if e.logged(t.c) && !b.Compressed(doc) {
		t.diffO = b.UpdateDiff()
	}
	err := t.update(b.RID, b.Written, doc, false)
	t.diffO = nil
	if err != nil {
		return err
	}
	b.MarkWritten(doc, b.RID)
	return nil
}

// CollectionOptions returns the stored create options of db.coll: an
// empty document for a collection without any, nil when it does not
// exist.
func (e *Engine) CollectionOptions(db, coll string) bsoncore.Document {
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return nil
	}
	if len(c.Options) == 0 {
		return emptyDoc
	}
	return c.Options
}

// bucketsTTLRange is the range of bucket _ids a time series collection's
// expireAfterSeconds removes, as mongod 7.0's TTL monitor: the buckets
// whose _id time (their rounded start) is more than bucketMaxSpanSeconds
// before cutoff, so that every measurement they hold is expired.
func bucketsTTLRange(o *timeseries.Options, cutoff time.Time) (lo, hi []byte) {
	end := cutoff.Add(-time.Duration(o.MaxSpan) * time.Second).Unix()
	if end < 0 {
		end = 0
	}
	var loID, hiID bson.ObjectID
	binary.BigEndian.PutUint32(hiID[0:4], uint32(end))
	v := func(id bson.ObjectID) bsoncore.Value {
		return bsoncore.Value{Type: bsoncore.TypeObjectID, Data: bsoncore.AppendObjectID(nil, id)}
	}
	return keystring.Interval(nil, v(loID), v(hiID), true, false, false)
}

// SetTimeseriesOptions replaces the time series options of buckets
// collection db.coll (collMod's timeseries.granularity). Open buckets are
// forgotten: new measurements go into buckets under the new parameters.
func (e *Engine) SetTimeseriesOptions(db, coll string, o *timeseries.Options) error {
	c, err := e.lockCollForCollMod(db, coll)
	if err != nil {
		return err
	}
	defer c.state.mu.Unlock()
	if timeseriesOf(c) == nil {
		return errs.New(errs.InvalidOptions, "%s is not a time-series buckets collection", c.NS())
	}
	b := bsoncore.NewDocumentBuilder()
	if els, err := c.Options.Elements(); err == nil {
		for _, el := range els {
			if el.Key() == "timeseries" {
				b.AppendDocument("timeseries", o.Document())
			} else {
				b.AppendValue(el.Key(), el.Value())
			}
		}
	}
	n := c.copyMeta()
	n.Options = b.Build()
	if c.state.ts != nil {
		c.state.ts.Clear()
	}
	return e.commitCollMod(c, n, cmdDoc("collMod", c.Name, "timeseries", o.Document()))
}

// TimeseriesStats returns the bucket catalog figures of buckets
// collection db.coll (nil before its first insert since the start).
func (e *Engine) TimeseriesStats(db, coll string) *timeseries.Stats {
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return nil
	}
	c.state.mu.Lock()
	defer c.state.mu.Unlock()
	if c.state.ts == nil {
		return nil
	}
	return &c.state.ts.Stats
}

// forgetBucket takes the bucket doc (its stored version) out of the
// collection's bucket catalog when a write other than a time series
// insert changes or removes it (a meta update, a delete, TTL, a direct
// write): the catalog would otherwise write over the change. The caller
// holds the collection's writer lock.
func (t *writeBatch) forgetBucket(doc bsoncore.Document) {
	cat := t.c.state.ts
	if cat == nil || t.tsInsert {
		return
	}
	id, ok := doc.Lookup("_id").ObjectIDOK()
	if !ok {
		return
	}
	cat.Forget(id)
}

// reopenableBucket finds a stored version-1 bucket of buckets collection
// c with meta element meta (nil: none) whose time range holds tm, and
// returns it with its record id (nil when there is none). The caller
// holds c's writer lock; the read goes through the ordinary find, which
// the default meta and time index serves.
func (e *Engine) reopenableBucket(ctx context.Context, c *collection, o *timeseries.Options, meta []byte, tm int64) (bsoncore.Document, uint64) {
	f := bsoncore.NewDocumentBuilder()
	if meta != nil {
		idx, b := bsoncore.AppendDocumentStart(nil)
		b = append(b, meta...)
		d, _ := bsoncore.AppendDocumentEnd(b, idx)
		f.AppendValue("meta", bsoncore.Document(d).Lookup("meta"))
	} else {
		f.AppendDocument("meta", bsoncore.NewDocumentBuilder().AppendBoolean("$exists", false).Build())
	}
	f.AppendInt32("control.version", 1)
	f.AppendDocument("control.min."+o.TimeField, bsoncore.NewDocumentBuilder().
		AppendDateTime("$lte", tm).AppendDateTime("$gt", tm-o.MaxSpan*1000).Build())
	it, err := e.Find(ctx, c.DB, c.Name, FindSpec{Filter: f.Build(), Limit: 1})
	if err != nil {
		return nil, 0
	}
	defer it.Close()
	doc, err := it.Next()
	if err != nil || doc == nil {
		return nil, 0
	}
	doc = append(bsoncore.Document(nil), doc...)
	// The meta value exactly (a query's equality also matches an array
	// holding the value).
	el, err := doc.LookupErr("meta")
	if (meta == nil) != (err != nil) {
		return nil, 0
	}
	if meta != nil && !bytes.Equal(bsoncore.AppendValueElement(nil, "meta", el), meta) {
		return nil, 0
	}
	var g indexkey.Generator
	ck, err := clusterKeyOf(&g, c, doc, nil)
	if err != nil {
		return nil, 0
	}
	stored, rid, found, err := getRecordRef(e.db.Reader(), c, 0, ck, nil)
	if err != nil || !found || !bytes.Equal(stored, doc) {
		return nil, 0
	}
	return doc, rid
}

// decompressBucket turns a stored bucket of another version back into
// version 1 for a write that rewrites measurements (tscompress.go).
var decompressBucket = func(bucket []byte) ([]byte, error) { return bucket, nil }

// DeleteTimeseries deletes the measurements of time series collection
// db.coll that match filter (only the first with one), as mongod 7.0's
// arbitrary deletes: each bucket's measurements are tested one by one; a
// bucket left empty is removed, another rewritten without them. It
// returns how many measurements it deleted. The buckets collection's
// writer lock is held throughout, so the bucket catalog sees the change
// (the buckets rewritten leave it).
func (e *Engine) DeleteTimeseries(ctx context.Context, db, coll string, filter bsoncore.Document, one bool, opts WriteOptions) (int, error) {
	if err := e.checkOpen(); err != nil {
		return 0, err
	}
	f, err := query.Parse(filter)
	if err != nil {
		return 0, err
	}
	c, err := e.lockCollCtx(ctx, db, timeseries.BucketsName(coll), false)
	if err != nil || c == nil {
		return 0, err
	}
	defer c.state.mu.Unlock()
	o := timeseriesOf(c)
	if o == nil {
		return 0, errs.New(errs.NamespaceNotFound, "%s.%s is not a time-series collection", db, coll)
	}
	cur, err := openRecords(e.db.Reader(), c)
	if err != nil {
		return 0, err
	}
	defer cur.Close()
	t := e.newWriteBatchCtx(ctx, c)
	defer t.abort()
	n := 0
	for rid, raw, ok := cur.Next(); ok; rid, raw, ok = cur.Next() {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		doc := append(bsoncore.Document(nil), raw...)
		v1, err := decompressBucket(doc)
		if err != nil {
			return n, err
		}
		ms, ok := timeseries.Measurements(o, v1)
		if !ok {
			return n, errs.New(errs.NotImplemented, "a delete by measurement fields cannot read bucket %s of %s.%s: its version is not supported by Lode", doc.Lookup("_id"), db, coll)
		}
		keep := ms[:0:0]
		removed := 0
		for _, m := range ms {
			if (!one || n+removed == 0) && f.Match(m) {
				removed++
				continue
			}
			keep = append(keep, m)
		}
		if removed == 0 {
			continue
		}
		n += removed
		if len(keep) == 0 {
			err = t.remove(uint64(rid), doc)
		} else {
			err = t.update(uint64(rid), doc, timeseries.Rebuild(o, v1, keep), false)
		}
		if err != nil {
			return n, err
		}
		if one {
			break
		}
		if t.full() {
			if err := t.commit(); err != nil {
				return n, err
			}
		}
	}
	if err := cur.Err(); err != nil {
		return n, err
	}
	if err := t.commit(); err != nil {
		return n, err
	}
	return n, e.waitDurable(ctx, t.lastSeq, opts.Journal)
}
