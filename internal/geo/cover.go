package geo

import (
	"sort"

	"github.com/golang/geo/s2"
)

// 2dsphere index parameters of index version 3, as mongod computes its
// defaults: points are indexed as leaf cells (level 30); other shapes as
// a covering of at most MaxCellsInCovering cells between the coarsest and
// finest levels, the levels whose average cell edge is closest to 2000 km
// and to 110 m.
var (
	FinestIndexedLevel   = s2.AvgEdgeMetric.ClosestLevel(110.0 / EarthRadiusMeters)
	CoarsestIndexedLevel = s2.AvgEdgeMetric.ClosestLevel(2000 * 1000.0 / EarthRadiusMeters)
)

// MaxCellsInCovering is the coverer's advisory cell count (v3 default).
const MaxCellsInCovering = 20

// PointLevel is the level points are indexed at.
const PointLevel = 30

// IndexCells returns the cells a stored geometry is indexed under.
func IndexCells(g *Geometry) []s2.CellID {
	if g.IsPoint() {
		return []s2.CellID{s2.CellFromPoint(g.Points[0]).ID()}
	}
	var out []s2.CellID
	for _, p := range g.Points {
		out = append(out, s2.CellFromPoint(p).ID())
	}
	rc := &s2.RegionCoverer{MinLevel: CoarsestIndexedLevel, MaxLevel: FinestIndexedLevel, MaxCells: MaxCellsInCovering}
	for _, l := range g.Lines {
		out = append(out, rc.Covering(l)...)
	}
	for _, p := range g.Polygons {
		out = append(out, rc.Covering(p)...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	w := 0
	for i, c := range out {
		if i > 0 && c == out[w-1] {
			continue
		}
		out[w] = c
		w++
	}
	return out[:w]
}

// KeyOf is a cell's index key, mongod's S2CellIdToIndexKey for version 3:
// the cell id's bits as a signed 64-bit integer. A cell never spans two
// faces, so each cell's range stays contiguous in signed order.
func KeyOf(c s2.CellID) int64 { return int64(uint64(c)) }

// Range is an interval of index keys [Lo, Hi].
type Range struct{ Lo, Hi int64 }

// QueryRanges returns the key intervals that hold every indexed geometry
// that may intersect region: for each covering cell, its descendants (as
// one range) and its ancestors down to the coarsest indexed level (as
// points), merged and sorted.
func QueryRanges(region s2.Region) []Range {
	rc := &s2.RegionCoverer{MinLevel: CoarsestIndexedLevel, MaxLevel: FinestIndexedLevel, MaxCells: MaxCellsInCovering}
	return rangesOf(rc.Covering(region), nil)
}

// rangesOf turns a covering into key ranges; skip, when set, drops cells
// (whose descendants need no scan).
func rangesOf(cov []s2.CellID, skip func(s2.CellID) bool) []Range {
	var rs []Range
	seen := map[s2.CellID]bool{}
	for _, c := range cov {
		if skip != nil && skip(c) {
			continue
		}
		rs = append(rs, Range{KeyOf(c.RangeMin()), KeyOf(c.RangeMax())})
		for p := c; p.Level() > CoarsestIndexedLevel; {
			p = p.Parent(p.Level() - 1)
			if !seen[p] {
				seen[p] = true
				rs = append(rs, Range{KeyOf(p), KeyOf(p)})
			}
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Lo < rs[j].Lo })
	var out []Range
	for _, r := range rs {
		if n := len(out); n > 0 && r.Lo <= out[n-1].Hi+1 {
			if r.Hi > out[n-1].Hi {
				out[n-1].Hi = r.Hi
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// RegionOf returns the S2 region of a query geometry or $geoWithin
// shape, for coverings.
func RegionOf(g *Geometry) s2.Region {
	var u s2.CellUnion
	rc := &s2.RegionCoverer{MinLevel: CoarsestIndexedLevel, MaxLevel: FinestIndexedLevel, MaxCells: MaxCellsInCovering}
	for _, p := range g.Points {
		u = append(u, s2.CellFromPoint(p).ID().Parent(FinestIndexedLevel))
	}
	for _, l := range g.Lines {
		u = append(u, rc.Covering(l)...)
	}
	for _, p := range g.Polygons {
		u = append(u, rc.Covering(p)...)
	}
	u.Normalize()
	return &u
}

// RegionOfWithin returns the S2 region of a spherical $geoWithin shape.
func (r *Region) RegionOfWithin() s2.Region {
	if r.Kind == RegionCap {
		return r.Cap
	}
	return RegionOf(&Geometry{Polygons: r.Polygons})
}

// AnnulusRanges returns the key ranges to scan for the ring between inner
// and outer caps of a $near search: the covering of the outer cap without
// the cells inside the inner cap.
func AnnulusRanges(outer, inner s2.Cap, innerEmpty bool) []Range {
	rc := &s2.RegionCoverer{MinLevel: CoarsestIndexedLevel, MaxLevel: FinestIndexedLevel, MaxCells: 16}
	cov := rc.Covering(outer)
	var skip func(s2.CellID) bool
	if !innerEmpty {
		skip = func(c s2.CellID) bool { return inner.ContainsCell(s2.CellFromCellID(c)) }
		// Cells that the inner cap only partly covers are split so that
		// their inner children are skipped.
		var refined []s2.CellID
		for _, c := range cov {
			refined = append(refined, refine(c, inner, outer, 2)...)
		}
		cov = refined
	}
	return rangesOf(cov, skip)
}

// refine splits a cell that straddles the inner cap into its children,
// depth levels down, keeping those that touch the outer cap.
func refine(c s2.CellID, inner, outer s2.Cap, depth int) []s2.CellID {
	cell := s2.CellFromCellID(c)
	if depth == 0 || c.IsLeaf() || c.Level() >= FinestIndexedLevel || inner.ContainsCell(cell) || !inner.IntersectsCell(cell) {
		return []s2.CellID{c}
	}
	var out []s2.CellID
	for _, ch := range c.Children() {
		if outer.IntersectsCell(s2.CellFromCellID(ch)) {
			out = append(out, refine(ch, inner, outer, depth-1)...)
		}
	}
	return out
}
