package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/errs"
	"github.com/lodedb/lode/query"
)

func init() { register(cmdCurrentOp, "currentOp") }

// cmdCurrentOp lists the running commands. Fields other than the options
// below are a filter on the entries, as in MongoDB.
func cmdCurrentOp(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if req.DB != "admin" {
		return nil, errs.New(errs.Unauthorized, "currentOp may only be run against the admin database.")
	}
	fb := bsoncore.NewDocumentBuilder()
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "$all", "$ownOps", "$truncateOps", "idleConnections", "idleCursors", "idleSessions", "localOps", "backtrace", "allUsers":
			return true, nil
		}
		if genericArgs[k] {
			return true, nil
		}
		fb.AppendValue(k, v)
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	f, err := query.Parse(fb.Build())
	if err != nil {
		return nil, err
	}
	ab := bsoncore.NewArrayBuilder()
	for _, op := range s.ops().snapshot() {
		d := op.render(s.host)
		if f.Match(d) {
			ab.AppendDocument(d)
		}
	}
	return bsoncore.NewDocumentBuilder().AppendArray("inprog", ab.Build()).Build(), nil
}
