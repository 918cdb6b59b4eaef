package aggengine

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// PlanCacheStats implements agg.PlanCacheReader.
func (c *Catalog) PlanCacheStats(_ context.Context, db, coll string) ([]bsoncore.Document, error) {
	return c.E.PlanCacheStats(db, coll)
}
