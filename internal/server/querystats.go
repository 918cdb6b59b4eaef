package server

import (
	"container/list"
	"context"
	"hash/maphash"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/cursor"
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
	// key is {queryShape: {...}}.
	key bsoncore.Document
	// repCmd is the last statement of the shape (the command, or the
	// update or delete statement), in a buffer the entry owns and reuses;
	// representativeQuery is rendered from it when read. rep is the
	// rendered one of an entry loaded from disk (repCmd nil).
	repCmd                  bsoncore.Document
	repName, repDB, repColl string
	rep                     bsoncore.Document
	// fps are the fingerprints (shapeFingerprint) known to map here.
	fps            []uint64
	execCount      int64
	lastExecMicros int64
	micros, nret   qsMetric
	keys, docs     qsMetric
	lastPlan       string
	first, latest  time.Time
	elem           *list.Element
}

// maxFingerprints bounds the fingerprints cached per shape.
const maxFingerprints = 8

// queryStats is the in-memory store of query shapes, bounded by max.
type queryStats struct {
	mu   sync.Mutex
	max  int
	seed maphash.Seed
	m    map[string]*qsEntry // by queryShapeHash
	fp   map[uint64]*qsEntry // by fingerprint
	lru  list.List           // front: most recently seen
	// dirty is set when entries changed since the last flush.
	dirty bool
	// idxOps and idxSaved are the index access operations saved last and
	// when (querystats_store.go).
	idxOps   int64
	idxSaved time.Time
}

func newQueryStats(size int) *queryStats {
	if size == 0 {
		size = DefaultQueryStatsCacheSize
	}
	return &queryStats{max: size, seed: maphash.MakeSeed(), m: map[string]*qsEntry{}, fp: map[uint64]*qsEntry{}}
}

// qsFigures are one execution's figures.
type qsFigures struct {
	micros, nret, keys, docs int64
	plan                     string
}

// repOf names the statement an execution keeps as its representative.
type repOf struct {
	name, db, coll string
	cmd            bsoncore.Document
}

// queryExec is an execution whose cursor is still open: its figures add
// up over the getMores until the last.
type queryExec struct {
	// exhausted: the last getMore is under way and records it.
	exhausted bool
	fp        uint64
	hasFP     bool
	hash      string
	key       bsoncore.Document
	rep       repOf
	f         qsFigures
}

// recordFP adds an execution to the shape fingerprint fp maps to; false
// when fp is unknown.
func (q *queryStats) recordFP(fp uint64, f *qsFigures, rep *repOf) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.fp[fp]
	if e == nil {
		return false
	}
	q.add(e, f, rep)
	return true
}

// recordNew adds an execution to the shape hash names, creating its entry
// (and evicting the least recently seen) as needed, and maps fp to it.
func (q *queryStats) recordNew(fp uint64, hasFP bool, hash string, key bsoncore.Document, f *qsFigures, rep *repOf) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.m[hash]
	if e == nil {
		for len(q.m) >= q.max && q.lru.Len() > 0 {
			q.evict(q.lru.Back().Value.(*qsEntry))
		}
		e = &qsEntry{hash: hash, key: key, first: time.Now()}
		e.elem = q.lru.PushFront(e)
		q.m[hash] = e
	}
	if hasFP && len(e.fps) < maxFingerprints && q.fp[fp] == nil {
		e.fps = append(e.fps, fp)
		q.fp[fp] = e
	}
	q.add(e, f, rep)
}

func (q *queryStats) evict(e *qsEntry) {
	q.lru.Remove(e.elem)
	delete(q.m, e.hash)
	for _, fp := range e.fps {
		delete(q.fp, fp)
	}
}

// maxRepCmdBytes bounds the command an entry keeps as its representative
// query: a larger one (a find with an $in of a million values) is not
// copied, so the store's memory stays bounded by its entry count; the
// entry keeps its earlier representative, or shows {} when it has none.
const maxRepCmdBytes = 64 << 10

// add counts one execution in e; q.mu is held.
func (q *queryStats) add(e *qsEntry, f *qsFigures, rep *repOf) {
	first := e.execCount == 0
	e.execCount++
	e.micros.add(f.micros, first)
	e.nret.add(f.nret, first)
	e.keys.add(f.keys, first)
	e.docs.add(f.docs, first)
	e.lastExecMicros = f.micros
	if f.plan != "" {
		e.lastPlan = f.plan
	}
	if len(rep.cmd) <= maxRepCmdBytes {
		e.repCmd = append(e.repCmd[:0], rep.cmd...)
		e.repName, e.repDB, e.repColl = rep.name, rep.db, rep.coll
	}
	e.latest = time.Now()
	if e.elem != q.lru.Front() {
		q.lru.MoveToFront(e.elem)
	}
	q.dirty = true
}

