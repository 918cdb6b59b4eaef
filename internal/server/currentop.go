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
// killOp.
type runningOp struct {
	id     int64
	connID int64
	client string
	db     string
	name   string
	kind   opKind
	cmd    bsoncore.Document
	start  time.Time
	cancel context.CancelFunc
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
}

// OpStats implements opstats.Holder.
func (op *runningOp) OpStats() *opstats.Stats { return &op.stats }

// opRegistry tracks the running commands of one server (Server.opReg).
// Its zero value is ready to use.
type opRegistry struct {
	next atomic.Int64
	mu   sync.Mutex
	ops  map[int64]*runningOp // created by the first beginOp
}

func (s *Server) ops() *opRegistry { return &s.opReg }

// beginOp registers req as running and returns its cancellable context and
// the function that unregisters it.
func (s *Server) beginOp(ctx context.Context, req *Request) (context.Context, func()) {
	r := s.ops()
	ctx, cancel := context.WithCancel(ctx)
	op := &runningOp{id: r.next.Add(1), db: req.DB, name: req.Name, kind: req.command().observe.op, cmd: redactCommand(req.Cmd), start: time.Now(), cancel: cancel}
	if req.conn != nil {
		op.connID = req.conn.id
		if req.conn.nc != nil {
			op.client = req.conn.nc.RemoteAddr().String()
		}
	}
	r.mu.Lock()
	if r.ops == nil {
		r.ops = map[int64]*runningOp{}
	}
	r.ops[op.id] = op
	r.mu.Unlock()
	if req.conn != nil {
		req.conn.op.Store(op)
	}
	// The op is the context's opstats.Holder: the engine reports the
	// command's figures into op.stats (no second context value).
	ctx = opstats.NewContext(ctx, op)
	return ctx, func() {
		if req.conn != nil {
			req.conn.op.CompareAndSwap(op, nil)
		}
		r.mu.Lock()
		delete(r.ops, op.id)
		r.mu.Unlock()
		cancel()
	}
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
	out := make([]*runningOp, 0, len(r.ops))
	for _, op := range r.ops {
		out = append(out, op)
	}
	return out
}

// kill cancels operation id; it reports whether it was running.
func (r *opRegistry) kill(id int64) bool {
	r.mu.Lock()
	op := r.ops[id]
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
