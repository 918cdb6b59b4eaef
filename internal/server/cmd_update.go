package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

func init() { register(cmdUpdate, "update") }

// cmdUpdate applies a batch of update statements.
func cmdUpdate(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	opts := engine.WriteOptions{Ordered: true}
	var stmts []bsoncore.Document
	var let bsoncore.Document
	seen := false
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "updates":
			seen = true
			stmts, err = argDocArray(req.Name, k, v)
		case "ordered":
			opts.Ordered, err = argBool(req.Name, k, v)
		case "bypassDocumentValidation":
			opts.BypassDocumentValidation, err = argBool(req.Name, k, v)
		case "let":
			let, err = argDoc(req.Name, k, v)
		case "stmtId", "stmtIds", "runtimeConstants":
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	if !seen {
		return nil, errs.New(errs.Location40414, "BSON field 'update.updates' is missing but a required field")
	}
	if err := checkBatchSize(len(stmts)); err != nil {
		return nil, err
	}
	specs := make([]engine.UpdateSpec, len(stmts))
	for i, st := range stmts {
		if err := parseUpdateStatement(st, &specs[i]); err != nil {
			return nil, err
		}
		specs[i].Let = let
	}
	wc, err := parseWriteConcern(req)
	if err != nil {
		return nil, err
	}
	opts.Journal = wc.journal
	res, err := s.eng.Update(ctx, req.DB, coll, specs, opts)
	if err != nil {
		return nil, err
	}
	s.stats.update.Add(int64(len(specs)))
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

// parseUpdateStatement reads one {q, u, multi, upsert, arrayFilters, hint}.
func parseUpdateStatement(st bsoncore.Document, spec *engine.UpdateSpec) error {
	const cmd = "update.updates"
	elems, err := st.Elements()
	if err != nil {
		return errs.New(errs.InvalidBSON, "invalid update statement: %v", err)
	}
	hasQ, hasU := false, false
	for _, el := range elems {
		v := el.Value()
		var err error
		switch el.Key() {
		case "q":
			hasQ = true
			spec.Filter, err = argDoc(cmd, "q", v)
		case "u":
			hasU = true
			if v.Type != bsoncore.TypeEmbeddedDocument && v.Type != bsoncore.TypeArray {
				err = errs.New(errs.FailedToParse, "Update argument must be either an object or an array")
			}
			spec.Update = v
		case "multi":
			spec.Multi, err = argBool(cmd, "multi", v)
		case "upsert":
			spec.Upsert, err = argBool(cmd, "upsert", v)
		case "arrayFilters":
			spec.ArrayFilters, err = argDocArray(cmd, "arrayFilters", v)
		case "hint":
			spec.Hint, err = argHint(v)
		case "c":
			spec.Constants, err = argDoc(cmd, "c", v)
		case "collation":
			err = argCollation(cmd, "collation", v)
		case "upsertSupplied", "sampleId", "sort":
		default:
			err = errs.New(errs.Location40415, "BSON field '%s.%s' is an unknown field.", cmd, el.Key())
		}
		if err != nil {
			return err
		}
	}
	if !hasQ {
		return errs.New(errs.Location40414, "BSON field '%s.q' is missing but a required field", cmd)
	}
	if !hasU {
		return errs.New(errs.Location40414, "BSON field '%s.u' is missing but a required field", cmd)
	}
	return nil
}
