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
	"github.com/lodedb/lode/internal/storage"
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
//
// Concurrent inserts into one collection are combined, as mongod
// commits concurrent writers' measurements together: each command
// queues itself on the buckets collection, and whichever takes the
// writer lock routes every queued command's measurements and writes each
// bucket they touched once, in one batch (with every retryable command's
// session record); a command found done when it gets the lock returns
// its result.
func (e *Engine) InsertTimeseries(ctx context.Context, db, coll string, docs []bsoncore.Document, opts WriteOptions) (InsertResult, error) {
	e.db.BeginWrite(opts.Journal) // the durability wait gathers the commits of others (storage/sync.go)
	defer e.db.EndWrite(opts.Journal)
	if err := e.checkOpen(); err != nil {
		return InsertResult{}, err
	}
	if TxnFrom(ctx) != nil {
		return InsertResult{}, errs.New(errs.OperationNotSupportedInTransaction, "Cannot insert into a time-series collection in a multi-document transaction: %s.%s", db, coll)
	}
	buckets := timeseries.BucketsName(coll)
	req := &tsInsert{ctx: ctx, docs: docs, opts: opts}
	if c0 := e.cat.Load().lookup(db, buckets); c0 != nil {
		req.state = c0.state
		c0.state.tsMu.Lock()
		c0.state.tsPending = append(c0.state.tsPending, req)
		c0.state.tsMu.Unlock()
	}
	c, err := e.lockCollCtx(ctx, db, buckets, false)
	if err != nil || c == nil {
		if req.state != nil && req.withdraw() {
			return req.result(ctx, e)
		}
		if err == nil {
			err = errs.New(errs.NamespaceNotFound, "Time-series buckets collection %s.%s does not exist", db, buckets)
		}
		return InsertResult{}, err
	}
	c.state.tsMu.Lock()
	if req.done {
		c.state.tsMu.Unlock()
		c.state.mu.Unlock()
		return req.result(ctx, e)
	}
	batch := c.state.tsPending
	c.state.tsPending = nil
	c.state.tsMu.Unlock()
	if req.state != c.state {
		batch = append(batch, req) // queued on a collection since dropped
	}
	e.insertTimeseriesLocked(ctx, c, coll, batch)
	c.state.mu.Unlock()
	return req.result(ctx, e)
}

// tsInsert is one insert command waiting to be routed (InsertTimeseries).
type tsInsert struct {
	ctx   context.Context
	docs  []bsoncore.Document
	opts  WriteOptions
	state *collState // the queue it is on (nil: none)
	// Set under state.tsMu by the command that ran it.
	done    bool
	res     InsertResult
	err     error
	lastSeq uint64
}

// withdraw takes r off its queue unless it already ran; it reports
// whether it ran.
func (r *tsInsert) withdraw() bool {
	st := r.state
	st.tsMu.Lock()
	defer st.tsMu.Unlock()
	if r.done {
		return true
	}
	for i, x := range st.tsPending {
		if x == r {
			st.tsPending = append(st.tsPending[:i], st.tsPending[i+1:]...)
			break
		}
	}
	return false
}

// result returns r's outcome once it is durable as its write concern
// asks.
func (r *tsInsert) result(ctx context.Context, e *Engine) (InsertResult, error) {
	if r.err != nil {
		return InsertResult{}, r.err
	}
	if err := e.waitDurable(ctx, r.lastSeq, r.opts.Journal); err != nil {
		return r.res, err
	}
	return r.res, nil
}

// multiRec is the statement recorder of a batch that runs several
// commands: Begin and Change go to the command being routed, Stage and
// Done to every one (each session's record is written with the batch).
type multiRec struct {
	all []StmtRecorder
	cur StmtRecorder
}

func (m *multiRec) Begin(i int) bool {
	return m.cur != nil && m.cur.Begin(i)
}

func (m *multiRec) Change(op byte, pre, post bsoncore.Document) {
	if m.cur != nil {
		m.cur.Change(op, pre, post)
	}
}

func (m *multiRec) Stage(b *storage.Batch) error {
	for _, r := range m.all {
		if err := r.Stage(b); err != nil {
			return err
		}
	}
	return nil
}

func (m *multiRec) Done(committed bool) {
	for _, r := range m.all {
		r.Done(committed)
	}
}

// insertTimeseriesLocked routes the measurements of the commands in
// batch and writes the buckets they touched in one write batch, setting
// each command's outcome. The caller holds c's writer lock.
func (e *Engine) insertTimeseriesLocked(ctx context.Context, c *collection, coll string, batch []*tsInsert) {
	finish := func(err error, seq uint64) {
		c.state.tsMu.Lock()
		for _, r := range batch {
			if err != nil {
				r.err = err
			}
			r.lastSeq, r.done = seq, true
		}
		c.state.tsMu.Unlock()
	}
	o := timeseriesOf(c)
	if o == nil {
		finish(errs.New(errs.NamespaceNotFound, "%s.%s is not a time-series collection", c.DB, coll), 0)
		return
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
	mr := &multiRec{}
	for _, r := range batch {
		if rec := recorderFrom(r.ctx); rec != nil {
			mr.all = append(mr.all, rec)
		}
	}
	t.rec = nil
	if len(mr.all) > 0 {
		t.rec = mr
	}
	var (
		touched []*timeseries.Bucket
		closed  []*timeseries.Bucket
		total   int
	)
	for _, r := range batch {
		mr.cur = recorderFrom(r.ctx)
		r.res = InsertResult{}
		for i, doc := range r.docs {
			if err := r.ctx.Err(); err != nil {
				break
			}
			if mr.cur != nil && mr.cur.Begin(i) {
				continue // ran in an earlier attempt of this retryable write
			}
			prepared, werr := prepareInsert(doc, r.opts.docChecks())
			var m timeseries.Measurement
			if werr == nil {
				var err error
				if m, err = timeseries.Read(o, prepared); err != nil {
					werr = errs.As(err)
				}
			}
			if werr != nil {
				r.res.WriteErrors = append(r.res.WriteErrors, WriteError{Index: i, Err: werr})
				if r.opts.Ordered {
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
			// A retryable write notes the measurement as its
			// statement's change; the bucket writes carry it.
			if mr.cur != nil {
				mr.cur.Change('i', nil, prepared)
			}
			r.res.N++
		}
		total += r.res.N
	}
	mr.cur = nil
	closed = cat.Expire(closed)
	err := e.writeBuckets(t, touched, closed)
	if err == nil {
		err = t.commit()
	}
	t.abort()
	if err != nil {
		cat.Clear()
		finish(err, 0)
		return
	}
	if total > 0 {
		cat.Stats.Commits.Add(1)
		cat.Stats.MeasurementsCommitted.Add(int64(total))
	}
	if len(batch) > 1 {
		cat.Stats.Waits.Add(int64(len(batch) - 1))
	}
	finish(nil, t.lastSeq)
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
