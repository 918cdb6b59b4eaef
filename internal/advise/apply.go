package advise

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Apply builds the report's proposals with createIndexes and returns the
// names of the indexes built, in proposal order.
func Apply(ctx context.Context, client *mongo.Client, rep *Report) ([]string, error) {
	var built []string
	for _, p := range rep.Proposals {
		c := client.Database(p.DB).Collection(p.Coll)
		name, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: p.Key.D(), Options: options.Index().SetName(p.Name)})
		if err != nil {
			return built, fmt.Errorf("advise: create %s on %s: %w", p.Key, p.NS(), err)
		}
		built = append(built, name)
	}
	return built, nil
}
