package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/cursor"
	"github.com/lodedb/lode/internal/engine"
)

func init() { register(cmdListIndexes, "listIndexes") }

// cmdListIndexes returns a collection's index specifications as a cursor
// of {v: 2, key, name, unique?, sparse?, partialFilterExpression?,
// expireAfterSeconds?}.
func cmdListIndexes(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	if err := s.refuseView(ctx, req.DB, coll); err != nil {
		return nil, err // views.go
	}
	var batchSize int64
	hasBatch := false
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "cursor":
			batchSize, hasBatch, err = parseCursorOpt(req.Name, v)
		case "includeBuildUUIDs", "includeIndexBuildInfo":
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	var ixs []engine.IndexInfo
	if !s.oplogNS(req.DB, coll) { // the oplog has no index
		if ixs, err = s.eng.ListIndexes(req.DB, coll); err != nil {
			return nil, err
		}
	}
	docs := make([]bsoncore.Document, 0, len(ixs))
	for _, ix := range ixs {
		docs = append(docs, ix.IndexSpec.Doc())
	}
	c := cursor.New(ns(req.DB, coll), &sliceSource{docs: docs})
	return s.firstBatch(ctx, c, batchSize, hasBatch, false)
}
