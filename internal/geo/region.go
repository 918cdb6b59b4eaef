package geo

import (
	"math"

	"github.com/golang/geo/s1"
	"github.com/golang/geo/s2"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// RegionKind tells what a $geoWithin shape is.
type RegionKind int

// The $geoWithin shapes.
const (
	// RegionPolygons: a GeoJSON Polygon or MultiPolygon ($geometry).
	RegionPolygons RegionKind = iota
	// RegionCap: $centerSphere, a spherical cap.
	RegionCap
	// RegionBox, RegionFlatPolygon, RegionCircle: the flat legacy shapes
	// $box, $polygon and $center, which test point coordinates as given.
	RegionBox
	RegionFlatPolygon
	RegionCircle
)

// Region is the shape of a $geoWithin.
type Region struct {
	Kind     RegionKind
	Polygons []*s2.Polygon
	Cap      s2.Cap
	// Box is (min corner, max corner); FlatPoly the $polygon vertices;
	// Center and Radius the $center circle (or $centerSphere's arguments).
	Box      [2]FlatPoint
	FlatPoly []FlatPoint
	Center   FlatPoint
	Radius   float64
	// Op is the operator as given ("$geometry", "$box", ...).
	Op string
}

// Spherical reports whether the region lives on the sphere (so a 2dsphere
// index can answer it).
func (r *Region) Spherical() bool { return r.Kind == RegionPolygons || r.Kind == RegionCap }

// ParseWithin parses the argument document of $geoWithin (or $within).
func ParseWithin(arg bsoncore.Value) (*Region, error) {
	if arg.Type != bsoncore.TypeEmbeddedDocument {
		return nil, badValue("$geoWithin not supported with provided geometry: %s", show(arg))
	}
	elems, _ := arg.Document().Elements()
	if len(elems) == 0 {
		return nil, badValue("$geoWithin not supported with provided geometry: %s", show(arg))
	}
	e := elems[0]
	v := e.Value()
	r := &Region{Op: e.Key()}
	switch e.Key() {
	case "$geometry":
		if v.Type != bsoncore.TypeEmbeddedDocument {
			return nil, badValue("geometry must be an object")
		}
		g, err := ParseGeoJSON(v.Document())
		if err != nil {
			return nil, err
		}
		if len(g.Polygons) == 0 || len(g.Points) > 0 || len(g.Lines) > 0 || isCollection(v) {
			return nil, badValue("$geoWithin not supported with provided geometry: %s", show(arg))
		}
		r.Kind, r.Polygons = RegionPolygons, g.Polygons
	case "$box":
		vals := values(v)
		if v.Type != bsoncore.TypeArray && v.Type != bsoncore.TypeEmbeddedDocument {
			return nil, badValue("$box must be an array or object")
		}
		var a, b FlatPoint
		var err error
		var x bsoncore.Value
		if len(vals) > 0 {
			x = vals[0]
		}
		if a, err = ParseFlatPoint(x, false); err != nil {
			return nil, err
		}
		x = bsoncore.Value{}
		if len(vals) > 1 {
			x = vals[1]
		}
		if b, err = ParseFlatPoint(x, false); err != nil {
			return nil, err
		}
		r.Kind = RegionBox
		r.Box = [2]FlatPoint{{math.Min(a.X, b.X), math.Min(a.Y, b.Y)}, {math.Max(a.X, b.X), math.Max(a.Y, b.Y)}}
	case "$polygon":
		for _, pv := range values(v) {
			p, err := ParseFlatPoint(pv, false)
			if err != nil {
				return nil, err
			}
			r.FlatPoly = append(r.FlatPoly, p)
		}
		if len(r.FlatPoly) < 3 {
			return nil, badValue("Polygon must have at least 3 points")
		}
		r.Kind = RegionFlatPolygon
	case "$center", "$centerSphere":
		vals := values(v)
		var c bsoncore.Value
		if len(vals) > 0 {
			c = vals[0]
		}
		p, err := ParseFlatPoint(c, false)
		if err != nil {
			return nil, err
		}
		var rad bsoncore.Value
		if len(vals) > 1 {
			rad = vals[1]
		}
		if !isNum(rad) || !(asFloat(rad) >= 0) {
			return nil, badValue("radius must be a non-negative number")
		}
		if len(vals) > 2 {
			return nil, badValue("Only 2 fields allowed for circular region")
		}
		r.Center, r.Radius = p, asFloat(rad)
		if e.Key() == "$center" {
			r.Kind = RegionCircle
			break
		}
		s, err := ToS2(p)
		if err != nil {
			return nil, err
		}
		r.Kind = RegionCap
		r.Cap = s2.CapFromCenterAngle(s, s1.Angle(r.Radius))
	default:
		return nil, badValue("$geoWithin not supported with provided geometry: %s", show(arg))
	}
	return r, nil
}

func isCollection(v bsoncore.Value) bool {
	t := lookup(v.Document(), "type")
	return t.Type == bsoncore.TypeString && t.StringValue() == "GeometryCollection"
}

// Contains reports whether the region contains all of g ($geoWithin).
func (r *Region) Contains(g *Geometry) bool {
	switch r.Kind {
	case RegionBox:
		if g.Flat == nil {
			return false
		}
		p := *g.Flat
		return p.X >= r.Box[0].X && p.X <= r.Box[1].X && p.Y >= r.Box[0].Y && p.Y <= r.Box[1].Y
	case RegionCircle:
		if g.Flat == nil {
			return false
		}
		return math.Hypot(g.Flat.X-r.Center.X, g.Flat.Y-r.Center.Y) <= r.Radius
	case RegionFlatPolygon:
		if g.Flat == nil {
			return false
		}
		return flatPolygonContains(r.FlatPoly, *g.Flat)
	}
	if g.OffSphere {
		return false
	}
	if len(g.Points)+len(g.Lines)+len(g.Polygons) == 0 {
		return false
	}
	for _, p := range g.Points {
		if !r.containsPoint(p) {
			return false
		}
	}
	for _, l := range g.Lines {
		if !r.containsLine(l) {
			return false
		}
	}
	for _, p := range g.Polygons {
		if !r.containsPolygon(p) {
			return false
		}
	}
	return true
}

func (r *Region) containsPoint(p s2.Point) bool {
	if r.Kind == RegionCap {
		return r.Cap.ContainsPoint(p)
	}
	for _, poly := range r.Polygons {
		if poly.ContainsPoint(p) {
			return true
		}
	}
	return false
}

func (r *Region) containsLine(l *s2.Polyline) bool {
	if r.Kind == RegionCap {
		for _, v := range *l {
			if !r.Cap.ContainsPoint(v) {
				return false
			}
		}
		return true
	}
	for _, poly := range r.Polygons {
		if polygonContainsLine(poly, l) {
			return true
		}
	}
	return false
}

func (r *Region) containsPolygon(p *s2.Polygon) bool {
	if r.Kind == RegionCap {
		for _, loop := range p.Loops() {
			for _, v := range loop.Vertices() {
				if !r.Cap.ContainsPoint(v) {
					return false
				}
			}
		}
		return true
	}
	for _, poly := range r.Polygons {
		if poly.Contains(p) {
			return true
		}
	}
	return false
}

// polygonContainsLine: every vertex inside and no edge crossing the
// polygon's boundary.
func polygonContainsLine(poly *s2.Polygon, l *s2.Polyline) bool {
	for _, v := range *l {
		if !poly.ContainsPoint(v) {
			return false
		}
	}
	return !lineCrossesPolygon(poly, l)
}

func lineCrossesPolygon(poly *s2.Polygon, l *s2.Polyline) bool {
	pts := *l
	for i := 1; i < len(pts); i++ {
		c := s2.NewEdgeCrosser(pts[i-1], pts[i])
		for _, loop := range poly.Loops() {
			n := loop.NumVertices()
			for j := 0; j < n; j++ {
				if c.CrossingSign(loop.Vertex(j), loop.Vertex(j+1)) == s2.Cross {
					return true
				}
			}
		}
	}
	return false
}

// flatPolygonContains is a point-in-polygon test in the plane; points on
// the boundary are inside.
func flatPolygonContains(poly []FlatPoint, p FlatPoint) bool {
	inside := false
	n := len(poly)
	for i, j := 0, n-1; i < n; j, i = i, i+1 {
		a, b := poly[i], poly[j]
		// On the edge?
		cross := (b.X-a.X)*(p.Y-a.Y) - (b.Y-a.Y)*(p.X-a.X)
		if math.Abs(cross) < 1e-12 && p.X >= math.Min(a.X, b.X) && p.X <= math.Max(a.X, b.X) && p.Y >= math.Min(a.Y, b.Y) && p.Y <= math.Max(a.Y, b.Y) {
			return true
		}
		if (a.Y > p.Y) != (b.Y > p.Y) && p.X < (b.X-a.X)*(p.Y-a.Y)/(b.Y-a.Y)+a.X {
			inside = !inside
		}
	}
	return inside
}

// ParseIntersects parses the argument of $geoIntersects: {$geometry: ...}.
func ParseIntersects(arg bsoncore.Value) (*Geometry, error) {
	if arg.Type != bsoncore.TypeEmbeddedDocument {
		return nil, badValue("$geoIntersects not supported with provided geometry: %s", show(arg))
	}
	g := lookup(arg.Document(), "$geometry")
	if g.Type == 0 {
		return nil, badValue("$geoIntersects not supported with provided geometry: %s", show(arg))
	}
	if g.Type != bsoncore.TypeEmbeddedDocument {
		return nil, badValue("geometry must be an object")
	}
	return ParseGeoJSON(g.Document())
}

// Intersects reports whether two spherical geometries share a point.
func Intersects(q, g *Geometry) bool {
	if g.OffSphere || q.OffSphere {
		return false
	}
	for _, p := range g.Points {
		if q.intersectsPoint(p) {
			return true
		}
	}
	for _, l := range g.Lines {
		if q.intersectsLine(l) {
			return true
		}
	}
	for _, p := range g.Polygons {
		if q.intersectsPolygon(p) {
			return true
		}
	}
	return false
}

const pointEps = 1e-15

func (q *Geometry) intersectsPoint(p s2.Point) bool {
	for _, x := range q.Points {
		if x.Distance(p) <= pointEps {
			return true
		}
	}
	for _, l := range q.Lines {
		if onLine(l, p) {
			return true
		}
	}
	for _, poly := range q.Polygons {
		if poly.ContainsPoint(p) {
			return true
		}
	}
	return false
}

func onLine(l *s2.Polyline, p s2.Point) bool {
	pts := *l
	for i := 1; i < len(pts); i++ {
		if s2.DistanceFromSegment(p, pts[i-1], pts[i]) <= 1e-14 {
			return true
		}
	}
	return false
}

func (q *Geometry) intersectsLine(l *s2.Polyline) bool {
	for _, x := range q.Points {
		if onLine(l, x) {
			return true
		}
	}
	for _, m := range q.Lines {
		if linesIntersect(l, m) {
			return true
		}
	}
	for _, poly := range q.Polygons {
		if polygonIntersectsLine(poly, l) {
			return true
		}
	}
	return false
}

func linesIntersect(a, b *s2.Polyline) bool {
	pa, pb := *a, *b
	for i := 1; i < len(pa); i++ {
		c := s2.NewEdgeCrosser(pa[i-1], pa[i])
		for j := 1; j < len(pb); j++ {
			if c.CrossingSign(pb[j-1], pb[j]) != s2.DoNotCross {
				return true
			}
		}
	}
	return false
}

func polygonIntersectsLine(poly *s2.Polygon, l *s2.Polyline) bool {
	for _, v := range *l {
		if poly.ContainsPoint(v) {
			return true
		}
	}
	return lineCrossesPolygon(poly, l)
}

func (q *Geometry) intersectsPolygon(p *s2.Polygon) bool {
	for _, x := range q.Points {
		if p.ContainsPoint(x) {
			return true
		}
	}
	for _, l := range q.Lines {
		if polygonIntersectsLine(p, l) {
			return true
		}
	}
	for _, poly := range q.Polygons {
		if poly.Intersects(p) {
			return true
		}
	}
	return false
}

// Distance returns the angle between c and the nearest point of g.
func Distance(c s2.Point, g *Geometry) s1.Angle {
	best := s1.Angle(math.Inf(1))
	for _, p := range g.Points {
		if d := c.Distance(p); d < best {
			best = d
		}
	}
	for _, l := range g.Lines {
		pts := *l
		for i := 1; i < len(pts); i++ {
			if d := s2.DistanceFromSegment(c, pts[i-1], pts[i]); d < best {
				best = d
			}
		}
	}
	for _, poly := range g.Polygons {
		if poly.ContainsPoint(c) {
			return 0
		}
		for _, loop := range poly.Loops() {
			n := loop.NumVertices()
			for j := 0; j < n; j++ {
				if d := s2.DistanceFromSegment(c, loop.Vertex(j), loop.Vertex(j+1)); d < best {
					best = d
				}
			}
		}
	}
	return best
}

func asFloat(v bsoncore.Value) float64 {
	switch v.Type {
	case bsoncore.TypeInt32:
		return float64(v.Int32())
	case bsoncore.TypeInt64:
		return float64(v.Int64())
	case bsoncore.TypeDouble:
		return v.Double()
	}
	f, _ := v.AsFloat64OK()
	return f
}
