package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

func init() {
	register(admin(cmdDBStats, requires(dbNeeds(auth.ActDBStats)), "dbStats", "dbstats"))
}

// cmdDBStats sums collStats over a database's collections.
func cmdDBStats(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	scale := int64(1)
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "scale":
			var err error
			scale, err = scaleArg(req, k, v)
			return true, err
		case "freeStorage":
			// It adds the free space the storage engine could reuse,
			// which Pebble does not report.
			if expr.Truthy(v) {
				return true, errs.New(errs.NotImplemented, "dbStats.freeStorage is not supported by Lode: its storage engine does not report reusable free space")
			}
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	colls, err := s.eng.ListCollections(req.DB)
	if err != nil {
		return nil, err
	}
	views, err := s.allViews(ctx, req.DB) // views.go
	if err != nil {
		return nil, err
	}
	var objects, dataSize, storage, indexes, indexSize int64
	for _, c := range colls {
		st, err := s.eng.CollectionStats(req.DB, c.Name)
		if err != nil {
			continue // dropped meanwhile
		}
		objects += st.Count
		dataSize += st.Size
		storage += st.StorageSize
		indexes += int64(st.NIndexes)
		indexSize += st.TotalIndexSize
	}
	avg := float64(0)
	if objects > 0 {
		avg = float64(dataSize) / float64(objects)
	}
	fsUsed, fsTotal, _ := s.eng.FSUsage() // 0 and 0 in memory
	return bsoncore.NewDocumentBuilder().
		AppendString("db", req.DB).
		AppendInt64("collections", int64(len(colls))).
		AppendInt64("views", int64(len(views))).
		AppendInt64("objects", objects).
		AppendDouble("avgObjSize", avg).
		AppendDouble("dataSize", float64(dataSize)/float64(scale)).
		AppendDouble("storageSize", float64(storage)/float64(scale)).
		AppendInt64("indexes", indexes).
		AppendDouble("indexSize", float64(indexSize)/float64(scale)).
		AppendDouble("totalSize", float64(storage+indexSize)/float64(scale)).
		AppendInt64("scaleFactor", scale).
		AppendDouble("fsUsedSize", float64(fsUsed)/float64(scale)).
		AppendDouble("fsTotalSize", float64(fsTotal)/float64(scale)).
		Build(), nil
}
