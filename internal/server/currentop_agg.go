package server

import (
	"context"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
)

// currentOps lists the entries of the $currentOp aggregation stage: the
// running commands (as the currentOp command renders them), then, as the
// options ask, one inactive entry per connection not running a command
// (idleConnections), one per session holding an open transaction between
// commands (idleSessions, default true) and one per open cursor not in use
// (idleCursors). Lode has no users, so allUsers changes nothing, and
// localOps only matters on mongos.
func (s *Server) currentOps(_ context.Context, opts agg.CurrentOpOptions) ([]bsoncore.Document, error) {
	running := s.ops().snapshot()
	sort.Slice(running, func(i, j int) bool { return running[i].id < running[j].id })
	out := make([]bsoncore.Document, 0, len(running))
	busy := make(map[int64]bool, len(running))
	for _, op := range running {
		out = append(out, op.render(s.host))
		busy[op.connID] = true
	}
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00")
	if opts.IdleConnections {
		out = append(out, s.idleConnOps(busy, now)...)
	}
	if opts.IdleSessions {
		out = append(out, s.idleSessionOps(now)...)
	}
	if opts.IdleCursors {
		for _, ci := range s.cursors.Idle() {
			out = append(out, bsoncore.NewDocumentBuilder().
				AppendString("type", "idleCursor").
				AppendString("host", s.host).
				AppendString("ns", ci.NS).
				AppendDocument("cursor", bsoncore.NewDocumentBuilder().
					AppendInt64("cursorId", ci.ID).
					AppendDateTime("lastAccessDate", ci.LastUsed.UnixMilli()).
					AppendInt64("nDocsReturned", ci.Returned).
					AppendBoolean("noCursorTimeout", ci.NoTimeout).
					AppendBoolean("tailable", ci.Tailable).
					AppendBoolean("awaitData", ci.AwaitData).Build()).
				Build())
		}
	}
	return out, nil
}

// idleConnOps renders an inactive entry for each open connection whose id
// is not in busy.
func (s *Server) idleConnOps(busy map[int64]bool, now string) []bsoncore.Document {
	type idle struct {
		id     int64
		client string
		meta   bsoncore.Document
	}
	var conns []idle
	s.mu.Lock()
	for c := range s.conns {
		if !busy[c.id] {
			e := idle{id: c.id}
			if c.raw != nil {
				e.client = c.raw.RemoteAddr().String()
			}
			if m := c.meta.Load(); m != nil {
				e.meta = *m
			}
			conns = append(conns, e)
		}
	}
	s.mu.Unlock()
	sort.Slice(conns, func(i, j int) bool { return conns[i].id < conns[j].id })
	out := make([]bsoncore.Document, 0, len(conns))
	for _, c := range conns {
		b := bsoncore.NewDocumentBuilder().
			AppendString("type", "op").
			AppendString("host", s.host).
			AppendString("desc", "conn"+itoa(c.id)).
			AppendInt64("connectionId", c.id)
		if c.client != "" {
			b.AppendString("client", c.client)
		}
		appendClientMeta(b, c.meta)
		out = append(out, b.AppendBoolean("active", false).
			AppendString("currentOpTime", now).Build())
	}
	return out
}

// idleSessionOps renders an "idleSession" entry for each session with an
// open transaction and no command running (its mutex is free).
func (s *Server) idleSessionOps(now string) []bsoncore.Document {
	var out []bsoncore.Document
	for _, ss := range s.sessions.list() {
		if !ss.mu.TryLock() {
			continue
		}
		open, txn, used := ss.state == txnActive, ss.txnNumber, ss.txUsed
		ss.mu.Unlock()
		if !open {
			continue
		}
		lsid := bsoncore.NewDocumentBuilder().AppendBinary("id", 4, []byte(ss.id)).Build()
		out = append(out, bsoncore.NewDocumentBuilder().
			AppendString("type", "idleSession").
			AppendString("host", s.host).
			AppendString("desc", "inactive transaction").
			AppendBoolean("active", false).
			AppendString("currentOpTime", now).
			AppendDocument("lsid", lsid).
			AppendDocument("transaction", bsoncore.NewDocumentBuilder().
				AppendDocument("parameters", bsoncore.NewDocumentBuilder().
					AppendInt64("txnNumber", txn).
					AppendBoolean("autocommit", false).Build()).
				AppendInt64("timeInactiveMicros", time.Since(used).Microseconds()).Build()).
			Build())
	}
	return out
}

// list returns every session without marking it used.
func (r *sessionRegistry) list() []*session {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*session, 0, len(r.m))
	for _, ss := range r.m {
		out = append(out, ss)
	}
	return out
}
