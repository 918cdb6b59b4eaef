package server

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
)

// QueryStatsFlushInterval is how often changed query statistics are
// written to local.system.lode.queryStats (engine.QueryStatsColl), besides
// the flush of a clean shutdown.
const QueryStatsFlushInterval = 60 * time.Second

// runQueryStatsFlusher flushes the query statistics every
// QueryStatsFlushInterval until the server stops.
func (s *Server) runQueryStatsFlusher() {
	defer s.wg.Done()
	t := time.NewTicker(QueryStatsFlushInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		s.flushQueryStats()
	}
}

// flushQueryStats replaces the stored query statistics by the store's
// when they changed since the last flush: at most
// QueryStatsCacheSize documents, one per shape, each a $queryStats result
// with _id the shape's hash. The index access counters ($indexStats) are
// saved with them, one document per index (_id "indexAccess:" and the
// index id, see indexAccessDoc), when some count changed or
// indexAccessSaveInterval passed since they were last saved, so that a
// stopped data directory still tells which indexes were used, since when
// and over how much running time (lode advise --dir).
func (s *Server) flushQueryStats() {
	q := s.obs.qs
	idx := s.eng.IndexAccessSnapshot()
	var idxOps int64
	for _, a := range idx {
		idxOps += a.Ops
	}
	now := time.Now()
	q.mu.Lock()
	idxDue := idxOps != q.idxOps || now.Sub(q.idxSaved) >= indexAccessSaveInterval
	if !q.dirty && !idxDue {
		q.mu.Unlock()
		return
	}
	q.dirty = false
	out := make([]bsoncore.Document, 0, q.lru.Len()+len(idx))
	// Least recently seen first, so that loading in order rebuilds the
	// recency list.
	for el := q.lru.Back(); q.max >= 0 && el != nil; el = el.Prev() {
		e := el.Value.(*qsEntry)
		d := e.entryDoc(now)
		out = append(out, bsoncore.NewDocumentBuilder().AppendString("_id", e.hash).
			AppendDocument("entry", d).Build())
	}
	q.mu.Unlock()
	for _, a := range idx {
		out = append(out, indexAccessDoc(a))
	}
	if err := s.storeQueryStats(out); err != nil {
		s.log.Warn("cannot save the query statistics", "coll", "local."+engine.QueryStatsColl, "err", err)
		q.mu.Lock()
		q.dirty = true
		q.mu.Unlock()
		return
	}
	q.mu.Lock()
	q.idxOps, q.idxSaved = idxOps, now
	q.mu.Unlock()
}

// indexAccessSaveInterval bounds how much observed running time a crash
// loses from the saved index access counters of an idle server.
const indexAccessSaveInterval = 10 * time.Minute

// indexAccessPrefix starts the _id of a saved index access counter.
const indexAccessPrefix = "indexAccess:"

// indexAccessDoc is a saved index access counter:
//
//	{_id: "indexAccess:<id>", indexAccess: {db, coll, name, id, ops,
//	 since, observedMillis}}
func indexAccessDoc(a engine.IndexAccess) bsoncore.Document {
	d := bsoncore.NewDocumentBuilder().
		AppendString("db", a.DB).AppendString("coll", a.Coll).AppendString("name", a.Name).
		AppendInt64("id", int64(a.ID)).AppendInt64("ops", a.Ops).
		AppendDateTime("since", a.Since.UnixMilli()).
		AppendInt64("observedMillis", a.Observed.Milliseconds()).Build()
	return bsoncore.NewDocumentBuilder().AppendString("_id", indexAccessPrefix+strconv.FormatUint(a.ID, 10)).
		AppendDocument("indexAccess", d).Build()
}

// indexAccessFromDoc reads back a saved index access counter.
func indexAccessFromDoc(d bsoncore.Document) (engine.IndexAccess, bool) {
	ad, ok := d.Lookup("indexAccess").DocumentOK()
	if !ok {
		return engine.IndexAccess{}, false
	}
	var a engine.IndexAccess
	a.DB, _ = ad.Lookup("db").StringValueOK()
	a.Coll, _ = ad.Lookup("coll").StringValueOK()
	a.Name, _ = ad.Lookup("name").StringValueOK()
	id, _ := asInt64(ad.Lookup("id"))
	a.ID = uint64(id)
	a.Ops, _ = asInt64(ad.Lookup("ops"))
	if ms, ok := ad.Lookup("since").DateTimeOK(); ok {
		a.Since = time.UnixMilli(ms)
	}
	obs, _ := asInt64(ad.Lookup("observedMillis"))
	a.Observed = time.Duration(obs) * time.Millisecond
	return a, a.DB != "" && a.Name != "" && !a.Since.IsZero()
}

