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
	ixs, err := s.eng.ListIndexes(req.DB, coll)
	if err != nil {
		return nil, err
	}
	docs := make([]bsoncore.Document, 0, len(ixs))
	for _, ix := range ixs {
		docs = append(docs, indexSpecDoc(ix.IndexSpec))
	}
	c := cursor.New(ns(req.DB, coll), &sliceSource{docs: docs})
	return s.firstBatch(ctx, c, batchSize, hasBatch, false)
}

// indexSpecDoc renders an index specification as listIndexes shows it.
func indexSpecDoc(spec engine.IndexSpec) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().
		AppendInt32("v", 2).
		AppendDocument("key", spec.Key).
		AppendString("name", spec.Name)
	if spec.Unique && spec.Name != "_id_" {
		// MongoDB's _id index is unique without saying so in its spec.
		b.AppendBoolean("unique", true)
	}
	if spec.Sparse {
		b.AppendBoolean("sparse", true)
	}
	if spec.PartialFilterExpression != nil {
		b.AppendDocument("partialFilterExpression", spec.PartialFilterExpression)
	}
	if spec.ExpireAfterSeconds != nil {
		n := *spec.ExpireAfterSeconds
		if n >= -1<<31 && n < 1<<31 {
			b.AppendInt32("expireAfterSeconds", int32(n))
		} else {
			b.AppendInt64("expireAfterSeconds", n)
		}
	}
	return b.Build()
}
