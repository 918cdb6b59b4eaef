// Package geo parses GeoJSON and legacy coordinate pairs, answers the
// geospatial predicates ($geoWithin, $geoIntersects, distances for $near)
// and computes the S2 cell coverings that 2dsphere index keys and bounds
// are made of. It uses github.com/golang/geo (s2), the Go port of the S2
// library mongod uses, and follows mongod's geoparser: the same GeoJSON
// types, the same validation order and messages (BadValue), loops
// normalised to the smaller of the two regions they bound.
package geo

import (
	"fmt"
	"math"

	"github.com/golang/geo/s2"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// EarthRadiusMeters is the radius mongod converts angles with
// (kRadiusOfEarthInMeters, 6378.1 km).
const EarthRadiusMeters = 6378.1 * 1000

// FlatPoint is a legacy coordinate pair (x is longitude, y latitude).
type FlatPoint struct{ X, Y float64 }

// Geometry is one parsed stored or query geometry: its points, lines and
// polygons on the sphere, and for a single point its flat coordinates.
type Geometry struct {
	Points   []s2.Point
	Lines    []*s2.Polyline
	Polygons []*s2.Polygon
	// Flat is set for a point (legacy or GeoJSON): its coordinates as
	// given, which the flat shapes ($box, $polygon, $center) test.
	Flat *FlatPoint
	// Legacy is set when the value was a legacy coordinate pair.
	Legacy bool
	// OffSphere is set for a legacy pair that is not a valid
	// longitude/latitude: it has no spherical form.
	OffSphere bool
}

// IsPoint reports whether g is a single point.
func (g *Geometry) IsPoint() bool {
	return len(g.Points) == 1 && len(g.Lines) == 0 && len(g.Polygons) == 0
}

func badValue(format string, a ...any) *errs.Error {
	return errs.New(errs.BadValue, format, a...)
}

// show renders a value as mongod's BSONElement::toString(false) does.
func show(v bsoncore.Value) string { return bsonutil.FormatValue(v, bsonutil.Style{}) }

func typeName(v bsoncore.Value) string {
	if v.Type == 0 {
		return "missing"
	}
	return bsonutil.TypeName(v.Type)
}

func isNum(v bsoncore.Value) bool { return bsonutil.IsNumber(v.Type) }

func lookup(d bsoncore.Document, key string) bsoncore.Value {
	v, err := d.LookupErr(key)
	if err != nil {
		return bsoncore.Value{}
	}
	return v
}

// values returns the values of an array or document.
func values(v bsoncore.Value) []bsoncore.Value {
	var data []byte
	switch v.Type {
	case bsoncore.TypeArray, bsoncore.TypeEmbeddedDocument:
		data = v.Data
	default:
		return nil
	}
	vals, _ := bsoncore.Document(data).Values()
	return vals
}

// ParseFlatPoint parses [x, y] or {a: x, b: y} (mongod's parseFlatPoint);
// extra elements are allowed only when allowExtra is set.
func ParseFlatPoint(v bsoncore.Value, allowExtra bool) (FlatPoint, error) {
	if v.Type != bsoncore.TypeArray && v.Type != bsoncore.TypeEmbeddedDocument {
		return FlatPoint{}, badValue("Point must be an array or object, instead got type %s", typeName(v))
	}
	vals := values(v)
	var x, y bsoncore.Value
	if len(vals) > 0 {
		x = vals[0]
	}
	if !isNum(x) {
		return FlatPoint{}, badValue("Point must only contain numeric elements, instead got type %s", typeName(x))
	}
	if len(vals) > 1 {
		y = vals[1]
	}
	if !isNum(y) {
		return FlatPoint{}, badValue("Point must only contain numeric elements, instead got type %s", typeName(y))
	}
	if !allowExtra && len(vals) > 2 {
		return FlatPoint{}, badValue("Point must only contain two numeric elements")
	}
	p := FlatPoint{bsonutil.AsFloat64(x), bsonutil.AsFloat64(y)}
	if math.IsNaN(p.X) || math.IsInf(p.X, 0) || math.IsNaN(p.Y) || math.IsInf(p.Y, 0) {
		return FlatPoint{}, badValue("Point coordinates must be finite numbers")
	}
	return p, nil
}

// ValidLngLat reports whether p is a longitude in [-180, 180] and a
// latitude in [-90, 90].
func ValidLngLat(p FlatPoint) bool {
	return p.X >= -180 && p.X <= 180 && p.Y >= -90 && p.Y <= 90
}

// ToS2 converts a longitude/latitude pair to a point on the sphere.
func ToS2(p FlatPoint) (s2.Point, error) {
	if !ValidLngLat(p) {
		return s2.Point{}, badValue("longitude/latitude is out of bounds, lng: %s lat: %s", fnum(p.X), fnum(p.Y))
	}
	return s2.PointFromLatLng(s2.LatLngFromDegrees(p.Y, p.X).Normalized()), nil
}

func fnum(f float64) string { return fmt.Sprint(f) }

// IsLegacyPoint reports whether v has the shape of a legacy coordinate
// pair: an array, or a document whose first value is a number.
func IsLegacyPoint(v bsoncore.Value) bool {
	if v.Type == bsoncore.TypeArray {
		return true
	}
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return false
	}
	vals := values(v)
	return len(vals) > 0 && isNum(vals[0])
}

