package server

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(command{names: []string{"killCursors"}, handler: cmdKillCursors, authz: authenticated(),
		api: apiV1, inTxn: yes, retryable: no, snapshotRead: no, writeConcern: no, explain: notExplained, applyOps: no,
		observe: observed(opCommand), onCursor: true})
}

// cmdKillCursors closes cursors by id. Under authorization each open
// cursor must be the caller's, or the caller needs killAnyCursor, as in
// mongod; one refused cursor refuses the command (unknown ids are not an
// authorization matter and are reported in cursorsNotFound).
func cmdKillCursors(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if _, err := collName(req); err != nil {
		return nil, err
	}
	var ids []int64
	seen := false
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		if k != "cursors" {
			return false, nil
		}
		seen = true
		arr, ok := v.ArrayOK()
		if !ok {
			return true, wrongType(req.Name, k, v, "array")
		}
		vals, _ := arr.Values()
		for _, x := range vals {
			if x.Type != bsoncore.TypeInt64 {
				return true, errs.New(errs.TypeMismatch, "BSON field 'killCursors.cursors' is the wrong type '%s', expected type 'long'", bsonutil.TypeName(x.Type))
			}
			ids = append(ids, x.Int64())
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if !seen {
		return nil, errs.New(errs.Location40414, "BSON field 'killCursors.cursors' is missing but a required field")
	}
	if s.cfg.Auth {
		g, err := s.connGrants(ctx, req)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if err := s.mayKillCursor(g, id); err != nil {
				return nil, err
			}
		}
	}
	killed, notFound := s.cursors.Kill(ids)
	return bsoncore.NewDocumentBuilder().
		AppendArray("cursorsKilled", int64Array(killed)).
		AppendArray("cursorsNotFound", int64Array(notFound)).
		AppendArray("cursorsAlive", int64Array(nil)).
		AppendArray("cursorsUnknown", int64Array(nil)).
		Build(), nil
}

// mayKillCursor is mongod's checkAuthForKillCursors: killAnyCursor on the
// cluster, the cursor's owner, or killAnyCursor on its collection (its
// database for a listCollections cursor).
func (s *Server) mayKillCursor(g *auth.Grants, id int64) error {
	owner, cns, ok := s.cursors.Owner(id)
	if !ok {
		return nil
	}
	if g.Allowed(auth.ClusterResource, auth.Actions(auth.ActKillAnyCursor)) {
		return nil
	}
	if g != nil && owner == g.User.ID() {
		return nil
	}
	db, coll, _ := strings.Cut(cns, ".")
	target := auth.CollResource(db, coll)
	if coll == "$cmd.listCollections" {
		target = auth.DBResource(db)
	}
	if g.Allowed(target, auth.Actions(auth.ActKillAnyCursor)) {
		return nil
	}
	return errs.New(errs.Unauthorized, "not authorized to kill cursor on %s", cns)
}

func int64Array(xs []int64) bsoncore.Array {
	ab := bsoncore.NewArrayBuilder()
	for _, x := range xs {
		ab.AppendInt64(x)
	}
	return ab.Build()
}
