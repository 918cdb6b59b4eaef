package server

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/wire"
)

// Request is one decoded command.
type Request struct {
	// Name is the command name: the first field of the command document.
	Name string
	// DB is the target database ($db).
	DB string
	// Cmd is the whole command document, with OP_MSG document sequences
	// merged in as array fields.
	Cmd bsoncore.Document
	// MoreToCome is set for OP_MSG moreToCome: the client wants no reply.
	MoreToCome bool

	// depth is the command's nesting depth as the wire layer measured it
	// (wire.Msg.Depth), or -1 when unknown: a command at most
	// engine.MaxStorageDepth+1 deep carries no document an insert must
	// check for depth (cmd_insert.go).
	depth int32
	// trusted: Cmd came from the wire, which validated it whole (every
	// element, recursively), so walks over it need not validate again.
	trusted bool
	// noZeroTS: the wire layer found no Timestamp(0, 0) anywhere in Cmd
	// (wire.Msg.ZeroTimestamp), so an insert has none to fill in.
	noZeroTS bool
	// seqs are the document sequences Cmd's array fields came in, as the
	// wire layer read them (Request.sequence).
	seqs []wire.Sequence
	// released is the connection's flag for releaseStmts, or nil.
	released *bool
	// gen locates the generic arguments of a trusted command (genargs.go).
	gen  genArgs
	conn *conn
	// cmd is the command's descriptor (command.go): dispatch sets it;
	// Request.command looks it up for a request built inside a command.
	cmd *command
	// explainVerbosity is set on the aggregate the explain command runs
	// (cmd_explain_agg.go).
	explainVerbosity string
}

// sequence returns the document sequence that field id of a trusted
// command came in (its documents are those of the array field, in order),
// or nil when the field came in the body or the command is not from the
// wire.
func (r *Request) sequence(id string) *wire.Sequence {
	if !r.trusted {
		return nil
	}
	for i := range r.seqs {
		if r.seqs[i].Identifier == id {
			return &r.seqs[i]
		}
	}
	return nil
}

// releaseStmts tells the connection that the handler keeps no reference
// to the statements of its document sequence: once the reply is written
// the message's memory serves the next message (conn.go). Only commands
// that declare releasesStmts call it, after their last use of them.
func (r *Request) releaseStmts() {
	if r.released != nil {
		*r.released = true
	}
}

// stmtValues returns the statements of a write command, field being its
// descriptor's stmts (insert's documents, update's updates, delete's
// deletes): the documents of the sequence they came in (the command is
// then the OP_MSG body alone, wire.Msg.Command) or the values of the
// command's array. ok is false when there is neither.
func (r *Request) stmtValues(field string) (vals []bsoncore.Value, ok bool) {
	if seq := r.sequence(field); seq != nil {
		vals = make([]bsoncore.Value, len(seq.Documents))
		for i, d := range seq.Documents {
			vals[i] = bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: d}
		}
		return vals, true
	}
	arr, ok := r.Cmd.Lookup(field).ArrayOK()
	if !ok {
		return nil, false
	}
	vals, _ = arr.Values()
	return vals, true
}

// arg returns generic argument a of the command: its first occurrence,
// as Document.LookupErr finds it.
func (r *Request) arg(a genArg) (bsoncore.Value, error) {
	if r.gen.ok {
		if v, ok := r.gen.value(r.Cmd, a); ok {
			return v, nil
		}
		return bsoncore.Value{}, bsoncore.ErrElementNotFound
	}
	return r.Cmd.LookupErr(genArgNames[a])
}

// commandName returns name as a string, and the command it names or
// nil: the registered command's own name string, so that dispatch does
// not allocate it.
func commandName(name []byte) (string, *command) {
	c, ok := commands[string(name)]
	if !ok {
		return string(name), nil
	}
	for _, n := range c.names {
		if n == string(name) {
			return n, c
		}
	}
	return string(name), c
}

// stringBytes reads a BSON string value's bytes, without its NUL, as
// bsoncore.ReadString does but without making a string.
func stringBytes(src []byte) ([]byte, bool) {
	l, rem, ok := bsoncore.ReadLength(src)
	if !ok || len(rem) < int(l) || l <= 0 {
		return nil, false
	}
	return rem[:l-1], true
}

