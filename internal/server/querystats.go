package server

import (
	"container/list"
	"context"
	"sort"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/queryshape"
)

// DefaultQueryStatsCacheSize bounds the query shapes kept in memory, as
// mongod's internalQueryStatsCacheSize bounds its store (by bytes there,
// by shapes here); the least recently seen shape is evicted first.
const DefaultQueryStatsCacheSize = 5000

// qsMetric is a {sum, max, min} figure of $queryStats.
type qsMetric struct{ sum, max, min int64 }

func (m *qsMetric) add(v int64, first bool) {
	m.sum += v
	if first || v > m.max {
		m.max = v
	}
	if first || v < m.min {
		m.min = v
	}
}

func (m *qsMetric) doc() bsoncore.Document {
	return bsoncore.NewDocumentBuilder().AppendInt64("sum", m.sum).AppendInt64("max", m.max).AppendInt64("min", m.min).Build()
}

// qsEntry is the statistics of one query shape.
type qsEntry struct {
	hash string
	// key is {queryShape: {...}}; rep the representativeQuery (the
	// last statement seen, with its values).
	key, rep       bsoncore.Document
	execCount      int64
	lastExecMicros int64
	micros, nret   qsMetric
	keys, docs     qsMetric
	lastPlan       string
	first, latest  time.Time
	elem           *list.Element
}

// queryStats is the in-memory store of query shapes, bounded by max.
type queryStats struct {
	mu  sync.Mutex
	max int
	m   map[string]*qsEntry
	lru list.List // front: most recently seen
	// dirty is set when entries changed since the last flush.
	dirty bool
}

func newQueryStats(size int) *queryStats {
	if size == 0 {
		size = DefaultQueryStatsCacheSize
	}
	return &queryStats{max: size, m: map[string]*qsEntry{}}
}

// queryExec is one execution of a query shape, as recorded.
type queryExec struct {
	hash                     string
	key, rep                 bsoncore.Document
	micros, nret, keys, docs int64
	plan                     string
	count                    int64 // statements of this shape in the command (writes)
}

// record adds an execution to its shape's entry, creating (and evicting
// the least recently seen shape) as needed.
func (q *queryStats) record(x *queryExec) {
	if q == nil || q.max < 0 {
		return
	}
	now := time.Now()
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.m[x.hash]
	if e == nil {
		for len(q.m) >= q.max && q.lru.Len() > 0 {
			old := q.lru.Back().Value.(*qsEntry)
			q.lru.Remove(old.elem)
			delete(q.m, old.hash)
		}
		e = &qsEntry{hash: x.hash, key: x.key, first: now}
		e.elem = q.lru.PushFront(e)
		q.m[x.hash] = e
	} else {
		q.lru.MoveToFront(e.elem)
	}
	n := max(x.count, 1)
	for i := int64(0); i < n; i++ {
		first := e.execCount == 0
		e.execCount++
		e.micros.add(x.micros/n, first)
		e.nret.add(x.nret/n, first)
		e.keys.add(x.keys/n, first)
		e.docs.add(x.docs/n, first)
	}
	e.lastExecMicros = x.micros / n
	e.rep = x.rep
	if x.plan != "" {
		e.lastPlan = x.plan
	}
	e.latest = now
	q.dirty = true
}

// reset forgets every shape.
func (q *queryStats) reset() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.m = map[string]*qsEntry{}
	q.lru.Init()
	q.dirty = true
}

// entryDoc renders an entry as a $queryStats result document.
func (e *qsEntry) entryDoc(asOf time.Time) bsoncore.Document {
	m := bsoncore.NewDocumentBuilder().
		AppendInt64("lastExecutionMicros", e.lastExecMicros).
		AppendInt64("execCount", e.execCount).
		AppendDocument("totalExecMicros", e.micros.doc()).
		AppendDocument("docsReturned", e.nret.doc()).
		AppendDocument("keysExamined", e.keys.doc()).
		AppendDocument("docsExamined", e.docs.doc()).
		AppendString("lastPlanSummary", e.lastPlan).
		AppendDateTime("firstSeenTimestamp", e.first.UnixMilli()).
		AppendDateTime("latestSeenTimestamp", e.latest.UnixMilli()).
		Build()
	return bsoncore.NewDocumentBuilder().
		AppendDocument("key", e.key).
		AppendString("queryShapeHash", e.hash).
		AppendDocument("representativeQuery", e.rep).
		AppendDocument("metrics", m).
		AppendTimestamp("asOf", uint32(asOf.Unix()), 0).
		Build()
}

