package update

import (
	"github.com/lodedb/lode/internal/collation"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query"
)

// compileFilter compiles a query condition (array filters and $pull
// conditions) with the query package's parser.
func compileFilter(f bsoncore.Document) (Matcher, error) {
	return compileFilterColl(f, nil)
}

// compileFilterColl is compileFilter under a collation (nil: simple).
func compileFilterColl(f bsoncore.Document, coll *collation.Collator) (Matcher, error) {
	m, err := query.ParseCollated(f, nil, nil, coll)
	if err != nil {
		return nil, err
	}
	if err := query.RefuseText(m); err != nil {
		return nil, err
	}
	return m, nil
}
