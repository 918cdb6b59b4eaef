package server

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/cursor"
	"github.com/lodedb/lode/internal/opstats"
	"github.com/lodedb/lode/internal/query"
)

// DefaultSlowOpThreshold is mongod's default slowms.
const DefaultSlowOpThreshold = 100 * time.Millisecond

// observer holds what decides whether a finished command is logged as
// slow, profiled or counted in the query statistics (the profile
// command's settings, the slow-operation threshold, the query-shape
// store).
type observer struct {
	// slowMS and sampleRate (float64 bits) are global, as in mongod.
	slowMS     atomic.Int64
	sampleRate atomic.Uint64
	// profiling is set while some database has a level above 0 or a
	// filter, so that commands skip the profile lookup otherwise.
	profiling atomic.Bool
	profMu    sync.RWMutex
	prof      map[string]profileSetting // by database
	qs        *queryStats
}

// profileSetting is one database's profiler level and filter.
type profileSetting struct {
	level     int
	filter    *query.Filter
	filterDoc bsoncore.Document
}

func newObserver(cfg Config) *observer {
	o := &observer{prof: map[string]profileSetting{}, qs: newQueryStats(cfg.QueryStatsCacheSize)}
	switch {
	case cfg.SlowOpThreshold < 0:
		o.slowMS.Store(0)
	case cfg.SlowOpThreshold == 0:
		o.slowMS.Store(DefaultSlowOpThreshold.Milliseconds())
	default:
		o.slowMS.Store(cfg.SlowOpThreshold.Milliseconds())
	}
	rate := cfg.SlowOpSampleRate
	if rate <= 0 || rate > 1 {
		rate = 1
	}
	o.sampleRate.Store(math.Float64bits(rate))
	return o
}

func (o *observer) rate() float64 { return math.Float64frombits(o.sampleRate.Load()) }

// profile returns db's profiler setting (level 0 when none was set).
func (o *observer) profile(db string) profileSetting {
	if !o.profiling.Load() {
		return profileSetting{}
	}
	o.profMu.RLock()
	defer o.profMu.RUnlock()
	return o.prof[db]
}

// setProfile changes db's setting.
func (o *observer) setProfile(db string, ps profileSetting) {
	o.profMu.Lock()
	defer o.profMu.Unlock()
	if ps.level == 0 && ps.filter == nil {
		delete(o.prof, db)
	} else {
		o.prof[db] = ps
	}
	on := false
	for _, p := range o.prof {
		if p.level > 0 || p.filter != nil {
			on = true
		}
	}
	o.profiling.Store(on)
}

// opFrom returns the running command ctx belongs to, or nil.
func opFrom(ctx context.Context) *runningOp {
	op, _ := opstats.HolderFrom(ctx).(*runningOp)
	return op
}

// observe runs when a command has its reply: it logs the command when it
// was slow, writes its profile entry when its database profiles it, and
// adds it to the query statistics. For a ping it costs a clock read and
// a few loads.
func (s *Server) observe(ctx context.Context, req *Request, op *runningOp, start time.Time, reply bsoncore.Document, err error) {
	if op == nil {
		return
	}
	op.stats.FlushOpen()
	d := time.Since(start) - op.waited
	c := req.command()
	s.stats.observeLatency(c.observe.op, d)
	o := s.obs
	slow := d.Milliseconds() >= o.slowMS.Load()
	if slow {
		if r := o.rate(); r < 1 && rand.Float64() >= r {
			slow = false
		}
	}
	ps := o.profile(req.DB)
	qsCmd := c.shape != nil
	qsName := ""
	if qsCmd {
		qsName = c.names[0]
	}
	if !slow && ps.level == 0 && ps.filter == nil && !qsCmd && req.Name != "getMore" {
		return
	}
	var orig bsoncore.Document
	if req.Name == "getMore" && op.cursor != nil {
		// Before the statistics forget it with the cursor.
		if x, ok := op.cursor.Obs.(*queryExec); ok {
			orig = x.rep.cmd
		}
	}
	if err == nil {
		writeFigures(c.observe, reply, &op.stats)
		if qsCmd || req.Name == "getMore" {
			s.recordQueryStats(req, op, qsName, d)
		}
	}
	if ps.filter == nil {
		if !slow && ps.level < 2 {
			return
		}
		e := s.describe(req, op, d, reply, err)
		e.origCmd = orig
		if slow {
			s.logSlow(e)
		}
		if ps.level == 2 || (ps.level == 1 && slow) {
			s.profileOp(ctx, e, nil)
		}
		return
	}
	// With a filter, it alone decides what is logged and profiled
	// (mongod: slowms and sampleRate are then not used).
	e := s.describe(req, op, d, reply, err)
	e.origCmd = orig
	doc := s.profileDoc(e)
	match := ps.filter.Match(doc)
	if match {
		s.logSlow(e)
	}
	if ps.level == 2 || (ps.level == 1 && match) {
		s.profileOp(ctx, e, doc)
	}
}

