package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(command{names: []string{"update"}, handler: cmdUpdate, authz: requires(bypassNeeds(updateNeeds)),
		api: apiV1, inTxn: yes, retryable: yes, snapshotRead: no, writeConcern: yes, ownWriteConcern: true, explain: &explainer{plan: explainUpdate}, applyOps: no,
		observe: observed(opUpdate, onColl),
		shape:   &shapeForm{perStatement: true, filter: "q", update: "u", flags: []string{"multi", "upsert"}}, stmts: "updates",
		retry: &retryForm{dflt: stmtResult{n: 1, nModified: 1}, counts: countN | countModified | countUpserted}})
}

// cmdUpdate applies a batch of update statements.
func cmdUpdate(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	batch, specs, err := parseUpdate(req)
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
	if o, err := s.timeseriesOf(ctx, req.DB, coll); err != nil {
		return nil, err
	} else if o != nil {
		res, err := s.timeseriesUpdate(ctx, req.DB, coll, o, specs, opts) // timeseries_writes.go
		if err != nil {
			return nil, err
		}
		s.stats.update.Add(int64(len(specs)))
		if err := checkUpdatePipelines(specs); err != nil {
			return nil, err
		}
		b := bsoncore.NewDocumentBuilder().
			AppendInt32("n", int32(res.N)).
			AppendInt32("nModified", int32(res.NModified))
		appendWriteErrors(b, res.WriteErrors)
		appendWriteConcernError(b, wc)
		return b.Build(), nil
	}
	if reply, err := s.viewBatchReply(ctx, req.DB, batch, "nModified"); err != nil || reply != nil {
		return reply, err // views.go
	}
	if !batch.bypassEmptyTs {
		for i := range specs {
			specs[i].Update = s.replaceEmptyTimestampsInReplacement(specs[i].Update)
		}
	}
	res, err := s.eng.Update(ctx, req.DB, coll, specs, opts)
	if err != nil {
		return nil, err
	}
	s.stats.update.Add(int64(len(specs)))
	if err := checkUpdatePipelines(specs); err != nil {
		return nil, err
	}
	if len(res.Upserted) > 0 {
		s.inserts.notify(ns(req.DB, coll))
	}
	b := bsoncore.NewDocumentBuilder().
		AppendInt32("n", int32(res.N)).
		AppendInt32("nModified", int32(res.NModified))
	if len(res.Upserted) > 0 {
		ab := bsoncore.NewArrayBuilder()
		for _, u := range res.Upserted {
			ab.AppendDocument(bsoncore.NewDocumentBuilder().
				AppendInt32("index", int32(u.Index)).
				AppendValue("_id", u.ID).Build())
		}
		b.AppendArray("upserted", ab.Build())
	}
	appendWriteErrors(b, res.WriteErrors)
	appendWriteConcernError(b, wc)
	return b.Build(), nil
}

// checkUpdatePipelines fails an update command whose statements include
// a pipeline with a malformed or unknown stage, once the statements have
// run: mongod counts each pipeline's stages after applying the batch
// (write_commands.cpp, the update metrics), and the lite parse that
// counts them fails the command then, the writes before it applied and
// the statement's own write error replaced by the command's. A stage
// that is known but not allowed in an update stays that statement's
// write error (72).
func checkUpdatePipelines(specs []engine.UpdateSpec) error {
	for _, sp := range specs {
		if a, ok := sp.Update.ArrayOK(); ok {
			if err := agg.CheckStageNames(a); err != nil {
				return err
			}
		}
	}
	return nil
}

// parseUpdate reads an update command and its statements (not its write
// concern); explain parses the update it explains with it too, so both
// reject the same arguments with the same errors.
func parseUpdate(req *Request) (writeBatch, []engine.UpdateSpec, error) {
	b, err := parseWriteBatch(req, "updates", batchFields{let: true, bypass: true, runtimeConstants: true, bypassEmptyTs: true})
	if err != nil {
		return b, nil, err
	}
	specs, err := parseStatements(b, parseUpdateStatement)
	return b, specs, err
}

// parseUpdateStatement reads one {q, u, multi, upsert, arrayFilters, hint}.
func parseUpdateStatement(st, let bsoncore.Document, spec *engine.UpdateSpec) error {
	const cmd = "update.updates"
	spec.Let = let
	return parseStatement(cmd, st, []string{"q", "u"}, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "q":
			spec.Filter, err = argDoc(cmd, k, v)
		case "u":
			if v.Type != bsoncore.TypeEmbeddedDocument && v.Type != bsoncore.TypeArray {
				err = errs.New(errs.FailedToParse, "Update argument must be either an object or an array")
			} else if a, ok := v.ArrayOK(); ok {
				// A stage that is not an object fails the command before any
				// statement runs, as mongod's parsing of the command does.
				err = agg.CheckStageObjects(a)
			}
			spec.Update = v
		case "multi":
			spec.Multi, err = argBool(cmd, k, v)
		case "upsert":
			spec.Upsert, err = argBool(cmd, k, v)
		case "arrayFilters":
			spec.ArrayFilters, err = argDocArray(cmd, k, v)
		case "hint":
			spec.Hint, err = argHint(v)
		case "c":
			spec.Constants, err = argDoc(cmd, k, v)
		case "collation":
			spec.Collation, err = argCollationDoc(cmd, k, v)
		case "upsertSupplied":
			// mongos's flag that c.new holds the document to upsert.
			var on bool
			if on, err = argBool(cmd, k, v); err == nil && on {
				err = errs.New(errs.NotImplemented, "%s.upsertSupplied is not supported by Lode: it is an internal option of mongos", cmd)
			}
		case "sort":
			// A MongoDB 8.0 field (7.0 does not know it): which document
			// a single update picks. Refused rather than ignored.
			err = errs.New(errs.NotImplemented, "%s.sort is not supported by Lode: it follows MongoDB 7.0, where an update statement has no sort", cmd)
		case "sampleId", "$_allowShardKeyUpdatesWithoutFullShardKeyInQuery":
			// Query sampling and shard key updates of sharded clusters:
			// no effect on a server that is no shard.
		default:
			return false, nil
		}
		return true, err
	})
}
