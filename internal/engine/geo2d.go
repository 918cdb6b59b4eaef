package engine

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/geo"
)

// A 2d index's geohash grid: bits per coordinate over [min, max], from
// the index specification's bits, min and max (mongod's defaults: 26 bits
// over [-180, 180]). The options are kept as given (index.geo2D, the
// catalog entry's "geo2d" document) so that listIndexes shows them as the
// user wrote them, and the grid (index.grid2D) keys documents
// (hash2DKeyValues), bounds $geoWithin scans and sizes $near's annuli
// (plan.Index.Grid2D).

// setGrid2D gives a 2d index its grid from its options (nil: defaults);
// other indexes get none.
func (ix *index) setGrid2D(opts bsoncore.Document) error {
	is2D := false
	for _, f := range ix.fields {
		if f.geo == "2d" {
			is2D = true
		}
	}
	if !is2D {
		return nil
	}
	g := geo.DefaultGrid2D
	if opts != nil {
		var err error
		if g, err = geo.ParseGrid2D(opts); err != nil {
			return fmt.Errorf("2d index %s: %w", ix.name, err)
		}
	}
	ix.geo2D, ix.grid2D = opts, g
	return nil
}

// grid2DEqual reports whether spec asks for ix's 2d grid (an index that
// differs only there is equivalent, not identical: mongod's 85).
func grid2DEqual(ix *index, spec IndexSpec) bool {
	if ix.grid2D == nil {
		return true
	}
	g, err := geo.ParseGrid2D(spec.Geo2D)
	if err != nil {
		return false
	}
	return g.Bits == ix.grid2D.Bits && g.Min == ix.grid2D.Min && g.Max == ix.grid2D.Max
}
