package migrate

import (
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
)

// compareValues orders two values as the servers sort them (simple
// collation), the order of a find sorted by _id: MongoDB's comparison
// (bsonutil.Compare).
func compareValues(a, b bson.RawValue) int {
	return bsonutil.Compare(bsoncore.Value{Type: bsoncore.Type(a.Type), Data: a.Value},
		bsoncore.Value{Type: bsoncore.Type(b.Type), Data: b.Value})
}
