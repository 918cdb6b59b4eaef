package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

func init() { register(cmdKillCursors, "killCursors") }

// cmdKillCursors closes cursors by id.
func cmdKillCursors(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if _, err := collName(req); err != nil {
		return nil, err
	}
	var ids []int64
	seen := false
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		if k != "cursors" {
			return false, nil
		}
		seen = true
		arr, ok := v.ArrayOK()
		if !ok {
			return true, wrongType(req.Name, k, v, "array")
		}
		vals, _ := arr.Values()
		for _, x := range vals {
			if x.Type != bsoncore.TypeInt64 {
				return true, errs.New(errs.TypeMismatch, "BSON field 'killCursors.cursors' is the wrong type '%s', expected type 'long'", bsonutil.TypeName(x.Type))
			}
			ids = append(ids, x.Int64())
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if !seen {
		return nil, errs.New(errs.Location40414, "BSON field 'killCursors.cursors' is missing but a required field")
	}
	killed, notFound := s.cursors.Kill(ids)
	return bsoncore.NewDocumentBuilder().
		AppendArray("cursorsKilled", int64Array(killed)).
		AppendArray("cursorsNotFound", int64Array(notFound)).
		AppendArray("cursorsAlive", int64Array(nil)).
		AppendArray("cursorsUnknown", int64Array(nil)).
		Build(), nil
}

func int64Array(xs []int64) bsoncore.Array {
	ab := bsoncore.NewArrayBuilder()
	for _, x := range xs {
		ab.AppendInt64(x)
	}
	return ab.Build()
}
