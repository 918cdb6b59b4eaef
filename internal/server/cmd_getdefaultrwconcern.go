package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdGetDefaultRWConcern, requires(clusterNeeds(auth.ActGetDefaultRWConcern)), "getDefaultRWConcern"))
}

// cmdGetDefaultRWConcern reports the default read and write concern.
func cmdGetDefaultRWConcern(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if req.DB != "admin" {
		return nil, errs.New(errs.Unauthorized, "getDefaultRWConcern may only be run against the admin database.")
	}
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		return k == "inMemory", nil
	})
	if err != nil {
		return nil, err
	}
	return rwDefaultsReply(s.rwDefaults()), nil
}
