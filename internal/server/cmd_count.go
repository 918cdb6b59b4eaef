package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() { register(cmdCount, "count") }

// cmdCount counts the documents matching a query.
func cmdCount(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	var filter bsoncore.Document
	var skip, limit int64
	var hint bsoncore.Value
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "query":
			if v.Type != bsoncore.TypeNull {
				filter, err = argDoc(req.Name, k, v)
			}
		case "skip":
			skip, err = nonNegative(req.Name, k, v)
		case "limit":
			limit, err = argInt64(req.Name, k, v)
			if limit < 0 {
				limit = -limit
			}
		case "hint":
			hint = v
		case "collation":
			err = argCollation(req.Name, k, v)
		case "fields":
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	n, err := s.eng.Count(ctx, req.DB, coll, filter, skip, limit, hint)
	if err != nil {
		return nil, err
	}
	b := bsoncore.NewDocumentBuilder()
	appendNumber(b, "n", n)
	return b.Build(), nil
}

// appendNumber appends n as int32 when it fits and int64 otherwise, as
// mongod's appendNumber does.
func appendNumber(b *bsoncore.DocumentBuilder, key string, n int64) {
	if n >= -1<<31 && n < 1<<31 {
		b.AppendInt32(key, int32(n))
		return
	}
	b.AppendInt64(key, n)
}
