package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/wire"
)

func init() { register(cmdInsert, "insert") }

// cmdInsert inserts a batch of documents.
func cmdInsert(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	opts := engine.WriteOptions{Ordered: true}
	var docs []bsoncore.Document
	seen := false
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "documents":
			seen = true
			docs, err = argDocArray(req.Name, k, v)
		case "ordered":
			opts.Ordered, err = argBool(req.Name, k, v)
		case "bypassDocumentValidation":
			opts.BypassDocumentValidation, err = argBool(req.Name, k, v)
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
		return nil, errs.New(errs.Location40414, "BSON field 'insert.documents' is missing but a required field")
	}
	if err := checkBatchSize(len(docs)); err != nil {
		return nil, err
	}
	wc, err := parseWriteConcern(req)
	if err != nil {
		return nil, err
	}
	opts.Journal = wc.journal
	res, err := s.eng.Insert(ctx, req.DB, coll, docs, opts)
	if err != nil {
		return nil, err
	}
	s.stats.insert.Add(int64(res.N))
	if res.N > 0 {
		s.inserts.notify(ns(req.DB, coll))
	}
	b := bsoncore.NewDocumentBuilder().AppendInt32("n", int32(res.N))
	appendWriteErrors(b, res.WriteErrors)
	appendWriteConcernError(b, wc)
	return b.Build(), nil
}

// checkBatchSize enforces MongoDB's maxWriteBatchSize.
func checkBatchSize(n int) error {
	if n < 1 || n > wire.MaxWriteBatchSize {
		return errs.New(errs.InvalidLength, "Write batch sizes must be between 1 and %d. Got %d operations.", wire.MaxWriteBatchSize, n)
	}
	return nil
}
