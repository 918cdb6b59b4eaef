package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(command{names: []string{"delete"}, handler: cmdDelete, authz: requires(collNeeds(auth.ActRemove)),
		api: apiV1, inTxn: yes, retryable: yes, snapshotRead: no, writeConcern: yes, ownWriteConcern: true, explain: &explainer{plan: explainDelete}, applyOps: no,
		observe: observed(opRemove, onColl),
		shape:   &shapeForm{perStatement: true, filter: "q", stmtLimit: true}, stmts: "deletes",
		retry: &retryForm{dflt: stmtResult{n: 1}, counts: countN}})
}

// cmdDelete applies a batch of delete statements.
func cmdDelete(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	batch, specs, err := parseDelete(req)
	if err != nil {
		return nil, err
	}
	coll, opts := batch.coll, batch.opts
	wc, err := parseWriteConcern(req)
	if err != nil {
		return nil, err
	}
	opts.Journal = wc.journal
	if err := s.checkBatchUUID(req.DB, batch); err != nil {
		return nil, err
	}
	var res engine.DeleteResult
	if o, err := s.timeseriesOf(ctx, req.DB, coll); err != nil {
		return nil, err
	} else if o != nil {
		res, err = s.timeseriesDelete(ctx, req.DB, coll, o, specs, opts) // timeseries_writes.go
		if err != nil {
			return nil, err
		}
	} else if reply, err := s.viewBatchReply(ctx, req.DB, batch); err != nil || reply != nil {
		return reply, err // views.go
	} else if res, err = s.eng.Delete(ctx, req.DB, coll, specs, opts); err != nil {
		return nil, err
	}
	s.stats.delete.Add(int64(len(specs)))
	b := bsoncore.NewDocumentBuilder().AppendInt32("n", int32(res.N))
	appendWriteErrors(b, res.WriteErrors)
	appendWriteConcernError(b, wc)
	return b.Build(), nil
}

// parseDelete reads a delete command and its statements (not its write
// concern); explain parses the delete it explains with it too, so both
// reject the same arguments with the same errors.
func parseDelete(req *Request) (writeBatch, []engine.DeleteSpec, error) {
	b, err := parseWriteBatch(req, "deletes", batchFields{let: true, bypass: true, runtimeConstants: true, bypassEmptyTs: true})
	if err != nil {
		return b, nil, err
	}
	specs, err := parseStatements(b, parseDeleteStatement)
	return b, specs, err
}

// parseDeleteStatement reads one {q, limit, hint}.
func parseDeleteStatement(st, let bsoncore.Document, spec *engine.DeleteSpec) error {
	const cmd = "delete.deletes"
	spec.Let = let
	return parseStatement(cmd, st, []string{"q", "limit"}, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "q":
			spec.Filter, err = argDoc(cmd, k, v)
		case "limit":
			var n int64
			n, err = argInt64(cmd, k, v)
			if err == nil && n != 0 && n != 1 {
				err = errs.New(errs.FailedToParse, "The limit field in delete objects must be 0 or 1. Got %d", n)
			}
			spec.Limit = int(n)
		case "hint":
			spec.Hint, err = argHint(v)
		case "collation":
			spec.Collation, err = argCollationDoc(cmd, k, v)
		case "sampleId":
		default:
			return false, nil
		}
		return true, err
	})
}
