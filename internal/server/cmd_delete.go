package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

func init() { register(cmdDelete, "delete") }

// cmdDelete applies a batch of delete statements.
func cmdDelete(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
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
		case "deletes":
			seen = true
			stmts, err = argDocArray(req.Name, k, v)
		case "ordered":
			opts.Ordered, err = argBool(req.Name, k, v)
		case "let":
			let, err = argDoc(req.Name, k, v)
		case "stmtId", "stmtIds":
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	if !seen {
		return nil, errs.New(errs.Location40414, "BSON field 'delete.deletes' is missing but a required field")
	}
	if err := checkBatchSize(len(stmts)); err != nil {
		return nil, err
	}
	specs := make([]engine.DeleteSpec, len(stmts))
	for i, st := range stmts {
		if err := parseDeleteStatement(st, &specs[i]); err != nil {
			return nil, err
		}
		specs[i].Let = let
	}
	wc, err := parseWriteConcern(req)
	if err != nil {
		return nil, err
	}
	opts.Journal = wc.journal
	res, err := s.eng.Delete(ctx, req.DB, coll, specs, opts)
	if err != nil {
		return nil, err
	}
	s.stats.delete.Add(int64(len(specs)))
	b := bsoncore.NewDocumentBuilder().AppendInt32("n", int32(res.N))
	appendWriteErrors(b, res.WriteErrors)
	appendWriteConcernError(b, wc)
	return b.Build(), nil
}

// parseDeleteStatement reads one {q, limit, hint}.
func parseDeleteStatement(st bsoncore.Document, spec *engine.DeleteSpec) error {
	const cmd = "delete.deletes"
	elems, err := st.Elements()
	if err != nil {
		return errs.New(errs.InvalidBSON, "invalid delete statement: %v", err)
	}
	hasQ, hasLimit := false, false
	for _, el := range elems {
		v := el.Value()
		var err error
		switch el.Key() {
		case "q":
			hasQ = true
			spec.Filter, err = argDoc(cmd, "q", v)
		case "limit":
			hasLimit = true
			var n int64
			n, err = argInt64(cmd, "limit", v)
			if err == nil && n != 0 && n != 1 {
				err = errs.New(errs.FailedToParse, "The limit field in delete objects must be 0 or 1. Got %d", n)
			}
			spec.Limit = int(n)
		case "hint":
			spec.Hint, err = argHint(v)
		case "collation":
			err = argCollation(cmd, "collation", v)
		case "sampleId":
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
	if !hasLimit {
		return errs.New(errs.Location40414, "BSON field '%s.limit' is missing but a required field", cmd)
	}
	return nil
}
