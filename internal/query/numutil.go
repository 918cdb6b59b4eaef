package query

import (
	"github.com/lodedb/lode/internal/bsonutil"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func bsonutil64(v bsoncore.Value) int64 { return bsonutil.AsInt64(v) }

func bsonutilFloat(v bsoncore.Value) float64 { return bsonutil.AsFloat64(v) }
