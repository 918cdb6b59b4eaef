package plan

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/geo"
	"github.com/lodedb/lode/internal/query"
)

// geoOIL returns the 2dsphere bounds of a $geoWithin or $geoIntersects
// on the sphere: the key intervals of the cells that cover its region and
// of their ancestors (geo.QueryRanges). The flat legacy shapes ($box,
// $polygon, $center) have no 2dsphere bounds.
func geoOIL(n query.Node) (OIL, bool) {
	g, ok := n.(*query.GeoNode)
	if !ok {
		return nil, false
	}
	var ranges []geo.Range
	switch {
	case g.Intersects != nil:
		ranges = geo.QueryRanges(geo.RegionOf(g.Intersects))
	case g.Within != nil && g.Within.Spherical():
		ranges = geo.QueryRanges(g.Within.RegionOfWithin())
	default:
		return nil, false
	}
	return rangesOIL(ranges), true
}

// RangesOIL converts cell key ranges into an interval list of longs.
func rangesOIL(rs []geo.Range) OIL {
	oil := make(OIL, 0, len(rs))
	for _, r := range rs {
		oil = append(oil, Interval{Lo: longV(r.Lo), Hi: longV(r.Hi), LoInc: true, HiInc: true})
	}
	return oil
}

// RangesOIL is rangesOIL for the executor's annulus scans.
func RangesOIL(rs []geo.Range) OIL { return rangesOIL(rs) }

func longV(x int64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeInt64, Data: bsoncore.AppendInt64(nil, x)}
}

// hasGeo reports whether ix has a geo field, and its position.
func (ix *Index) geoField() int {
	for i, f := range ix.Fields {
		if f.Geo != "" {
			return i
		}
	}
	return -1
}

// geoUsable: a 2dsphere index holds no entry for documents without a
// geometry (it is sparse on its geo field), so it serves only queries
// that bound its geo field.
func geoUsable(ix *Index, b boundsResult) bool {
	i := ix.geoField()
	return i < 0 || !b.fields[i].OIL.IsFull()
}

// errNoGeoIndex is mongod's planner error for a $near without an index.
func errNoGeoIndex() error {
	return errs.New(errs.NoQueryExecutionPlans, "error processing query: planner returned error :: caused by :: unable to find index for $geoNear query")
}

// nearSolutions plans a query with $near/$nearSphere: GEO_NEAR_2DSPHERE
// over the first 2dsphere index whose geo field is the near path, FETCH
// applying the rest of the filter above it. A flat $near needs a 2d index,
// which Lode does not build.
func nearSolutions(p Params, near *query.NearNode) ([]*Solution, error) {
	var hinted *Index
	if p.Hint.Type != 0 {
		ix, natural, err := resolveHint(p)
		if err != nil {
			return nil, err
		}
		if natural != 0 {
			return nil, errNoGeoIndex()
		}
		hinted = ix
	}
	// A GeoJSON point needs a 2dsphere index; a legacy pair takes a 2d
	// index, or a 2dsphere one for $nearSphere.
	want := []string{"2dsphere"}
	if near.Legacy {
		want = []string{"2d"}
		if near.Spherical {
			want = []string{"2dsphere", "2d"}
		}
	}
	for _, typ := range want {
		for _, ix := range p.Indexes {
			if hinted != nil && ix != hinted {
				continue
			}
			gi := ix.geoField()
			if gi < 0 || ix.Fields[gi].Path != near.Path || ix.Fields[gi].Geo != typ {
				continue
			}
			// The other fields of a compound index take the filter's
			// bounds (the geo field's stay full: each annulus sets them).
			var preds []pred
			root := p.Filter.Root()
			collectPreds(root, "", nil, "", true, &preds, scopeOfIndex(ix))
			conjuncts, leafOnly := countConjuncts(root)
			bounds := indexBounds(ix, preds, conjuncts, leafOnly).fields
			bounds[gi].OIL = FullOIL()
			stage := StageGeoNear2DSphere
			if typ == "2d" {
				stage = StageGeoNear2D
			}
			// The annuli's FETCH applies the rest of the filter.
			gn := &Node{Stage: stage, Index: ix, Bounds: bounds, Near: near, Dedup: true, Dropped: []query.Node{near}}
			gn.Residual = p.Filter.Without(gn.Dropped)
			return []*Solution{{Root: gn, Index: ix, BlockingSort: p.Sort != nil}}, nil
		}
	}
	return nil, errNoGeoIndex()
}

// geo2DOIL returns the 2d bounds of a $geoWithin with a flat shape (or
// $centerSphere) over mongod's default grid: the geohash ranges covering
// its bounding box. indexBounds recomputes them for an index with another
// grid (regrid2D).
func geo2DOIL(n query.Node) (OIL, bool) {
	return geo2DOILOn(n, geo.DefaultGrid2D)
}

// regrid2D returns preds with the 2d bounds computed over ix's grid, when
// it is not the default one.
func regrid2D(ix *Index, preds []pred) []pred {
	g := ix.Grid()
	if g.IsDefault() {
		return preds
	}
	out := make([]pred, len(preds))
	copy(out, preds)
	for i := range out {
		if out[i].geo == "2d" {
			if oil, ok := geo2DOILOn(out[i].node, g); ok {
				out[i].oil = oil
			}
		}
	}
	return out
}

// geo2DOILOn is geo2DOIL over grid g.
func geo2DOILOn(n query.Node, g *geo.Grid2D) (OIL, bool) {
	gn, ok := n.(*query.GeoNode)
	if !ok || gn.Within == nil {
		return nil, false
	}
	x0, y0, x1, y1, ok := gn.Within.FlatBounds()
	if !ok {
		return nil, false
	}
	return HashRangesOIL(g.BoxRanges(x0, y0, x1, y1)), true
}

// HashRangesOIL converts geohash ranges into an interval list of
// BinData(128) keys.
func HashRangesOIL(rs []geo.HashRange) OIL {
	oil := make(OIL, 0, len(rs))
	for _, r := range rs {
		oil = append(oil, Interval{Lo: geo.HashValue(r.Lo), Hi: geo.HashValue(r.Hi), LoInc: true, HiInc: true})
	}
	return oil
}

// geoLeads reports whether a 2dsphere index's geo field is bounded: such
// an index serves a geo predicate even when the geo field is not its
// first (mongod's 2dsphere indexes of version 2 and later are keyed by
// their geo field whatever its position; the fields before it then take
// [MinKey, MaxKey]).
func geoLeads(ix *Index, b boundsResult) bool {
	i := ix.geoField()
	return i > 0 && ix.Fields[i].Geo == "2dsphere" && !b.fields[i].OIL.IsFull()
}
