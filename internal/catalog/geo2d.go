package catalog

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/geo"
)

// A 2d index's geohash grid: bits per coordinate over [min, max], from
// the index specification's bits, min and max (mongod's defaults: 26 bits
// over [-180, 180]). The options are kept as given (Index.Geo2D, the
// catalog entry's "geo2d" document) so that listIndexes shows them as the
// user wrote them, and the grid (Index.Grid2D) keys documents
// (internal/indexkey), bounds $geoWithin scans and sizes $near's annuli
// (plan.Index.Grid2D).

// setGrid2D gives a 2d index its grid from its options (nil: defaults);
// other indexes get none.
func (ix *Index) setGrid2D(opts bsoncore.Document) error {
	is2D := false
	for _, f := range ix.Fields {
		if f.Geo == "2d" {
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
			return fmt.Errorf("2d index %s: %w", ix.Name, err)
		}
	}
	ix.Geo2D, ix.Grid2D = opts, g
	return nil
}

// SameGrid2D reports whether spec asks for ix's 2d grid (an index that
// differs only there is equivalent, not identical: mongod's 85).
func (ix *Index) SameGrid2D(spec IndexSpec) bool {
	if ix.Grid2D == nil {
		return true
	}
	g, err := geo.ParseGrid2D(spec.Geo2D)
	if err != nil {
		return false
	}
	return g.Bits == ix.Grid2D.Bits && g.Min == ix.Grid2D.Min && g.Max == ix.Grid2D.Max
}
