package scenarios

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/internal/sim"
	"github.com/lodedb/lode/patterns/metadata"
)

var (
	mimes  = []string{"image/jpeg", "image/png", "image/gif", "image/tiff"}
	makes  = []string{"Canon", "Nikon", "Sony", "Fujifilm", "Olympus", "Apple"}
	flashs = []string{"No, auto", "Yes", "No", "Yes, red-eye"}
)

// imagePairs is image i's metadata, shaped like seed 002's example.
func imagePairs(i int) []metadata.Pair {
	mk := makes[i%len(makes)]
	return []metadata.Pair{
		metadata.P("File Name", fmt.Sprintf("img_%d.jpg", i)),
		metadata.P("File size", 20000+i%50000),
		metadata.P("MIME type", mimes[i%len(mimes)]),
		metadata.P("Image size", metadata.Size{Width: 480 + 160*(i%4), Height: 360 + 120*(i%4)}),
		metadata.P("Camera make", mk),
		metadata.P("Camera model", fmt.Sprintf("%s Model %d", mk, i%20)),
		metadata.P("Image timestamp", time.Date(2014, 1, 1, 10, 1, 0, 0, time.UTC).Add(time.Duration(i)*time.Minute)),
		metadata.P("Image number", fmt.Sprintf("%d-%d", 100+i%900, i)),
		metadata.P("Exposure time", fmt.Sprintf("1/%d s", 60*(1+i%10))),
		metadata.P("Aperture", fmt.Sprintf("F%.1f", 1.8+float64(i%8)*0.5)),
		metadata.P("Exposure bias", "0 EV"),
		metadata.P("Flash", flashs[i%len(flashs)]),
	}
}

func init() {
	sim.Register(&sim.Scenario{
		Name: "metadata",
		Seed: "002",
		Description: "Images with key/value metadata arrays and the index {\"metadata.key\": 1, \"metadata.value\": 1}. " +
			"Op: metadata.Store.Find of a random image by two pairs (File Name and MIME type): $all of two $elemMatch, returning one document.",
		Defaults: sim.Params{"preload": 10000, "indexes": true},
		Setup: func(ctx context.Context, db *mongo.Database, p sim.Params, progress sim.Progress) error {
			c := coll(db, p)
			if err := drop(ctx, c, p); err != nil {
				return err
			}
			err := preload(ctx, c, p.Int("preload", 10000), func(i int) any {
				return bson.D{{Key: "_id", Value: i}, {Key: "metadata", Value: imagePairs(i)}}
			}, progress)
			if err != nil {
				return err
			}
			return withIndexes(p, func() error { return metadata.New(c).EnsureIndexes(ctx) })
		},
		Bind: func(ctx context.Context, db *mongo.Database, p sim.Params) (sim.Op, error) {
			st := metadata.New(coll(db, p))
			n := max(p.Int("preload", 10000), 1)
			return func(ctx context.Context) error {
				i := rand.IntN(n)
				docs, err := st.Find(ctx,
					metadata.P("File Name", fmt.Sprintf("img_%d.jpg", i)),
					metadata.P("MIME type", mimes[i%len(mimes)]))
				if err != nil {
					return err
				}
				if p.Int("preload", 10000) > 0 && len(docs) != 1 {
					return fmt.Errorf("metadata: found %d documents for image %d, want 1", len(docs), i)
				}
				return nil
			}, nil
		},
		Teardown: dropTeardown,
	})
}
