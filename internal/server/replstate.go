package server

import (
	"crypto/sha256"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/oplog"
)

// The state of the one-member replica set Lode presents, as
// replSetGetStatus, replSetGetConfig and serverStatus's repl section
// report it. The member is always the primary of term 1, elected when the
// server started; its optimes are the oplog's newest visible entry.

// replSetAdminCommand checks what every replica-set command requires: the
// admin database, and a server that presents a replica set.
func (s *Server) replSetAdminCommand(req *Request) error {
	if req.DB != "admin" {
		return errs.New(errs.Unauthorized, "%s may only be run against the admin database.", req.Name)
	}
	if !s.replSet() {
		return errs.New(errs.NoReplicationEnabled, "not running with --replSet")
	}
	return nil
}

// lastApplied returns the member's applied optime: the timestamp and wall
// time of the oplog's newest visible entry. Without an oplog (or before
// its first entry) it is the newest cluster time, at the server's clock.
func (s *Server) lastApplied() (oplog.TS, time.Time) {
	if l := s.eng.Oplog(); l != nil {
		if vis := l.VisibleTS(); vis != 0 {
			wall := time.Unix(int64(vis.Sec()), 0)
			_ = l.ScanReverse(vis, vis, func(_ oplog.TS, doc bsoncore.Document) error {
				if ms, ok := doc.Lookup("wall").DateTimeOK(); ok {
					wall = time.UnixMilli(ms)
				}
				return oplog.ErrStop
			})
			return vis, wall
		}
	}
	ts := s.eng.Clock().Last()
	return ts, time.Unix(int64(ts.Sec()), 0)
}

// opTimeDoc is an optime: {ts, t}.
func opTimeDoc(ts oplog.TS, term int64) bsoncore.Document {
	return bsoncore.NewDocumentBuilder().AppendTimestamp("ts", ts.Sec(), ts.Inc()).AppendInt64("t", term).Build()
}

// electionTime is when the member became primary: when the server
// started (the increment 1 of that second), and electionDate that second.
func (s *Server) electionTime() (oplog.TS, time.Time) {
	sec := s.started.Unix()
	return oplog.MakeTS(uint32(sec), 1), time.Unix(sec, 0)
}

// replicaSetID is the set's settings.replicaSetId: stable for a set
// name, as mongod's is for the life of a set.
func (s *Server) replicaSetID() bson.ObjectID {
	h := sha256.Sum256([]byte("replicaSetId:" + s.replSetName()))
	var id bson.ObjectID
	copy(id[:], h[:12])
	return id
}

// replStatusDoc is serverStatus's repl section: hello's replica-set
// fields, the rollback id and the user write-block mode.
func (s *Server) replStatusDoc(req *Request) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().AppendBoolean("isWritablePrimary", true)
	s.appendReplSetHello(b, req) // hosts, setName, ..., lastWrite (replset.go)
	return b.AppendInt32("rbid", 1).
		AppendInt32("userWriteBlockMode", 1).
		Build()
}

// oplogStatusDoc is serverStatus's lode.oplog section: the log's bound,
// size, entries and the timestamps of its oldest and newest entries.
func (s *Server) oplogStatusDoc() (bsoncore.Document, bool) {
	l := s.eng.Oplog()
	if l == nil {
		return nil, false
	}
	st, err := l.Stats()
	if err != nil {
		return nil, false
	}
	vis := l.VisibleTS()
	trimmed := l.Trimmed()
	return bsoncore.NewDocumentBuilder().
		AppendInt64("maxBytes", st.MaxBytes).
		AppendInt64("bytes", st.Bytes).
		AppendInt64("entries", st.Count).
		AppendTimestamp("first", st.First.Sec(), st.First.Inc()).
		AppendTimestamp("last", st.Last.Sec(), st.Last.Inc()).
		AppendTimestamp("visible", vis.Sec(), vis.Inc()).
		AppendTimestamp("trimmedThrough", trimmed.Sec(), trimmed.Inc()).
		Build(), true
}