// representative renders the entry's representativeQuery.
func (e *qsEntry) representative() bsoncore.Document {
	if len(e.repCmd) == 0 {
		if e.rep == nil {
			return emptyDoc()
		}
		return e.rep
	}
	var rep bsoncore.Document
	if f := lookupCommand(e.repName).shape; f != nil && f.perStatement {
		_, rep = writeStatementShape(e.repDB, e.repColl, e.repName, e.repCmd)
	} else {
		_, rep = commandShape(e.repDB, e.repCmd, e.repName, e.repColl)
	}
	if rep == nil {
		return emptyDoc()
	}
	return rep
}

// reset forgets every shape.
func (q *queryStats) reset() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.m = map[string]*qsEntry{}
	q.fp = map[uint64]*qsEntry{}
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
		AppendDocument("representativeQuery", e.representative()).
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
// one open), an update or delete as one execution per statement. A shape
// already seen is found by its fingerprint, without computing it again.
func (s *Server) recordQueryStats(req *Request, op *runningOp, name string, d time.Duration) {
	q := s.obs.qs
	if q.max < 0 {
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
		x.f.micros += d.Microseconds()
		x.f.nret += st.NReturned
		x.f.keys += st.KeysExamined
		x.f.docs += st.DocsExamined
		if st.CursorID == 0 {
			c.Obs = nil
			if !x.hasFP || !q.recordFP(x.fp, &x.f, &x.rep) {
				q.recordNew(x.fp, x.hasFP, x.hash, x.key, &x.f, &x.rep)
			}
		}
		return
	}
	coll, ok := req.Cmd.Index(0).Value().StringValueOK()
	if !ok || systemNS(req.DB, coll) {
		return
	}
	form := req.command().shape
	if form != nil && form.perStatement {
		s.recordWriteShapes(req, op, name, coll, d)
		return
	}
	f := qsFigures{micros: d.Microseconds(), nret: st.NReturned, keys: st.KeysExamined, docs: st.DocsExamined, plan: st.PlanSummary}
	rep := repOf{name: name, db: req.DB, coll: coll, cmd: redactCommand(req.Cmd)} // redact.go
	fp, hasFP := shapeFingerprint(q.seed, req.DB, req.Cmd, name, form, coll)
	open := op.cursor != nil && st.CursorID != 0
	if hasFP && !open && q.recordFP(fp, &f, &rep) {
		return
	}
	shape, _ := commandShape(req.DB, req.Cmd, name, coll)
	if shape == nil {
		return
	}
	key := bsoncore.NewDocumentBuilder().AppendDocument("queryShape", shape).Build()
	hash := queryshape.Hash(shape)
	if open {
		// The reply carrying the cursor id is not sent yet: no getMore
		// can hold the cursor now. The command document is the wire
		// buffer's: copy it.
		if len(rep.cmd) <= maxRepCmdBytes {
			rep.cmd = append(bsoncore.Document(nil), rep.cmd...)
		} else {
			rep.cmd = nil
		}
		op.cursor.Obs = &queryExec{fp: fp, hasFP: hasFP, hash: hash, key: key, rep: rep, f: f}
		op.cursor.OnClose = s.cursorClosed
		return
	}
	q.recordNew(fp, hasFP, hash, key, &f, &rep)
}

// cursorClosed records the execution of a cursor closed before it was
// exhausted (killCursors, the idle timeout, its session ended): what its
// batches returned so far.
func (s *Server) cursorClosed(c *cursor.Cursor) {
	x, ok := c.Obs.(*queryExec)
	if !ok || x.exhausted {
		return
	}
	c.Obs = nil
	q := s.obs.qs
	if !x.hasFP || !q.recordFP(x.fp, &x.f, &x.rep) {
		q.recordNew(x.fp, x.hasFP, x.hash, x.key, &x.f, &x.rep)
	}
}

// recordWriteShapes records each statement of an update or delete as an
// execution of its shape; the command's figures are shared among its
// statements.
func (s *Server) recordWriteShapes(req *Request, op *runningOp, name, coll string, d time.Duration) {
	q := s.obs.qs
	c := req.command()
	vals, ok := req.stmtValues(c.stmts)
	if !ok {
		return
	}
	if len(vals) == 0 {
		return
	}
	st := &op.stats
	n := int64(len(vals))
	f := qsFigures{micros: d.Microseconds() / n, keys: st.KeysExamined / n, docs: st.DocsExamined / n, plan: st.PlanSummary}
	for _, v := range vals {
		stmt, ok := v.DocumentOK()
		if !ok {
			continue
		}
		rep := repOf{name: name, db: req.DB, coll: coll, cmd: stmt}
		fp := writeFingerprint(q.seed, req.DB, coll, name, c.shape, stmt)
		if q.recordFP(fp, &f, &rep) {
			continue
		}
		shape, _ := writeStatementShape(req.DB, coll, name, stmt)
		q.recordNew(fp, true, queryshape.Hash(shape), bsoncore.NewDocumentBuilder().AppendDocument("queryShape", shape).Build(), &f, &rep)
	}
}
