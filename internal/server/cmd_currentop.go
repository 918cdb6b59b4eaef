package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/query"
)

func init() {
	register(admin(cmdCurrentOp, requires(clusterNeeds(auth.ActInprog)), "currentOp"))
}

// cmdCurrentOp lists the running commands (with $all, idle connections
// too) and idle transactions. Fields other than $all, $ownOps and
// $truncateOps are a filter on the entries, as in MongoDB: the
// $currentOp stage's options (idleCursors, localOps, ...) are no options
// of the command, only field names to match.
func cmdCurrentOp(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if req.DB != "admin" {
		return nil, errs.New(errs.Unauthorized, "currentOp may only be run against the admin database.")
	}
	fb := bsoncore.NewDocumentBuilder()
	all := false
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "$all":
			b, ok := v.BooleanOK()
			all = ok && b
			return true, nil
		case "$ownOps":
			// Without authentication every operation is the caller's.
			if s.cfg.Auth && expr.Truthy(v) {
				return true, errs.New(errs.NotImplemented, "currentOp.$ownOps is not supported by Lode with authentication: it does not record which user runs an operation")
			}
			return true, nil
		case "$truncateOps":
			// Whether mongod shortens large command documents in its
			// entries; Lode never shortens them.
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
	// As in mongod, the command is $currentOp with idleConnections: $all.
	ops, err := s.currentOps(ctx, agg.CurrentOpOptions{AllUsers: true, IdleConnections: all, IdleSessions: true})
	if err != nil {
		return nil, err
	}
	ab := bsoncore.NewArrayBuilder()
	for _, d := range ops {
		if f.Match(d) {
			ab.AppendDocument(d)
		}
	}
	return bsoncore.NewDocumentBuilder().AppendArray("inprog", ab.Build()).Build(), nil
}
