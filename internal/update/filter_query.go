package update

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query"
)

// compileFilter compiles a query condition (array filters and $pull
// conditions) with the query package's parser.
func compileFilter(f bsoncore.Document) (Matcher, error) {
	m, err := query.Parse(f)
	if err != nil {
		return nil, err
	}
	if err := query.RefuseText(m); err != nil {
		return nil, err
	}
	return m, nil
}
