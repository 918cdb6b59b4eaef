package advise

import (
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/queryshape"
)

// ShapeOf returns a filter's shape in the $queryStats form, the same
// function the server's query statistics use (internal/queryshape):
// literals become "?number", "?string", "?date", ...; an array
// "?array<?type>" (or "?array<>" when mixed or empty); implicit equality
// becomes {$eq: ...}; operator documents keep their operators. The
// Recorder groups by it, so its shapes are the server's.
func ShapeOf(filter bson.Raw) bson.Raw {
	return bson.Raw(queryshape.Filter(bsoncore.Document(filter)))
}
