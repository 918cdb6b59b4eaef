package validation

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// TestExprValidatorWithNow: a validator may use $expr with $$NOW.
func TestExprValidatorWithNow(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := createWith(t, d, "now", bson.E{Key: "validator", Value: bson.D{{Key: "$expr", Value: bson.D{{Key: "$lte", Value: bson.A{"$at", "$$NOW"}}}}}})
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "at", Value: time.Now().Add(-time.Hour)}}); err != nil {
		t.Errorf("past date: %v", err)
	}
	_, err := coll.InsertOne(ctx, bson.D{{Key: "at", Value: time.Now().Add(time.Hour)}})
	wantValidationFailure(t, "future date", err)
}
