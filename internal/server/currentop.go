package server

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/cursor"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/opstats"
)

// runningOp is one command in progress, listed by currentOp and stopped by
// killOp. It is also the command's context (opCtx, opctx.go: cancellable,
// with its maxTimeMS deadline if any), which answers opstats.HolderFrom
// with the op itself, so that registering a command costs one allocation.
type runningOp struct {
	opCtx
	id     int64
	connID int64
	client string
	// meta is the connection's client metadata (hello's client field).
	meta   bsoncore.Document
	db     string
	name   string
	kind   opKind
	cmd    bsoncore.Document
	start  time.Time
	killed atomic.Bool
	// disconnected: the client went away while the op ran (conn.go's
	// watcher cancelled it); it ends with ClientDisconnect.
	disconnected atomic.Bool
	// progress is what an index build reports (msg and progress fields).
	progress engine.Progress
	// stats are the command's figures (slow log, profiler, query stats),
	// written only by the goroutine running it.
	stats opstats.Stats
	// waited is how long a getMore of an awaitData cursor waited for new
	// data: not counted as the command's duration (obs.go).
	waited time.Duration
	// cursor is the cursor the command left open or continued.
	cursor *cursor.Cursor
	// session is the command's session (withCmdSession), when
	// hasSession is set; cmdSessionFrom reads it.
	session    cmdSession
	hasSession bool
}

// OpStats implements opstats.Holder.
func (op *runningOp) OpStats() *opstats.Stats { return &op.stats }

// Value answers opstats.HolderFrom with op and any other key from the
// command's context.
func (op *runningOp) Value(key any) any {
	if key == opstats.ContextKey {
		return op
	}
	return op.parent.Value(key)
}

// opRegistry tracks the running commands of one server (Server.opReg).
// A connection runs one command at a time and shows it in conn.op: the
// registry lists the connection once, at its first command, and a
// command costs it no lock. Commands run without a connection (in
// process) are listed one by one. Its zero value is ready to use.
type opRegistry struct {
	next  atomic.Int64
	mu    sync.Mutex
	ops   map[int64]*runningOp // commands without a connection
	conns map[*conn]struct{}   // connections that ran a command
}

func (s *Server) ops() *opRegistry { return &s.opReg }

// beginOp registers req as running, under a cancellable context that
// expires after maxTime when it is positive, and returns it; endOp
// unregisters it. start is when the command arrived. op, when not nil,
// is the zero runningOp to use (allocated with the request).
func (s *Server) beginOp(ctx context.Context, req *Request, maxTime time.Duration, start time.Time, op *runningOp) *runningOp {
	r := s.ops()
	if op == nil {
		op = &runningOp{}
	}
	op.id, op.db, op.name, op.kind = r.next.Add(1), req.DB, req.Name, req.command().observe.op
	op.cmd, op.start = redactCommandFor(req.Cmd, req.command()), start
	op.opCtx.init(ctx, maxTime, start)
	if c := req.conn; c != nil {
		op.connID = c.id
		op.client = c.remoteAddr()
		op.meta = c.client
		r.listConn(c)
		c.op.Store(op)
		return op
	}
	r.mu.Lock()
	if r.ops == nil {
		r.ops = map[int64]*runningOp{}
	}
	r.ops[op.id] = op
	r.mu.Unlock()
	return op
}

// endOp unregisters op, begun by beginOp for req, and releases its
// context.
func (s *Server) endOp(req *Request, op *runningOp) {
	if c := req.conn; c != nil {
		c.op.CompareAndSwap(op, nil)
	} else {
		r := s.ops()
		r.mu.Lock()
		delete(r.ops, op.id)
		r.mu.Unlock()
	}
	op.cancel()
}

// listConn lists c, once: its running command (conn.op) is then listed,
// and the disconnect watchdog looks at it (watchdog.go). Only c's
// goroutine calls it.
func (r *opRegistry) listConn(c *conn) {
	if c.opListed {
		return
	}
	r.mu.Lock()
	if r.conns == nil {
		r.conns = map[*conn]struct{}{}
	}
	r.conns[c] = struct{}{}
	r.mu.Unlock()
	c.opListed = true
}

