package server

import (
	"context"
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
// with _id the shape's hash.
func (s *Server) flushQueryStats() {
	q := s.obs.qs
	if q.max < 0 {
		return
	}
	q.mu.Lock()
	if !q.dirty {
		q.mu.Unlock()
		return
	}
	q.dirty = false
	now := time.Now()
	out := make([]bsoncore.Document, 0, q.lru.Len())
	// Least recently seen first, so that loading in order rebuilds the
	// recency list.
	for el := q.lru.Back(); el != nil; el = el.Prev() {
		e := el.Value.(*qsEntry)
		d := e.entryDoc(now)
		out = append(out, bsoncore.NewDocumentBuilder().AppendString("_id", e.hash).
			AppendDocument("entry", d).Build())
	}
	q.mu.Unlock()
	if err := s.storeQueryStats(out); err != nil {
		s.log.Warn("cannot save the query statistics", "coll", "local."+engine.QueryStatsColl, "err", err)
		q.mu.Lock()
		q.dirty = true
		q.mu.Unlock()
	}
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
	if q.max < 0 {
		return
	}
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
		e, ok := entryFromDoc(d)
		if !ok || q.m[e.hash] != nil {
			continue
		}
		if len(q.m) >= q.max {
			return // the most recently seen were stored last
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
