package server

import (
	"context"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/opstats"
)

func init() {
	// mongod authorizes it by its own action (setUserWriteBlockMode);
	// Lode by setParameter's, which the same built-in roles hold.
	register(admin(cmdSetUserWriteBlockMode, requires(clusterNeeds(auth.ActSetParameter)), "setUserWriteBlockMode"))
}

// cmdSetUserWriteBlockMode is mongod's {setUserWriteBlockMode: 1, global:
// bool}: with global true every later write to a user namespace (any
// database but admin, config and local) fails with UserWritesBlocked
// (372) until it is called with global false. As mongod's, it returns
// once the writes already running have ended, so that a reader of the
// oplog (lode migrate's cutover) knows that nothing after its reply's
// operationTime will be written. As mongod, it keeps the mode across a
// restart, in config.user_writes_critical_sections ({_id: "",
// blockUserWrites: true} while writes are blocked).
func cmdSetUserWriteBlockMode(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if req.DB != "admin" {
		return nil, errs.New(errs.Unauthorized, "setUserWriteBlockMode may only be run against the admin database.")
	}
	global, seen := false, false
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		if genericArgs[k] {
			return true, nil
		}
		if k != "global" {
			return true, errs.New(errs.Location40415, "BSON field 'setUserWriteBlockMode.%s' is an unknown field.", k)
		}
		b, ok := v.BooleanOK()
		if !ok {
			return true, errs.New(errs.TypeMismatch, "BSON field 'setUserWriteBlockMode.global' is the wrong type '%s', expected type 'bool'", bsonutil.TypeName(v.Type))
		}
		global, seen = b, true
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if !seen {
		return nil, errs.New(errs.Location40414, "BSON field 'setUserWriteBlockMode.global' is missing but a required field")
	}
	if err := s.persistUserWriteBlock(ctx, global); err != nil {
		return nil, err
	}
	s.userWritesBlocked.Store(global)
	if global {
		// Wait out the writes that passed the check before the store
		// (dispatch registers an op before it checks).
		self := currentOpOf(ctx)
		for s.userWriteRunning(self) {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Millisecond):
			}
		}
	}
	return bsoncore.NewDocumentBuilder().Build(), nil
}

// currentOpOf is the running op whose context ctx is, or nil.
func currentOpOf(ctx context.Context) *runningOp {
	op, _ := ctx.Value(opstats.ContextKey).(*runningOp)
	return op
}

// userWriteRunning reports a running command, other than self, that
// writes to a user namespace.
func (s *Server) userWriteRunning(self *runningOp) bool {
	for _, op := range s.ops().snapshot() {
		if op == self {
			continue
		}
		if userWrite(op.name, op.db, op.cmd) {
			return true
		}
	}
	return false
}

// checkUserWriteBlock refuses a write to a user namespace: dispatch.go
// calls it while user writes are blocked, once the op is registered.
func checkUserWriteBlock(req *Request) error {
	if !userWrite(req.Name, req.DB, req.Cmd) {
		return nil
	}
	return errs.New(errs.UserWritesBlocked, "User writes blocked")
}

// userWrite reports whether command name on db writes to a user
// namespace: the CRUD and DDL commands on a database other than admin,
// config and local, a rename from or to one, applyOps, a transaction's
// commit, and an aggregate ending in $out or $merge.
func userWrite(name, db string, cmd bsoncore.Document) bool {
	switch name {
	case "insert", "update", "delete", "findAndModify", "findandmodify", "create", "drop", "dropDatabase",
		"createIndexes", "dropIndexes", "deleteIndexes", "collMod", "convertToCapped", "cloneCollectionAsCapped":
		return !internalDB(db)
	case "aggregate":
		return !internalDB(db) && pipelineWrites(&Request{Cmd: cmd})
	case "renameCollection":
		from, _ := cmd.Lookup("renameCollection").StringValueOK()
		to, _ := cmd.Lookup("to").StringValueOK()
		fdb, _, _ := strings.Cut(from, ".")
		tdb, _, _ := strings.Cut(to, ".")
		return !internalDB(fdb) || !internalDB(tdb)
	case "applyOps", "commitTransaction":
		return true
	}
	return false
}

func internalDB(db string) bool { return db == "admin" || db == "config" || db == "local" }

// userWriteBlockColl is where the mode is kept, as mongod keeps it.
const userWriteBlockColl = "user_writes_critical_sections"

// persistUserWriteBlock records the mode durably (a journaled write):
// the document while writes are blocked, none otherwise.
func (s *Server) persistUserWriteBlock(ctx context.Context, global bool) error {
	key := bsoncore.NewDocumentBuilder().AppendString("_id", "").Build()
	if _, err := s.eng.Delete(ctx, "config", userWriteBlockColl, []engine.DeleteSpec{{Filter: key, Limit: 1}}, engine.WriteOptions{Journal: !global}); err != nil && !errs.Is(err, errs.NamespaceNotFound) {
		return err
	}
	if !global {
		return nil
	}
	doc := bsoncore.NewDocumentBuilder().AppendString("_id", "").AppendBoolean("blockUserWrites", true).Build()
	_, err := s.eng.Insert(ctx, "config", userWriteBlockColl, []bsoncore.Document{doc}, engine.WriteOptions{Ordered: true, Journal: true})
	return err
}

// loadUserWriteBlock restores the mode at startup (server.go New).
func (s *Server) loadUserWriteBlock() {
	it, err := s.eng.Find(context.Background(), "config", userWriteBlockColl, engine.FindSpec{})
	if err != nil {
		return // no such collection: writes were never blocked
	}
	defer it.Close()
	for {
		d, err := it.Next()
		if err != nil || d == nil {
			return
		}
		if b, ok := d.Lookup("blockUserWrites").BooleanOK(); ok && b {
			s.userWritesBlocked.Store(true)
			s.log.Info("user writes are blocked (setUserWriteBlockMode), as before the restart")
			return
		}
	}
}