// ParseStored parses a stored geometry: a legacy coordinate pair (extra
// elements allowed) or a GeoJSON object.
func ParseStored(v bsoncore.Value) (*Geometry, error) {
	if v.Type != bsoncore.TypeArray && v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, badValue("geo element must be an array or object: %s", show(v))
	}
	if IsLegacyPoint(v) {
		p, err := ParseFlatPoint(v, true)
		if err != nil {
			return nil, err
		}
		return legacyGeometry(p), nil
	}
	return ParseGeoJSON(v.Document())
}

func legacyGeometry(p FlatPoint) *Geometry {
	g := &Geometry{Flat: &p, Legacy: true}
	if s, err := ToS2(p); err == nil {
		g.Points = []s2.Point{s}
	} else {
		g.OffSphere = true
	}
	return g
}

// ParseQueryPoint parses the point of $near, $nearSphere and $geoNear:
// a legacy pair (exactly two numbers) or a GeoJSON Point.
func ParseQueryPoint(v bsoncore.Value) (*Geometry, error) {
	if IsLegacyPoint(v) || (v.Type != bsoncore.TypeArray && v.Type != bsoncore.TypeEmbeddedDocument) {
		p, err := ParseFlatPoint(v, false)
		if err != nil {
			return nil, err
		}
		return legacyGeometry(p), nil
	}
	d := v.Document()
	t := lookup(d, "type")
	if t.Type != bsoncore.TypeString || t.StringValue() != "Point" {
		return nil, badValue("invalid point in geo near query $geometry argument: %s  Point must be an array or object", show(v))
	}
	g, err := ParseGeoJSON(d)
	if err != nil {
		return nil, badValue("invalid point in geo near query $geometry argument: %s  %s", show(v), err.(*errs.Error).Msg)
	}
	return g, nil
}

