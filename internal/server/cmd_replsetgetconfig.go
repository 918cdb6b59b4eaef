package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/oplog"
)

func init() {
	register(admin(cmdReplSetGetConfig, requires(clusterNeeds(auth.ActReplSetGetConfig)), "replSetGetConfig"))
}

// cmdReplSetGetConfig returns the replica set's configuration (mongosh's
// rs.conf()): one voting, electable member at the advertised address,
// version 1 of term 1, with mongod's default settings.
func cmdReplSetGetConfig(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if err := s.replSetAdminCommand(req); err != nil {
		return nil, err
	}
	commitment := false
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "commitmentStatus":
			var err error
			commitment, err = argBool(req.Name, k, v)
			return true, err
		case "includeNewlyAdded":
			_, err := argBool(req.Name, k, v)
			return true, err
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	empty := bsoncore.NewDocumentBuilder().Build()
	member := bsoncore.NewDocumentBuilder().
		AppendInt32("_id", 0).
		AppendString("host", s.advertiseAddr(req)).
		AppendBoolean("arbiterOnly", false).
		AppendBoolean("buildIndexes", true).
		AppendBoolean("hidden", false).
		AppendDouble("priority", 1).
		AppendDocument("tags", empty).
		AppendInt64("secondaryDelaySecs", 0).
		AppendInt32("votes", 1).
		Build()
	config := bsoncore.NewDocumentBuilder().
		AppendString("_id", s.replSetName()).
		AppendInt32("version", 1).
		AppendInt32("term", oplog.Term).
		AppendArray("members", bsoncore.NewArrayBuilder().AppendDocument(member).Build()).
		AppendInt64("protocolVersion", 1).
		AppendBoolean("writeConcernMajorityJournalDefault", true).
		AppendDocument("settings", bsoncore.NewDocumentBuilder().
			AppendBoolean("chainingAllowed", true).
			AppendInt32("heartbeatIntervalMillis", 2000).
			AppendInt32("heartbeatTimeoutSecs", 10).
			AppendInt32("electionTimeoutMillis", 10000).
			AppendInt32("catchUpTimeoutMillis", -1).
			AppendInt32("catchUpTakeoverDelayMillis", 30000).
			AppendDocument("getLastErrorModes", empty).
			AppendDocument("getLastErrorDefaults", bsoncore.NewDocumentBuilder().
				AppendInt32("w", 1).AppendInt32("wtimeout", 0).Build()).
			AppendObjectID("replicaSetId", s.replicaSetID()).
			Build()).
		Build()
	b := bsoncore.NewDocumentBuilder().AppendDocument("config", config)
	if commitment {
		// A one-member set's configuration is committed once it exists.
		b.AppendBoolean("commitmentStatus", true)
	}
	return b.Build(), nil
}