// queryStatsDocs lists the entries for $queryStats, most recently seen
// first.
func (s *Server) queryStatsDocs(context.Context) ([]bsoncore.Document, error) {
	q := s.obs.qs
	now := time.Now()
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]bsoncore.Document, 0, q.lru.Len())
	for el := q.lru.Front(); el != nil; el = el.Next() {
		out = append(out, el.Value.(*qsEntry).entryDoc(now))
	}
	return out, nil
}

// recordQueryStats adds a finished command to the query statistics: a
// find, aggregate, count, distinct or findAndModify as one execution of
// its shape (kept on its cursor until the last getMore when it leaves
// one open), an update or delete as one execution per statement.
func (s *Server) recordQueryStats(req *Request, op *runningOp, name string, d time.Duration) {
	if s.obs.qs.max < 0 {
		return
	}
	st := &op.stats
	if req.Name == "getMore" {
		c := op.cursor
		if c == nil {
			return
		}
		x, ok := c.Obs.(*queryExec)
		if !ok {
			return
		}
		x.micros += d.Microseconds()
		x.nret += st.NReturned
		x.keys += st.KeysExamined
		x.docs += st.DocsExamined
		if st.CursorID == 0 {
			c.Obs = nil
			s.obs.qs.record(x)
		}
		return
	}
	coll, ok := req.Cmd.Index(0).Value().StringValueOK()
	if !ok || systemNS(req.DB, coll) {
		return
	}
	if name == "update" || name == "delete" {
		s.recordWriteShapes(req, op, name, coll, d)
		return
	}
	shape, rep := commandShape(req, name, coll)
	if shape == nil {
		return
	}
	key := bsoncore.NewDocumentBuilder().AppendDocument("queryShape", shape).Build()
	x := &queryExec{hash: queryshape.Hash(shape), key: key, rep: rep, micros: d.Microseconds(),
		nret: st.NReturned, keys: st.KeysExamined, docs: st.DocsExamined, plan: st.PlanSummary}
	if op.cursor != nil && st.CursorID != 0 {
		// The reply carrying the cursor id is not sent yet: no getMore
		// can hold the cursor now.
		op.cursor.Obs = x
		return
	}
	s.obs.qs.record(x)
}

// recordWriteShapes records each statement shape of an update or delete;
// the command's figures are shared among its statements.
func (s *Server) recordWriteShapes(req *Request, op *runningOp, name, coll string, d time.Duration) {
	key := "updates"
	if name == "delete" {
		key = "deletes"
	}
	arr, ok := req.Cmd.Lookup(key).ArrayOK()
	if !ok {
		return
	}
	vals, _ := arr.Values()
	if len(vals) == 0 {
		return
	}
	byHash := map[string]*queryExec{}
	var order []string
	for _, v := range vals {
		stmt, ok := v.DocumentOK()
		if !ok {
			continue
		}
		shape, rep := writeStatementShape(req.DB, coll, name, stmt)
		h := queryshape.Hash(shape)
		x := byHash[h]
		if x == nil {
			x = &queryExec{hash: h, key: bsoncore.NewDocumentBuilder().AppendDocument("queryShape", shape).Build()}
			byHash[h] = x
			order = append(order, h)
		}
		x.rep = rep
		x.count++
	}
	st := &op.stats
	n := int64(len(vals))
	sort.Strings(order)
	for _, h := range order {
		x := byHash[h]
		x.micros = d.Microseconds() * x.count / n
		x.keys = st.KeysExamined * x.count / n
		x.docs = st.DocsExamined * x.count / n
		x.plan = st.PlanSummary
		s.obs.qs.record(x)
	}
}
