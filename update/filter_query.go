package update

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/errs"
)

// compileFilter compiles a query condition (array filters and $pull
// conditions). It is wired to the query package's parser.
var compileFilter = func(f bsoncore.Document) (Matcher, error) {
	return nil, errs.New(errs.NotImplemented, "query conditions are not available yet")
}