// ParseGeoJSON parses a GeoJSON object.
func ParseGeoJSON(d bsoncore.Document) (*Geometry, error) {
	t := lookup(d, "type")
	typ := ""
	if t.Type == bsoncore.TypeString {
		typ = t.StringValue()
	}
	g := &Geometry{}
	switch typ {
	case "Point":
		if err := checkCRS(d, false); err != nil {
			return nil, err
		}
		p, err := ParseFlatPoint(lookup(d, "coordinates"), true)
		if err != nil {
			return nil, err
		}
		s, err := ToS2(p)
		if err != nil {
			return nil, err
		}
		g.Points, g.Flat = []s2.Point{s}, &p
	case "LineString":
		if err := checkCRS(d, false); err != nil {
			return nil, err
		}
		l, err := parseLine(lookup(d, "coordinates"))
		if err != nil {
			return nil, err
		}
		g.Lines = []*s2.Polyline{l}
	case "Polygon":
		if err := checkCRS(d, true); err != nil {
			return nil, err
		}
		p, err := parsePolygon(lookup(d, "coordinates"))
		if err != nil {
			return nil, err
		}
		g.Polygons = []*s2.Polygon{p}
	case "MultiPoint":
		if err := checkCRS(d, false); err != nil {
			return nil, err
		}
		pts, err := parseCoordinates(lookup(d, "coordinates"))
		if err != nil {
			return nil, err
		}
		if len(pts) == 0 {
			return nil, badValue("MultiPoint coordinates must have at least 1 element")
		}
		g.Points = pts
	case "MultiLineString":
		if err := checkCRS(d, false); err != nil {
			return nil, err
		}
		c := lookup(d, "coordinates")
		if c.Type != bsoncore.TypeArray {
			return nil, badValue("MultiLineString coordinates must be an array")
		}
		for _, lv := range values(c) {
			l, err := parseLine(lv)
			if err != nil {
				return nil, err
			}
			g.Lines = append(g.Lines, l)
		}
		if len(g.Lines) == 0 {
			return nil, badValue("MultiLineString coordinates must have at least 1 element")
		}
	case "MultiPolygon":
		if err := checkCRS(d, false); err != nil {
			return nil, err
		}
		c := lookup(d, "coordinates")
		if c.Type != bsoncore.TypeArray {
			return nil, badValue("MultiPolygon coordinates must be an array")
		}
		for _, pv := range values(c) {
			p, err := parsePolygon(pv)
			if err != nil {
				return nil, err
			}
			g.Polygons = append(g.Polygons, p)
		}
		if len(g.Polygons) == 0 {
			return nil, badValue("MultiPolygon coordinates must have at least 1 element")
		}
	case "GeometryCollection":
		c := lookup(d, "geometries")
		if c.Type != bsoncore.TypeArray {
			return nil, badValue("GeometryCollection geometries must be an array")
		}
		vals := values(c)
		if len(vals) == 0 {
			return nil, badValue("GeometryCollection geometries must have at least 1 element")
		}
		for i, gv := range vals {
			if gv.Type != bsoncore.TypeEmbeddedDocument {
				return nil, badValue("Element %d of \"geometries\" is not an object", i)
			}
			st := lookup(gv.Document(), "type")
			if st.Type == bsoncore.TypeString && st.StringValue() == "GeometryCollection" {
				return nil, badValue("GeometryCollections cannot be nested: %s", show(gv))
			}
			sub, err := ParseGeoJSON(gv.Document())
			if err != nil {
				return nil, err
			}
			g.Points = append(g.Points, sub.Points...)
			g.Lines = append(g.Lines, sub.Lines...)
			g.Polygons = append(g.Polygons, sub.Polygons...)
		}
	default:
		return nil, badValue("unknown GeoJSON type: %s", show(bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: d}))
	}
	return g, nil
}

// checkCRS validates an optional "crs" member. The strict-winding CRS
// (big polygons) is refused: Lode does not implement it.
func checkCRS(d bsoncore.Document, polygon bool) error {
	c := lookup(d, "crs")
	if c.Type == 0 {
		return nil
	}
	if c.Type != bsoncore.TypeEmbeddedDocument {
		return badValue("GeoJSON CRS must be an object")
	}
	t := lookup(c.Document(), "type")
	if t.Type != bsoncore.TypeString || t.StringValue() != "name" {
		return badValue("GeoJSON CRS must have field \"type\": \"name\"")
	}
	props := lookup(c.Document(), "properties")
	if props.Type != bsoncore.TypeEmbeddedDocument {
		return badValue("CRS must have field \"properties\" which is an object")
	}
	name := lookup(props.Document(), "name")
	if name.Type != bsoncore.TypeString {
		return badValue("In CRS, \"properties.name\" must be a string")
	}
	switch name.StringValue() {
	case "urn:ogc:def:crs:OGC:1.3:CRS84", "EPSG:4326":
		return nil
	case "urn:x-mongodb:crs:strictwinding:EPSG:4326":
		if !polygon {
			return badValue("Strict winding order is only supported by polygon")
		}
		return errs.New(errs.NotImplemented, "big polygons (the strict-winding CRS urn:x-mongodb:crs:strictwinding:EPSG:4326) are not supported by Lode")
	}
	return badValue("Unknown CRS name: %s", name.StringValue())
}

