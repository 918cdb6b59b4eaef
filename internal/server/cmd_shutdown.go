package server

import (
	"context"
	"net"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/mongolog"
)

func init() {
	register(admin(cmdShutdown, requires(clusterNeeds(auth.ActShutdown)), "shutdown"))
}

// defaultShutdownTimeoutSecs is mongod 7.0's default timeoutSecs.
const defaultShutdownTimeoutSecs = 15

// cmdShutdown is mongod's shutdown command (mongosh's db.shutdownServer()):
// once allowed, it hands the shutdown to Config.Shutdown and closes its
// connection without a reply, as mongod's process exits under it; the
// client sees the connection close (mongosh reports success).
//
// As mongod 7.0: it runs only on admin; with authorization on it needs the
// shutdown action on the cluster (hostManager, clusterManager, root), and
// with it off it is allowed only from a loopback client. Without force it
// is refused while an index build runs (ConflictingOperationInProgress).
// A primary of a one-member replica set does not step down first (mongod
// skips the step-down when the set has one member) and a standalone has
// none, so timeoutSecs, which bounds the step-down's wait for a secondary
// and the quiesce period of a secondary, changes nothing here; it is
// read as mongod reads it (a number) and logged.
func cmdShutdown(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if req.DB != "admin" {
		return nil, errs.New(errs.Unauthorized, "shutdown may only be run against the admin database.")
	}
	if !s.cfg.Auth && !fromLoopback(req) {
		return nil, errs.New(errs.Unauthorized, "shutdown must run from localhost when running db without auth")
	}
	force := false
	timeoutSecs := int64(defaultShutdownTimeoutSecs)
	err := eachArgLax(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "force":
			force = expr.Truthy(v) // mongod reads it as trueValue()
			return true, nil
		case "timeoutSecs":
			// mongod reads it as numberLong(): a number, truncated; any
			// other type is 0.
			timeoutSecs = 0
			if bsonIsNumber(v.Type) {
				timeoutSecs = int64(bsonutil.AsFloat64(v))
			}
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if s.cfg.Shutdown == nil {
		return nil, errs.New(errs.IllegalOperation, "shutdown is not available on a Lode embedded in a program (lode.Open): the program stops it with DB.Close")
	}
	if !force {
		if n := s.indexBuildsRunning(); n > 0 {
			return nil, errs.New(errs.ConflictingOperationInProgress, "Index builds in progress while processing shutdown command without {force: true}: %d", n)
		}
	}
	s.log.Info("Terminating via shutdown command", mongolog.KeyComponent, "COMMAND", mongolog.KeyID, mongolog.IDShutdownCommand,
		"force", force, "timeoutSecs", timeoutSecs)
	if req.conn != nil {
		req.conn.closeNow = true // no reply: the connection closes under the client
	}
	s.cfg.Shutdown(force, timeoutSecs)
	return nil, nil
}

// fromLoopback reports whether the request's client reached the server
// over a loopback address; an in-process connection (lode.InProcess) or a
// request from inside the server counts as local.
func fromLoopback(req *Request) bool {
	if req.conn == nil || req.conn.raw == nil {
		return true
	}
	ta, ok := req.conn.raw.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return true
	}
	return ta.IP.IsLoopback()
}

// indexBuildsRunning counts the createIndexes commands running now.
func (s *Server) indexBuildsRunning() int {
	build := lookupCommand("createIndexes")
	n := 0
	for _, op := range s.ops().snapshot() {
		if lookupCommand(op.name) == build {
			n++
		}
	}
	return n
}
