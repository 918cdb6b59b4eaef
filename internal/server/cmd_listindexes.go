package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/cursor"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(command{names: []string{"listIndexes"}, handler: cmdListIndexes, authz: requires(collNeeds(auth.ActListIndexes)),
		api: apiV1, inTxn: no, retryable: no, snapshotRead: no, writeConcern: no, explain: notExplained, applyOps: no,
		observe: observed(opCommand, onColl)})
}

// cmdListIndexes returns a collection's index specifications as a cursor
// of {v: 2, key, name, unique?, sparse?, partialFilterExpression?,
// expireAfterSeconds?}.
func cmdListIndexes(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	tso, err := s.timeseriesOf(ctx, req.DB, coll)
	if err != nil {
		return nil, err
	}
	if tso == nil {
		if err := s.refuseView(ctx, req.DB, coll); err != nil {
			return nil, err // views.go
		}
	}
	var batchSize int64
	hasBatch := false
	buildUUIDs, buildInfo := false, false
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "cursor":
			batchSize, hasBatch, err = parseCursorOpt(req.Name, v)
		case "includeBuildUUIDs":
			// It adds the build UUID of indexes being built; Lode's
			// builds finish before createIndexes replies, so there are
			// none and the listing is the same.
			buildUUIDs, err = argBool(req.Name, k, v)
		case "includeIndexBuildInfo":
			buildInfo, err = argBool(req.Name, k, v)
		case "isTimeseriesNamespace":
			err = refuseTimeseriesNS(req.Name, v)
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	if buildUUIDs && buildInfo {
		return nil, errs.New(errs.InvalidOptions, "The 'includeBuildUUIDs' and 'includeIndexBuildInfo' options are mutually exclusive")
	}
	if tso != nil {
		// A time series collection's indexes in its own terms
		// (timeseries_indexes.go).
		docs, err := s.timeseriesIndexSpecs(req.DB, coll, tso)
		if err != nil {
			return nil, err
		}
		if buildInfo {
			for i, d := range docs {
				docs[i] = bsoncore.NewDocumentBuilder().AppendDocument("spec", d).Build()
			}
		}
		c := cursor.New(ns(req.DB, coll), &sliceSource{docs: docs})
		return s.firstBatch(ctx, c, batchSize, hasBatch, false)
	}
	ixs, err := s.eng.ListIndexes(req.DB, coll) // none on local.oplog.rs
	if err != nil {
		return nil, err
	}
	docs := make([]bsoncore.Document, 0, len(ixs))
	for _, ix := range ixs {
		d := ix.IndexSpec.Doc()
		if ix.Clustered != nil {
			d = ix.Clustered
		}
		if buildInfo { // every index is ready: {spec: ...} alone
			d = bsoncore.NewDocumentBuilder().AppendDocument("spec", d).Build()
		}
		docs = append(docs, d)
	}
	c := cursor.New(ns(req.DB, coll), &sliceSource{docs: docs})
	return s.firstBatch(ctx, c, batchSize, hasBatch, false)
}