// handler runs one command and returns the reply body without "ok".
type handler func(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error)

// Commands describe themselves with register (command.go).

// dispatch runs a command and returns the complete reply document.
// It never panics: a panic in a handler becomes an InternalError reply.
func (s *Server) dispatch(ctx context.Context, c *conn, cmd bsoncore.Document, moreToCome bool) (reply bsoncore.Document) {
	return s.dispatchDepth(ctx, c, cmd, moreToCome, wireFacts{depth: -1, zeroTS: true}, time.Now())
}

// wireFacts is what the wire layer's validating pass learned of a
// command (wire.Msg): its nesting depth (Request.depth; -1 when the
// command did not come from the wire), whether it holds a Timestamp(0, 0)
// anywhere, and its document sequences.
type wireFacts struct {
	depth  int
	zeroTS bool
	seqs   []wire.Sequence
	// released, when not nil, is set once the handler has left no
	// reference to the statements in seqs (Request.releaseStmts).
	released *bool
}

// dispatchDepth is dispatch for a command with what the wire layer
// learned of it (wf), which arrived at start.
func (s *Server) dispatchDepth(ctx context.Context, c *conn, cmd bsoncore.Document, moreToCome bool, wf wireFacts, start time.Time) (reply bsoncore.Document) {
	// The request and its running op in one allocation.
	run := &struct {
		req Request
		op  runningOp
	}{req: Request{Cmd: cmd, conn: c, MoreToCome: moreToCome, depth: int32(wf.depth)}}
	req := &run.req
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic in command handler", "cmd", req.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			reply = errorDoc(errs.New(errs.InternalError, "internal error in command %s: %v", req.Name, r))
		}
	}()
	first, err := cmd.IndexErr(0)
	if err != nil {
		return errorDoc(errs.New(errs.FailedToParse, "empty command document"))
	}
	var desc *command
	req.Name, desc = commandName(first.KeyBytes())
	if wf.depth >= 0 { // from the wire (handleMsg): validated
		req.trusted, req.noZeroTS, req.seqs, req.released = true, !wf.zeroTS, wf.seqs, wf.released
		req.gen.scan(cmd)
	}
	if v, err := req.arg(argDB); err == nil {
		if v.Type != bsoncore.TypeString {
			return errorDoc(errs.New(errs.TypeMismatch, "BSON field '$db' is the wrong type '%s', expected type 'string'", bsonutil.TypeName(v.Type)))
		}
		db, ok := stringBytes(v.Data)
		if !ok {
			return errorDoc(errs.New(errs.TypeMismatch, "BSON field '$db' is the wrong type '%s', expected type 'string'", bsonutil.TypeName(v.Type)))
		}
		req.DB = c.dbName(db)
	} else {
		return errorDoc(errs.New(errs.FailedToParse, "OP_MSG requests require a $db argument"))
	}
	if desc == nil || (desc.testOnly && !s.cfg.TestCommands) {
		s.stats.command()
		return errorDoc(errs.New(errs.CommandNotFound, "no such command: '%s'", req.Name))
	}
	req.cmd = desc
	s.stats.countCommand(desc.observe.op)
	if err := checkAPIParams(req); err != nil { // apiversion.go
		return errorDoc(errs.As(err))
	}
	if s.cfg.Auth {
		ca, err := s.authorize(ctx, req) // authz.go
		if err != nil {
			return errorDoc(errs.As(err))
		}
		ctx = context.WithValue(ctx, cursorAuthKey{}, ca)
	}
	var maxTime time.Duration
	if v, err := req.arg(argMaxTimeMS); err == nil {
		ms, err := parseMaxTimeMS(v)
		if err != nil {
			return errorDoc(errs.As(err))
		}
		maxTime = time.Duration(ms) * time.Millisecond
	}
	if ferr := s.eng.Failed(); ferr != nil && !desc.servedWhenFailed {
		// The storage engine failed (disk full, EIO): lode serve is
		// exiting; an embedded DB answers every command with the failure.
		return errorDoc(errs.As(ferr))
	}
	// currentOp/killOp (currentop.go); the op is the command's context,
	// cancellable and with its maxTimeMS deadline.
	op := s.beginOp(ctx, req, maxTime, start, &run.op)
	defer s.endOp(req, op)
	ctx = op
	var body, extra bsoncore.Document
	if s.userWritesBlocked.Load() {
		err = checkUserWriteBlock(req) // cmd_setuserwriteblockmode.go
	}
	if err == nil && s.cfg.TestCommands {
		err = s.failCommandBefore(ctx, req) // failpoint.go
		if req.conn != nil && req.conn.closeNow {
			return nil
		}
		if err == nil {
			err = s.maxTimeAlwaysTimeOutCheck(ctx, req)
		}
	}
	if err == nil {
		body, err = s.runCommand(ctx, desc.handler, req) // sessions, transactions, cluster time (session_run.go)
		if err == nil && s.cfg.TestCommands {
			extra = s.failCommandAfter(req)
		}
	}
	err = opError(ctx, err)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded && !errs.Is(err, errs.MaxTimeMSExpired) {
			// Keep the labels: a commitTransaction that timed out after
			// committing must still say UnknownTransactionCommitResult.
			me := errs.New(errs.MaxTimeMSExpired, "operation exceeded time limit")
			me.Labels = errs.As(err).Labels
			me.Info = errs.As(err).Info
			err = me
		}
		e := errs.As(err)
		if e.Code == errs.InternalError {
			s.log.Error("command failed", "cmd", req.Name, "err", err)
		}
		reply = errorDoc(e)
	} else {
		reply = s.okReply(body, extra)
	}
	// The slow-operation log, the profiler and the query statistics
	// (obs.go).
	s.observe(ctx, req, op, start, reply, err)
	return reply
}

