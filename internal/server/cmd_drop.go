package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/timeseries"
)

func init() {
	register(command{names: []string{"drop"}, handler: cmdDrop, authz: requires(collNeeds(auth.ActDropCollection)),
		api: apiV1, inTxn: no, retryable: no, snapshotRead: no, writeConcern: yes, explain: notExplained, applyOps: yes,
		observe: observed(opCommand, onColl), applyOpsGoneOK: true})
}

// cmdDrop drops a collection. As in MongoDB 7.0, dropping a collection
// that does not exist succeeds.
func cmdDrop(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	if err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		if k == "collectionUUID" {
			return true, s.argCollectionUUID(req.Name, req.DB, coll, v)
		}
		return false, nil
	}); err != nil {
		return nil, err
	}
	if v, err := s.lookupView(ctx, req.DB, coll); err != nil {
		return nil, err
	} else if v != nil {
		ts := s.timeseriesOfView(req.DB, v) != nil
		if err := s.dropView(ctx, req.DB, coll); err != nil {
			return nil, err
		}
		if ts {
			// A time series collection: its buckets go with its view.
			if err := s.eng.DropCollection(req.DB, timeseries.BucketsName(coll)); err != nil && !errs.Is(err, errs.NamespaceNotFound) {
				return nil, err
			}
		}
		return bsoncore.NewDocumentBuilder().AppendString("ns", ns(req.DB, coll)).Build(), nil
	}
	if s.eng.TimeseriesOptions(req.DB, timeseries.BucketsName(coll)) != nil && s.eng.CollectionOptions(req.DB, coll) == nil {
		// Buckets without their view (a restore cut short): dropping the
		// time series collection drops them.
		if err := s.eng.DropCollection(req.DB, timeseries.BucketsName(coll)); err != nil && !errs.Is(err, errs.NamespaceNotFound) {
			return nil, err
		}
		return bsoncore.NewDocumentBuilder().AppendString("ns", ns(req.DB, coll)).Build(), nil
	}
	err = s.eng.DropCollection(req.DB, coll)
	if errs.Is(err, errs.NamespaceNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return bsoncore.NewDocumentBuilder().AppendString("ns", ns(req.DB, coll)).Build(), nil
}
