package server

import (
	"context"
	"fmt"
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

// profileCollSize is the size of a system.profile collection the profiler
// creates: a capped collection of 1 MiB, as mongod's.
const profileCollSize = 1 << 20

// maxProfiledCommand bounds the command document a profile entry holds;
// a larger one is replaced by {$truncated: <its JSON, cut>}, as mongod
// does for large commands.
const maxProfiledCommand = 50 << 10

// profileOp writes the profile entry of a finished command into
// <db>.system.profile, creating it (capped, 1 MiB) on first need. doc is
// the entry when the caller built it already (nil: built here). The
// write goes straight to the engine, so it is itself never profiled; a
// failure is logged, never the command's.
func (s *Server) profileOp(ctx context.Context, e *opEntry, doc bsoncore.Document) {
	if e.ns == e.req.DB+".system.profile" {
		return // reading the profile is not profiled: it would fill it
	}
	if doc == nil {
		doc = s.profileDoc(e)
	}
	db := e.req.DB
	if err := s.eng.CreateCollection(db, "system.profile", engine.CreateOptions{Capped: true, Size: profileCollSize,
		Raw: bsoncore.NewDocumentBuilder().AppendBoolean("capped", true).AppendInt64("size", profileCollSize).Build()}); err != nil && !errs.Is(err, errs.NamespaceExists) {
		s.log.Warn("profiler: cannot create system.profile", "db", db, "err", err)
		return
	}
	// Not the command's context: its transaction and deadline are not
	// the profile's.
	if _, err := s.eng.Insert(context.WithoutCancel(detachTxn(ctx)), db, "system.profile", []bsoncore.Document{doc}, engine.WriteOptions{}); err != nil {
		s.log.Warn("profiler: cannot write system.profile", "db", db, "err", err)
	}
}

// detachTxn returns a context without the transaction ctx may carry.
func detachTxn(ctx context.Context) context.Context {
	if engine.TxnFrom(ctx) == nil {
		return ctx
	}
	return context.Background()
}

// profileDoc renders a finished command as mongod 7.0's profiler does.
func (s *Server) profileDoc(e *opEntry) bsoncore.Document {
	st := &e.op.stats
	b := bsoncore.NewDocumentBuilder().
		AppendString("op", e.req.command().observe.op.String()).
		AppendString("ns", e.ns).
		AppendDocument("command", profiledCommand(e.req))
	if e.origCmd != nil && len(e.origCmd) <= maxProfiledCommand {
		b.AppendDocument("originatingCommand", e.origCmd)
	}
	if id := e.cursorID(); id != 0 {
		b.AppendInt64("cursorid", id)
	}
	appendNum(b, "keysExamined", st.KeysExamined)
	appendNum(b, "docsExamined", st.DocsExamined)
	if st.HasSortStage {
		b.AppendBoolean("hasSortStage", true)
	}
	if st.UsedDisk {
		b.AppendBoolean("usedDisk", true)
	}
	switch o := e.req.command().observe; {
	case o.op == opUpdate:
		appendNum(b, "nMatched", st.NMatched)
		appendNum(b, "nModified", st.NModified)
		if st.NUpserted > 0 {
			appendNum(b, "nUpserted", st.NUpserted)
		}
	case o.op == opRemove:
		appendNum(b, "ndeleted", st.NDeleted)
	case o.op == opInsert:
		appendNum(b, "ninserted", st.NInserted)
	case o.has(modifyReply):
		if st.NDeleted > 0 {
			appendNum(b, "ndeleted", st.NDeleted)
		} else {
			appendNum(b, "nMatched", st.NMatched)
			appendNum(b, "nModified", st.NModified)
		}
	}
	if st.KeysInserted > 0 {
		appendNum(b, "keysInserted", st.KeysInserted)
	}
	if st.KeysDeleted > 0 {
		appendNum(b, "keysDeleted", st.KeysDeleted)
	}
	if e.isCursor && e.exhaust {
		b.AppendBoolean("cursorExhausted", true)
	}
	b.AppendInt32("numYield", 0)
	if e.isCursor || st.NReturned > 0 {
		appendNum(b, "nreturned", st.NReturned)
	}
	if e.err != nil {
		ee := errs.As(e.err)
		b.AppendDouble("ok", 0).AppendString("errMsg", ee.Msg).AppendString("errName", ee.Code.Name()).AppendInt32("errCode", int32(ee.Code))
	}
	b.AppendDocument("locks", emptyDoc()).
		AppendDocument("flowControl", emptyDoc()).
		AppendInt32("responseLength", int32(len(e.reply))).
		AppendString("protocol", "op_msg").
		AppendInt32("millis", int32(min(e.dur.Milliseconds(), math.MaxInt32)))
	if st.PlanSummary != "" {
		b.AppendString("planSummary", st.PlanSummary)
	}
	if st.HasPlanCacheKey {
		b.AppendString("queryHash", fmt.Sprintf("%08X", st.QueryHash)).AppendString("planCacheKey", fmt.Sprintf("%08X", st.PlanCacheKey))
	}
	b.AppendDateTime("ts", time.Now().UnixMilli())
	client := e.remote
	if i := lastColon(client); i > 0 {
		client = client[:i]
	}
	if client == "" {
		client = "127.0.0.1"
	}
	b.AppendString("client", client)
	if e.appName != "" {
		b.AppendString("appName", e.appName)
	}
	users := bsoncore.NewArrayBuilder()
	user := ""
	if e.req.conn != nil {
		a := &e.req.conn.authn
		a.mu.Lock()
		g := a.grants
		a.mu.Unlock()
		if g != nil && g.User != nil {
			users.AppendDocument(bsoncore.NewDocumentBuilder().AppendString("user", g.User.Name).AppendString("db", g.User.DB).Build())
			user = g.User.Name + "@" + g.User.DB
		}
	}
	b.AppendArray("allUsers", users.Build()).AppendString("user", user)
	return b.Build()
}

// appendNum appends n as mongod's appendNumber does: an int when it
// fits, else a long.
func appendNum(b *bsoncore.DocumentBuilder, k string, n int64) {
	if n >= math.MinInt32 && n <= math.MaxInt32 {
		b.AppendInt32(k, int32(n))
	} else {
		b.AppendInt64(k, n)
	}
}

func emptyDoc() bsoncore.Document { return bsoncore.NewDocumentBuilder().Build() }

func lastColon(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ':' {
			return i
		}
		if s[i] == ']' {
			return -1
		}
	}
	return -1
}

// profiledCommand is the command field of a profile entry: an update or
// delete of one statement shows the statement ({q, u, multi, upsert} or
// {q, limit}) as mongod does; a large command is cut.
func profiledCommand(req *Request) bsoncore.Document {
	cmd := redactCommand(req.Cmd) // redact.go
	c := req.command()
	if key := c.stmts; key != "" && (c.observe.op == opUpdate || c.observe.op == opRemove) {
		if vals, ok := req.stmtValues(key); ok && len(vals) == 1 {
			if d, ok := vals[0].DocumentOK(); ok {
				cmd = d
			}
		}
	}
	if len(cmd) > maxProfiledCommand {
		js := extJSON(cmd)
		if len(js) > maxProfiledCommand {
			js = js[:maxProfiledCommand]
		}
		return bsoncore.NewDocumentBuilder().AppendString("$truncated", js).Build()
	}
	return cmd
}