// okReply is the reply to a command that succeeded: a handler's body,
// then on a replica set operationTime and $clusterTime, then extra (a
// failpoint's fields), then ok: 1, built in one allocation.
func (s *Server) okReply(body, extra bsoncore.Document) bsoncore.Document {
	n := len(body) + len(extra) + clusterTimeLen + okLen + 5
	out := make([]byte, 0, n)
	if len(body) == 0 {
		out = append(out, 0, 0, 0, 0)
	} else {
		out = append(out, body[:len(body)-1]...)
	}
	if s.replSet() {
		out = s.appendClusterTime(out)
	}
	if len(extra) > 0 {
		out = append(out, extra[4:len(extra)-1]...)
	}
	out = bsoncore.AppendDoubleElement(out, "ok", 1)
	out = append(out, 0)
	bsoncore.UpdateLength(out, 0, int32(len(out)))
	return out
}

// okLen is the length of the element ok: 1.
const okLen = 1 + len("ok") + 1 + 8

// errorDoc renders err as {ok:0, errmsg, code, codeName, errorLabels?}
// plus any extra fields the error carries.
func errorDoc(err error) bsoncore.Document {
	e := errs.As(err)
	b := bsoncore.NewDocumentBuilder().
		AppendDouble("ok", 0).
		AppendString("errmsg", e.Msg).
		AppendInt32("code", int32(e.Code)).
		AppendString("codeName", e.Code.Name())
	if len(e.Labels) > 0 {
		ab := bsoncore.NewArrayBuilder()
		for _, l := range e.Labels {
			ab.AppendString(l)
		}
		b.AppendArray("errorLabels", ab.Build())
	}
	if len(e.Info) > 0 {
		elems, _ := bsoncore.Document(e.Info).Elements()
		for _, el := range elems {
			b.AppendValue(el.Key(), el.Value())
		}
	}
	return b.Build()
}

// collName returns the collection named by the command's first field.
func collName(req *Request) (string, error) {
	v := req.Cmd.Index(0).Value()
	name, ok := v.StringValueOK()
	if !ok {
		return "", errs.New(errs.InvalidNamespace, "collection name has invalid type %s", bsonutil.TypeName(v.Type))
	}
	if name == "" {
		return "", errs.New(errs.InvalidNamespace, "Invalid namespace specified '%s.'", req.DB)
	}
	return name, nil
}

// ns returns "db.coll".
func ns(db, coll string) string { return db + "." + coll }

// splitNS splits "db.coll" at the first dot.
func splitNS(full string) (db, coll string, ok bool) {
	i := strings.IndexByte(full, '.')
	if i <= 0 || i == len(full)-1 {
		return "", "", false
	}
	return full[:i], full[i+1:], true
}