func (s *Server) storeQueryStats(docs []bsoncore.Document) error {
	ctx := context.Background()
	if err := s.eng.EnsureSystemCollection("local", engine.QueryStatsColl); err != nil {
		return err
	}
	opts := engine.WriteOptions{System: true, Ordered: true}
	if _, err := s.eng.Delete(ctx, "local", engine.QueryStatsColl, []engine.DeleteSpec{{Filter: emptyDoc()}}, opts); err != nil {
		return err
	}
	if len(docs) == 0 {
		return nil
	}
	res, err := s.eng.Insert(ctx, "local", engine.QueryStatsColl, docs, opts)
	if err == nil && len(res.WriteErrors) > 0 {
		err = res.WriteErrors[0].Err
	}
	return err
}

// loadQueryStats reads the statistics a previous run stored.
func (s *Server) loadQueryStats() {
	q := s.obs.qs
	// The counters of the indexes without a saved one start now.
	defer s.eng.IndexAccessSnapshot()
	it, err := s.eng.Find(context.Background(), "local", engine.QueryStatsColl, engine.FindSpec{})
	if err != nil {
		s.log.Warn("cannot load the query statistics", "err", err)
		return
	}
	defer it.Close()
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		d, err := it.Next()
		if err != nil {
			s.log.Warn("cannot load the query statistics", "err", err)
			return
		}
		if d == nil {
			return
		}
		if a, ok := indexAccessFromDoc(d); ok {
			s.eng.RestoreIndexAccess(a)
			continue
		}
		e, ok := entryFromDoc(d)
		if !ok || q.m[e.hash] != nil || q.max < 0 {
			continue
		}
		if len(q.m) >= q.max {
			continue // the most recently seen were stored last
		}
		e.elem = q.lru.PushFront(e)
		q.m[e.hash] = e
	}
}

// entryFromDoc reads back a stored entry.
func entryFromDoc(d bsoncore.Document) (*qsEntry, bool) {
	ed, ok := d.Lookup("entry").DocumentOK()
	if !ok {
		return nil, false
	}
	e := &qsEntry{}
	e.hash, _ = ed.Lookup("queryShapeHash").StringValueOK()
	e.key, _ = ed.Lookup("key").DocumentOK()
	e.rep, _ = ed.Lookup("representativeQuery").DocumentOK()
	m, ok := ed.Lookup("metrics").DocumentOK()
	if e.hash == "" || e.key == nil || !ok {
		return nil, false
	}
	// Copy out of the iterator's buffer.
	e.key = append(bsoncore.Document(nil), e.key...)
	e.rep = append(bsoncore.Document(nil), e.rep...)
	e.execCount, _ = asInt64(m.Lookup("execCount"))
	e.lastExecMicros, _ = asInt64(m.Lookup("lastExecutionMicros"))
	readMetric := func(k string, dst *qsMetric) {
		md, _ := m.Lookup(k).DocumentOK()
		dst.sum, _ = asInt64(md.Lookup("sum"))
		dst.max, _ = asInt64(md.Lookup("max"))
		dst.min, _ = asInt64(md.Lookup("min"))
	}
	readMetric("totalExecMicros", &e.micros)
	readMetric("docsReturned", &e.nret)
	readMetric("keysExamined", &e.keys)
	readMetric("docsExamined", &e.docs)
	e.lastPlan, _ = m.Lookup("lastPlanSummary").StringValueOK()
	if ms, ok := m.Lookup("firstSeenTimestamp").DateTimeOK(); ok {
		e.first = time.UnixMilli(ms)
	}
	if ms, ok := m.Lookup("latestSeenTimestamp").DateTimeOK(); ok {
		e.latest = time.UnixMilli(ms)
	}
	return e, true
}

// StoredQueryStats returns the query statistics a server saved in eng's
// local.system.lode.queryStats, as $queryStats documents (least recently
// seen first), without starting a server: for tools that open a data
// directory (lode advise --dir). A directory with none gives none.
func StoredQueryStats(ctx context.Context, eng *engine.Engine) ([]bsoncore.Document, error) {
	it, err := eng.Find(ctx, "local", engine.QueryStatsColl, engine.FindSpec{})
	if err != nil {
		return nil, fmt.Errorf("read local.%s: %w", engine.QueryStatsColl, err)
	}
	defer it.Close()
	var out []bsoncore.Document
	for {
		d, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("read local.%s: %w", engine.QueryStatsColl, err)
		}
		if d == nil {
			return out, nil
		}
		if e, ok := d.Lookup("entry").DocumentOK(); ok {
			out = append(out, append(bsoncore.Document(nil), e...))
		}
	}
}