func parseCoordinates(v bsoncore.Value) ([]s2.Point, error) {
	if v.Type != bsoncore.TypeArray {
		return nil, badValue("GeoJSON coordinates must be an array of coordinates")
	}
	var out []s2.Point
	for _, c := range values(v) {
		if c.Type != bsoncore.TypeArray {
			return nil, badValue("GeoJSON coordinates must be an array")
		}
		fp, err := ParseFlatPoint(c, true)
		if err != nil {
			return nil, err
		}
		p, err := ToS2(fp)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func dedupAdjacent(pts []s2.Point) []s2.Point {
	out := pts[:0:0]
	for i, p := range pts {
		if i > 0 && p == pts[i-1] {
			continue
		}
		out = append(out, p)
	}
	return out
}

func parseLine(v bsoncore.Value) (*s2.Polyline, error) {
	pts, err := parseCoordinates(v)
	if err != nil {
		return nil, err
	}
	pts = dedupAdjacent(pts)
	if len(pts) < 2 {
		return nil, badValue("GeoJSON LineString must have at least 2 vertices: %s", show(v))
	}
	for i := 1; i < len(pts); i++ {
		if pts[i-1].Dot(pts[i].Vector) < -1+1e-15 {
			return nil, badValue("GeoJSON LineString is not valid: Vertices %d and %d are antipodal %s", i-1, i, show(v))
		}
	}
	l := s2.Polyline(pts)
	return &l, nil
}

func parsePolygon(v bsoncore.Value) (*s2.Polygon, error) {
	if v.Type != bsoncore.TypeArray {
		return nil, badValue("Polygon coordinates must be an array")
	}
	var loops []*s2.Loop
	rings := values(v)
	for _, rv := range rings {
		pts, err := parseCoordinates(rv)
		if err != nil {
			return nil, err
		}
		if len(pts) == 0 {
			return nil, badValue("Loop has no vertices: %s", show(rv))
		}
		if pts[0] != pts[len(pts)-1] {
			return nil, badValue("Loop is not closed: %s", show(rv))
		}
		pts = dedupAdjacent(pts)
		pts = pts[:len(pts)-1]
		if len(pts) < 3 {
			return nil, badValue("Loop must have at least 3 different vertices: %s", show(rv))
		}
		loop := s2.LoopFromPoints(pts)
		if err := loop.Validate(); err != nil {
			return nil, badValue("Loop is not valid: %s %v", show(rv), err)
		}
		if msg := loopSelfCheck(pts); msg != "" {
			return nil, badValue("Loop is not valid: %s %s", show(rv), msg)
		}
		loop.Normalize()
		if len(loops) > 0 && !loops[0].Contains(loop) {
			return nil, badValue("Secondary loops not contained by first exterior loop - secondary loops must be holes: %s first loop: %s", show(rv), show(rings[0]))
		}
		loops = append(loops, loop)
	}
	if len(loops) == 0 {
		return nil, badValue("Polygon has no loops.")
	}
	for i := 1; i < len(loops); i++ {
		for j := i + 1; j < len(loops); j++ {
			if loops[i].Intersects(loops[j]) && !loops[i].Contains(loops[j]) && !loops[j].Contains(loops[i]) {
				return nil, badValue("Polygon isn't valid: Loop %d crosses loop %d %s", i, j, show(v))
			}
			if loops[i].Contains(loops[j]) || loops[j].Contains(loops[i]) {
				return nil, badValue("Polygon interior loops cannot be nested: %s", show(v))
			}
		}
	}
	return s2.PolygonFromLoops(loops), nil
}

// loopSelfCheck finds what S2's loop validation reports and the Go port
// does not check: a repeated vertex, or two non-adjacent edges that cross.
func loopSelfCheck(pts []s2.Point) string {
	n := len(pts)
	seen := make(map[s2.Point]int, n)
	for i, p := range pts {
		if j, ok := seen[p]; ok {
			return fmt.Sprintf("Duplicate vertices at offsets %d and %d", j, i)
		}
		seen[p] = i
	}
	// Edge crossings through a shape index, so a loop of many vertices
	// is checked in about n log n rather than n².
	loop := s2.LoopFromPoints(pts)
	idx := s2.NewShapeIndex()
	idx.Add(loop)
	q := s2.NewCrossingEdgeQuery(idx)
	for i := 0; i < n; i++ {
		for _, j := range q.Crossings(pts[i], pts[(i+1)%n], loop, s2.CrossingTypeInterior) {
			if j == i || j == (i+1)%n || (j+1)%n == i {
				continue // adjacent edges share a vertex
			}
			a, b := i, j
			if a > b {
				a, b = b, a
			}
			return fmt.Sprintf("Edges %d and %d cross", a, b)
		}
	}
	return ""
}
