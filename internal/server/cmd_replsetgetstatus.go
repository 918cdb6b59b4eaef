package server

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/oplog"
)

func init() {
	register(admin(cmdReplSetGetStatus, requires(clusterNeeds(auth.ActReplSetGetStatus)), "replSetGetStatus"))
}

// cmdReplSetGetStatus reports the replica set as its one member sees it
// (mongosh's rs.status()): the primary of term 1, its optimes from the
// oplog's newest visible entry, and the election of its start.
func cmdReplSetGetStatus(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if err := s.replSetAdminCommand(req); err != nil {
		return nil, err
	}
	// replSetGetStatus takes initialSync (ignored: a primary has no
	// initial sync to report) and no other option.
	ts, wall := s.lastApplied()
	optime := opTimeDoc(ts, oplog.Term)
	elTS, elDate := s.electionTime()
	now := time.Now()
	optimeDate := time.Unix(int64(ts.Sec()), 0).UnixMilli()
	member := bsoncore.NewDocumentBuilder().
		AppendInt32("_id", 0).
		AppendString("name", s.advertiseAddr(req)).
		AppendDouble("health", 1).
		AppendInt32("state", 1).
		AppendString("stateStr", "PRIMARY").
		AppendInt32("uptime", int32(now.Sub(s.started).Seconds())).
		AppendDocument("optime", optime).
		AppendDateTime("optimeDate", optimeDate).
		AppendDateTime("lastAppliedWallTime", wall.UnixMilli()).
		AppendDateTime("lastDurableWallTime", wall.UnixMilli()).
		AppendString("syncSourceHost", "").
		AppendInt32("syncSourceId", -1).
		AppendString("infoMessage", "").
		AppendTimestamp("electionTime", elTS.Sec(), elTS.Inc()).
		AppendDateTime("electionDate", elDate.UnixMilli()).
		AppendInt32("configVersion", 1).
		AppendInt32("configTerm", 1).
		AppendBoolean("self", true).
		AppendString("lastHeartbeatMessage", "").
		Build()
	return bsoncore.NewDocumentBuilder().
		AppendString("set", s.replSetName()).
		AppendDateTime("date", now.UnixMilli()).
		AppendInt32("myState", 1).
		AppendInt64("term", oplog.Term).
		AppendString("syncSourceHost", "").
		AppendInt32("syncSourceId", -1).
		AppendInt64("heartbeatIntervalMillis", 2000).
		AppendInt32("majorityVoteCount", 1).
		AppendInt32("writeMajorityCount", 1).
		AppendInt32("votingMembersCount", 1).
		AppendInt32("writableVotingMembersCount", 1).
		AppendDocument("optimes", bsoncore.NewDocumentBuilder().
			AppendDocument("lastCommittedOpTime", optime).
			AppendDateTime("lastCommittedWallTime", wall.UnixMilli()).
			AppendDocument("readConcernMajorityOpTime", optime).
			AppendDateTime("readConcernMajorityWallTime", wall.UnixMilli()).
			AppendDocument("appliedOpTime", optime).
			AppendDocument("durableOpTime", optime).
			AppendDateTime("lastAppliedWallTime", wall.UnixMilli()).
			AppendDateTime("lastDurableWallTime", wall.UnixMilli()).
			Build()).
		AppendTimestamp("lastStableRecoveryTimestamp", ts.Sec(), ts.Inc()).
		AppendDocument("electionCandidateMetrics", bsoncore.NewDocumentBuilder().
			AppendString("lastElectionReason", "electionTimeout").
			AppendDateTime("lastElectionDate", elDate.UnixMilli()).
			AppendInt64("electionTerm", oplog.Term).
			AppendDocument("lastCommittedOpTimeAtElection", opTimeDoc(0, -1)).
			AppendDocument("lastSeenOpTimeAtElection", opTimeDoc(0, -1)).
			AppendInt32("numVotesNeeded", 1).
			AppendDouble("priorityAtElection", 1).
			AppendInt64("electionTimeoutMillis", 10000).
			AppendDateTime("newTermStartDate", elDate.UnixMilli()).
			AppendDateTime("wMajorityWriteAvailabilityDate", elDate.UnixMilli()).
			Build()).
		AppendArray("members", bsoncore.NewArrayBuilder().AppendDocument(member).Build()).
		Build(), nil
}
