package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdKillOp, requires(clusterNeeds(auth.ActKillop)), "killOp"))
}

// cmdKillOp interrupts a running operation by its opid. The operation
// fails with Interrupted (11601) at its next check.
func cmdKillOp(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if req.DB != "admin" {
		return nil, errs.New(errs.Unauthorized, "killOp may only be run against the admin database.")
	}
	var id int64
	found := false
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		if k != "op" {
			return false, nil
		}
		n, ok := asInt64(v)
		if !ok {
			return true, errs.New(errs.TypeMismatch, "Did not provide \"op\" field")
		}
		id, found = n, true
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errs.New(errs.BadValue, "Did not provide \"op\" field")
	}
	s.ops().kill(id)
	return bsoncore.NewDocumentBuilder().AppendString("info", "attempting to kill op").Build(), nil
}
