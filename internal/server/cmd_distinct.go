package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

func init() { register(cmdDistinct, "distinct") }

// cmdDistinct returns the distinct values of a field.
func cmdDistinct(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	var key string
	hasKey := false
	var filter bsoncore.Document
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "key":
			hasKey = true
			key, err = argString(req.Name, k, v)
		case "query":
			if v.Type != bsoncore.TypeNull {
				filter, err = argDoc(req.Name, k, v)
			}
		case "collation":
			err = argCollation(req.Name, k, v)
		case "hint":
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	if !hasKey {
		return nil, errs.New(errs.Location40414, "BSON field 'distinct.key' is missing but a required field")
	}
	vals, err := s.eng.Distinct(ctx, req.DB, coll, key, filter)
	if err != nil {
		return nil, err
	}
	ab := bsoncore.NewArrayBuilder()
	for _, v := range vals {
		ab.AppendValue(v)
	}
	return bsoncore.NewDocumentBuilder().AppendArray("values", ab.Build()).Build(), nil
}
