package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/timeseries"
)

func init() {
	register(command{names: []string{"collStats", "collstats"}, handler: cmdCollStats, authz: requires(collNeeds(auth.ActCollStats)),
		api: apiNotV1, inTxn: no, retryable: no, snapshotRead: no, writeConcern: no, explain: notExplained, applyOps: no,
		observe: observed(opCommand, onColl)})
}

// scaleArg reads the optional scale argument (default 1).
func scaleArg(req *Request, k string, v bsoncore.Value) (int64, error) {
	n, ok := asInt64(v)
	if !ok {
		return 0, wrongType(req.Name, k, v, "number")
	}
	if n < 1 {
		return 0, errs.New(errs.BadValue, "Scale factor must be a positive integer")
	}
	return n, nil
}

// cmdCollStats reports a collection's sizes as MongoDB's collStats does.
// Sizes on disk are Pebble's estimates for the collection's key ranges.
func cmdCollStats(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	statsColl := coll
	var tsSection bsoncore.Document
	if o, err := s.timeseriesOf(ctx, req.DB, coll); err != nil {
		return nil, err
	} else if o != nil {
		// A time series collection: its buckets' figures, with the
		// timeseries section (create_timeseries.go).
		statsColl = timeseries.BucketsName(coll)
		if tsSection, err = s.timeseriesStats(req.DB, statsColl); err != nil {
			return nil, err
		}
	} else if err := s.refuseView(ctx, req.DB, coll); err != nil {
		return nil, err // views.go
	}
	scale := int64(1)
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "scale":
			var err error
			scale, err = scaleArg(req, k, v)
			return true, err
		case "verbose":
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	st, err := s.eng.CollectionStats(req.DB, statsColl) // local.oplog.rs too
	if err != nil {
		if errs.Is(err, errs.NamespaceNotFound) {
			return nil, errs.New(errs.NamespaceNotFound, "Collection [%s.%s] not found.", req.DB, coll)
		}
		return nil, err
	}
	avg := int64(0)
	if st.Count > 0 {
		avg = st.Size / st.Count
	}
	sizes := bsoncore.NewDocumentBuilder()
	infos, _ := s.eng.ListIndexes(req.DB, statsColl)
	for _, ix := range infos {
		if ix.Clustered == nil { // the clustered index is the records
			sizes.AppendInt64(ix.Name, st.IndexSizes[ix.Name]/scale)
		}
	}
	b := bsoncore.NewDocumentBuilder().
		AppendString("ns", ns(req.DB, coll))
	if tsSection != nil {
		// mongod reports the buckets' sizes without a count of
		// measurements.
		b.AppendDocument("timeseries", tsSection).AppendInt64("size", st.Size/scale)
	} else {
		b.AppendInt64("size", st.Size/scale).
			AppendInt64("count", st.Count).
			AppendInt64("avgObjSize", avg)
	}
	b.
		AppendInt64("numOrphanDocs", 0).
		AppendInt64("storageSize", st.StorageSize/scale).
		AppendInt64("freeStorageSize", 0).
		AppendBoolean("capped", st.Capped)
	if st.Capped {
		if st.Max > 0 {
			b.AppendInt64("max", st.Max)
		}
		b.AppendInt64("maxSize", st.MaxSize/scale)
	}
	return b.
		AppendInt32("nindexes", int32(st.NIndexes)).
		AppendArray("indexBuilds", bsoncore.NewArrayBuilder().Build()).
		AppendInt64("totalIndexSize", st.TotalIndexSize/scale).
		AppendInt64("totalSize", (st.StorageSize+st.TotalIndexSize)/scale).
		AppendDocument("indexSizes", sizes.Build()).
		AppendInt64("scaleFactor", scale).
		Build(), nil
}
