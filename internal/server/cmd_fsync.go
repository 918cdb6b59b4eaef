package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdFsync, requires(clusterNeeds(auth.ActFsync)), "fsync"))
}

// cmdFsync flushes every acknowledged write to the data files: the
// memtables are written out as sstables and the write-ahead log is synced,
// as mongod's fsync checkpoints the storage engine. The reply is mongod's
// {numFiles: 1, ok: 1}. Locking writes out (lock: true, and fsyncUnlock)
// is not implemented and is refused.
func cmdFsync(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if req.DB != "admin" {
		return nil, errs.New(errs.Unauthorized, "fsync may only be run against the admin database.")
	}
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "lock":
			if b, ok := v.BooleanOK(); ok && !b {
				return true, nil
			}
			if n, ok := asInt64(v); ok && n == 0 {
				return true, nil
			}
			return true, errs.New(errs.NotImplemented, "fsync with lock is not implemented: Lode cannot block writes for a file-level backup; use mongodump or copy a stopped data directory")
		case "async":
			return true, errs.New(errs.NotImplemented, "fsync's async option is not supported (it was removed from MongoDB)")
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.eng.Flush(); err != nil {
		return nil, errs.Wrap(err, errs.InternalError, "fsync: %v", err)
	}
	return bsoncore.NewDocumentBuilder().AppendInt32("numFiles", 1).Build(), nil
}
