package engine

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/oplog"
)

// The oplog's namespace. Clients read the log as local.oplog.rs, a
// system collection whose records are the log's entries (oplogcoll.go);
// no command writes to it or drops it, as on a mongod replica-set member.

// OplogDB and OplogColl name the namespace the oplog is read as.
const (
	OplogDB   = "local"
	OplogColl = "oplog.rs"
)

// IsOplogNS reports whether db.coll is local.oplog.rs.
func IsOplogNS(db, coll string) bool { return db == OplogDB && coll == OplogColl }

// checkNotOplog refuses a write to local.oplog.rs with mongod's error
// (userAllowedWriteNS on a replica-set member).
func checkNotOplog(db, coll string) error {
	if IsOplogNS(db, coll) {
		return errs.New(errs.InvalidNamespace, "cannot write to %s.%s", db, coll)
	}
	return nil
}

// checkNotOplogDrop refuses to drop local.oplog.rs, as mongod does while
// it replicates.
func checkNotOplogDrop(db, coll string) error {
	if IsOplogNS(db, coll) {
		return errs.New(errs.IllegalOperation, "can't drop live oplog while replicating")
	}
	return nil
}

// startOplog writes the first entry of a new, empty log: mongod's
// replica-set initiation no-op. A log always has an entry to read, so
// the newest and oldest entries (mongodump --oplog, mongosh's
// db.getReplicationInfo()) and the member's optime exist from the start.
func (e *Engine) startOplog() error {
	st, err := e.oplog.Stats()
	if err != nil {
		return err
	}
	if st.Count > 0 || e.oplog.Trimmed() != 0 {
		return nil
	}
	o := bsoncore.NewDocumentBuilder().AppendString("msg", "initiating set").Build()
	return e.commitLogged(e.db.NewBatch(), oplog.Entry{Op: oplog.OpNoop, NS: "", O: o})
}