// forgetConn drops a closed connection from the registry.
func (r *opRegistry) forgetConn(c *conn) {
	if !c.opListed {
		return
	}
	r.mu.Lock()
	delete(r.conns, c)
	r.mu.Unlock()
}

// opError turns the error of a command stopped by killOp into
// Interrupted (11601), as MongoDB reports it.
func opError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if op, ok := opstats.HolderFrom(ctx).(*runningOp); ok && (op.killed.Load() || op.disconnected.Load()) {
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			if op.disconnected.Load() {
				return errs.New(errs.ClientDisconnect, "operation was interrupted because a client disconnected")
			}
			return errs.New(errs.Interrupted, "operation was interrupted")
		}
	}
	return err
}

// snapshot returns the running operations.
func (r *opRegistry) snapshot() []*runningOp {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*runningOp, 0, len(r.ops)+len(r.conns))
	for _, op := range r.ops {
		out = append(out, op)
	}
	for c := range r.conns {
		if op := c.op.Load(); op != nil {
			out = append(out, op)
		}
	}
	return out
}

// kill cancels operation id; it reports whether it was running.
func (r *opRegistry) kill(id int64) bool {
	r.mu.Lock()
	op := r.ops[id]
	if op == nil {
		for c := range r.conns {
			if o := c.op.Load(); o != nil && o.id == id {
				op = o
				break
			}
		}
	}
	r.mu.Unlock()
	if op == nil {
		return false
	}
	op.killed.Store(true)
	op.cancel()
	return true
}

// render renders op as one currentOp inprog entry.
func (op *runningOp) render(host string) bsoncore.Document {
	el := time.Since(op.start)
	b := bsoncore.NewDocumentBuilder().
		AppendString("type", "op").
		AppendString("host", host).
		AppendString("desc", "conn"+itoa(op.connID)).
		AppendInt64("connectionId", op.connID)
	if op.client != "" {
		b.AppendString("client", op.client)
	}
	appendClientMeta(b, op.meta)
	b.AppendBoolean("active", true).
		AppendString("currentOpTime", time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00")).
		AppendInt32("opid", int32(op.id)).
		AppendInt64("secs_running", int64(el.Seconds())).
		AppendInt64("microsecs_running", el.Microseconds()).
		AppendString("op", op.kind.String())
	ns := op.db
	if v, err := op.cmd.LookupErr("collection"); op.name == "getMore" && err == nil && v.Type == bsoncore.TypeString {
		ns = op.db + "." + v.StringValue()
	} else if v, err := op.cmd.Index(0).ValueErr(); err == nil && v.Type == bsoncore.TypeString {
		ns = op.db + "." + v.StringValue()
	} else {
		ns = op.db + ".$cmd"
	}
	b.AppendString("ns", ns).
		AppendDocument("command", op.cmd)
	if msg, done, total, ok := op.progress.Snapshot(); ok {
		// mongod's CurOp: the phase, then its ProgressMeter rendered as
		// "phase: done/total pct%".
		pct := int64(0)
		if total > 0 {
			pct = done * 100 / total
		}
		b.AppendString("msg", msg+" "+msg+": "+itoa(done)+"/"+itoa(total)+" "+itoa(pct)+"%")
		pb := bsoncore.NewDocumentBuilder()
		appendNumber(pb, "done", done)
		appendNumber(pb, "total", total)
		b.AppendDocument("progress", pb.Build())
	}
	b.AppendInt32("numYields", 0).
		AppendBoolean("killPending", op.killed.Load())
	return b.Build()
}

// appendClientMeta adds mongod's appName and clientMetadata fields for a
// connection whose hello sent client metadata.
func appendClientMeta(b *bsoncore.DocumentBuilder, meta bsoncore.Document) {
	if len(meta) == 0 {
		return
	}
	if v, err := meta.LookupErr("application", "name"); err == nil && v.Type == bsoncore.TypeString {
		b.AppendString("appName", v.StringValue())
	}
	b.AppendDocument("clientMetadata", meta)
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}