// opEntry is a finished command as the slow log and the profiler show it.
type opEntry struct {
	req     *Request
	op      *runningOp
	ns      string
	dur     time.Duration
	reply   bsoncore.Document
	err     error
	appName string
	remote  string
	// origCmd is a getMore's originating command, when known.
	origCmd  bsoncore.Document
	exhaust  bool
	isCursor bool
}

// describe gathers what the slow log and the profiler report of a
// command.
func (s *Server) describe(req *Request, op *runningOp, d time.Duration, reply bsoncore.Document, err error) *opEntry {
	e := &opEntry{req: req, op: op, dur: d, reply: reply, err: err, ns: opNS(req), remote: op.client}
	if req.conn != nil {
		e.appName = reqAppName(req)
	}
	if req.command().observe.has(cursorReply) {
		e.isCursor = true
		e.exhaust = err == nil && op.stats.CursorID == 0
	}
	return e
}

// cursorID is the cursor id an entry shows: the cursor a command left
// open, or the one a getMore continued (exhausted or not).
func (e *opEntry) cursorID() int64 {
	if e.req.Name == "getMore" {
		if v, ok := e.req.Cmd.Index(0).Value().Int64OK(); ok {
			return v
		}
	}
	return e.op.stats.CursorID
}

// opNS is the namespace mongod reports for a command: db.coll for the
// commands naming a collection, db.$cmd otherwise.
func opNS(req *Request) string {
	if req.Name == "getMore" {
		if c, ok := req.Cmd.Lookup("collection").StringValueOK(); ok {
			return ns(req.DB, c)
		}
	} else if req.command().observe.has(onColl) {
		if c, ok := req.Cmd.Index(0).Value().StringValueOK(); ok {
			return ns(req.DB, c)
		}
	}
	return req.DB + ".$cmd"
}

// writeFigures reads the write counts of a write command's reply into st,
// as the command is observed (an insert, update or delete by its op
// kind, findAndModify by modifyReply).
func writeFigures(o observation, reply bsoncore.Document, st *opstats.Stats) {
	switch {
	case o.op == opInsert:
		st.NInserted, _ = asInt64(reply.Lookup("n"))
	case o.op == opRemove:
		st.NDeleted, _ = asInt64(reply.Lookup("n"))
	case o.op == opUpdate:
		n, _ := asInt64(reply.Lookup("n"))
		st.NModified, _ = asInt64(reply.Lookup("nModified"))
		if up, ok := reply.Lookup("upserted").ArrayOK(); ok {
			vals, _ := up.Values()
			st.NUpserted = int64(len(vals))
		}
		st.NMatched = n - st.NUpserted
	case o.has(modifyReply):
		le, ok := reply.Lookup("lastErrorObject").DocumentOK()
		if !ok {
			return
		}
		n, _ := asInt64(le.Lookup("n"))
		if _, isUpd := le.Lookup("updatedExisting").BooleanOK(); isUpd {
			if up := le.Lookup("upserted"); up.Type != 0 {
				st.NUpserted = 1
			} else {
				st.NMatched, st.NModified = n, n
			}
		} else {
			st.NDeleted = n
		}
		if v := reply.Lookup("value"); v.Type != 0 && v.Type != bsoncore.TypeNull {
			st.NReturned = 1
		}
	}
}

// systemNS reports namespaces whose operations the query statistics
// skip: admin, local and config, and system collections.
func systemNS(db, coll string) bool {
	return db == "admin" || db == "local" || db == "config" || strings.HasPrefix(coll, "system.")
}

// cursorOf sets the cursor a command leaves open (firstBatch) or
// continues (getMore) on its running op.
func cursorOf(ctx context.Context, c *cursor.Cursor, id int64, nreturned int) {
	op := opFrom(ctx)
	if op == nil {
		return
	}
	op.cursor = c
	op.stats.CursorID = id
	if x, ok := c.Obs.(*queryExec); ok && id == 0 {
		// The cursor closes now; the command records the execution
		// with its own figures (recordQueryStats), not its OnClose.
		x.exhausted = true
	}
	op.stats.NReturned += int64(nreturned)
}
