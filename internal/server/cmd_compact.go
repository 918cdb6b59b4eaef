package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

func init() {
	register(command{names: []string{"compact"}, handler: cmdCompact, authz: requires(collNeeds(auth.ActCompact)),
		api: apiNotV1, inTxn: no, retryable: no, snapshotRead: no, writeConcern: no, explain: notExplained, applyOps: no,
		observe: observed(opCommand, onColl)})
}

// cmdCompact runs the storage engine's manual compaction over the
// collection's records and index entries (Pebble rewrites the sstables
// of those key ranges, dropping deleted and overwritten versions) and
// replies as mongod 7.0 does: {bytesFreed: n}. As mongod, it refuses to
// run on a replica-set primary (Lode's one-member set) without force:
// true, and refuses a view or a missing collection. Reads and writes go
// on while it runs; maxTimeMS and killOp stop it.
func cmdCompact(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	force := false
	err = eachArgLax(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "force":
			force = expr.Truthy(v) // mongod reads it as trueValue()
			return true, nil
		case "dryRun", "freeSpaceTargetMB":
			return true, errs.New(errs.NotImplemented, "compact.%s is not supported by Lode: it is a MongoDB 8.0 option and Lode implements 7.0's compact", k)
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if s.replSet() && !force {
		return nil, errs.New(errs.IllegalOperation, "will not run compact on an active replica set primary as this will slow down other running operations. use force:true to force")
	}
	freed, err := s.eng.Compact(ctx, req.DB, coll)
	if errs.Is(err, errs.NamespaceNotFound) {
		if v, verr := s.lookupView(ctx, req.DB, coll); verr != nil {
			return nil, verr
		} else if v != nil {
			return nil, errs.New(errs.CommandNotSupportedOnView, "can't compact a view")
		}
	}
	if err != nil {
		return nil, opError(ctx, err)
	}
	b := bsoncore.NewDocumentBuilder()
	// mongod's appendNumber: an int below 2^30, a long above.
	if freed < 1<<30 {
		b.AppendInt32("bytesFreed", int32(freed))
	} else {
		b.AppendInt64("bytesFreed", freed)
	}
	return b.Build(), nil
}
