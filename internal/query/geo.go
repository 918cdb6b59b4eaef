package query

import (
	"math"

	"github.com/golang/geo/s2"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/geo"
)

// GeoNode is {Path: {$geoWithin: ...}} or {Path: {$geoIntersects: ...}}
// (mongod's GeoMatchExpression). It needs no index: each value on the
// path is parsed as a stored geometry and tested; values that do not
// parse never match.
type GeoNode struct {
	pathed
	// Within is the $geoWithin shape; nil for $geoIntersects.
	Within *geo.Region
	// Intersects is the $geoIntersects geometry.
	Intersects *geo.Geometry
	// Raw is the operator document as given, which explain prints.
	Raw bsoncore.Document
}

// NearNode is {Path: {$near | $nearSphere: ...}} (mongod's
// GeoNearMatchExpression). It matches every document: the GEO_NEAR stage
// that an index provides orders and bounds the results by distance.
type NearNode struct {
	pathed
	// Op is "$near" or "$nearSphere".
	Op string
	// Center is the query point on the sphere.
	Center s2.Point
	// Flat is the point as given; Legacy is set for a coordinate pair.
	Flat   geo.FlatPoint
	Legacy bool
	// Spherical distances (true for $nearSphere, and $near with a GeoJSON
	// point). A flat $near needs a 2d index.
	Spherical bool
	// Radians is set when distances are in radians ($nearSphere with a
	// legacy point); otherwise they are meters (GeoJSON) or flat units.
	Radians bool
	// MinDistance and MaxDistance as given (MaxDistance +Inf when none).
	MinDistance, MaxDistance float64
	Raw                      bsoncore.Document
}

// HasNear reports whether the filter holds a $near or $nearSphere.
func (f *Filter) HasNear() bool { return FindNear(f.Root()) != nil }

// FindNear returns the filter's near predicate (top level or a conjunct
// of the top-level $and), or nil.
func FindNear(n Node) *NearNode {
	switch t := n.(type) {
	case *NearNode:
		return t
	case *AndNode:
		for _, c := range t.Children {
			if nn, ok := c.(*NearNode); ok {
				return nn
			}
		}
	}
	return nil
}

func (n *GeoNode) match(doc []byte, pos *int) bool {
	return walkPath(doc, n.parts, true, n, pos, -1)
}

func (n *GeoNode) matchValue(v bsoncore.Value, _ *int) bool {
	if v.Type != bsoncore.TypeArray && v.Type != bsoncore.TypeEmbeddedDocument {
		return false
	}
	g, err := geo.ParseStored(v)
	if err != nil {
		return false
	}
	if n.Within != nil {
		return n.Within.Contains(g)
	}
	return geo.Intersects(n.Intersects, g)
}

func (n *GeoNode) kind() matchType { return mtGeo }

func (n *GeoNode) serialize(b *bsoncore.DocumentBuilder, includePath bool) {
	if includePath {
		b.AppendDocument(n.Path, n.Raw)
		return
	}
	elems, _ := n.Raw.Elements()
	for _, e := range elems {
		b.AppendValue(e.Key(), e.Value())
	}
}

func (n *NearNode) match(doc []byte, pos *int) bool          { return true }
func (n *NearNode) matchValue(v bsoncore.Value, _ *int) bool { return true }
func (n *NearNode) kind() matchType                          { return mtGeo }

func (n *NearNode) serialize(b *bsoncore.DocumentBuilder, includePath bool) {
	if includePath {
		b.AppendDocument(n.Path, n.Raw)
		return
	}
	elems, _ := n.Raw.Elements()
	for _, e := range elems {
		b.AppendValue(e.Key(), e.Value())
	}
}

// MaxRadians and MinRadians are the distance bounds as angles on the
// sphere.
func (n *NearNode) MaxRadians() float64 { return n.toRadians(n.MaxDistance) }

// MinRadians: see MaxRadians.
func (n *NearNode) MinRadians() float64 { return n.toRadians(n.MinDistance) }

func (n *NearNode) toRadians(d float64) float64 {
	if math.IsInf(d, 1) {
		return d
	}
	if n.Radians {
		return d
	}
	return d / geo.EarthRadiusMeters
}

// parseGeo parses $geoWithin, $within and $geoIntersects.
func parseGeo(name, op string, e bsoncore.Value, context bsoncore.Document) (Node, error) {
	raw := bsoncore.NewDocumentBuilder().AppendValue(op, e).Build()
	n := &GeoNode{pathed: newPathed(name), Raw: raw}
	var err error
	if op == "$geoIntersects" {
		n.Intersects, err = geo.ParseIntersects(e)
	} else {
		n.Within, err = geo.ParseWithin(e)
	}
	if err != nil {
		return nil, err
	}
	return n, nil
}

// parseNear parses the operator document of $near/$nearSphere, following
// mongod's GeoNearExpression: the legacy form {$near: [x, y],
// $maxDistance: d} and the GeoJSON form {$near: {$geometry: point,
// $maxDistance: m}}.
func parseNear(name string, sub bsoncore.Document) (Node, error) {
	n := &NearNode{pathed: newPathed(name), MaxDistance: math.Inf(1), Raw: sub}
	elems, _ := sub.Elements()
	hasPoint := false
	for _, e := range elems {
		v := e.Value()
		switch k := e.Key(); k {
		case "$near", "$nearSphere", "$geoNear":
			if k == "$geoNear" {
				k = "$near"
			}
			n.Op = k
			if v.Type != bsoncore.TypeArray && v.Type != bsoncore.TypeEmbeddedDocument {
				return nil, errs.New(errs.BadValue, "near must be first in: %s", showDoc(sub))
			}
			if geo.IsLegacyPoint(v) {
				// As mongod, a value that is not a valid legacy point
				// is then read as the GeoJSON form.
				if p, err := geo.ParseFlatPoint(v, false); err == nil {
					n.Flat, n.Legacy, hasPoint = p, true, true
					continue
				}
				// mongod's parsePointWithMaxDistance: [x, y, maxDistance].
				if vals, _ := bsoncore.Document(v.Data).Values(); len(vals) == 3 && isNumber(vals[0]) && isNumber(vals[1]) && isNumber(vals[2]) {
					n.Flat, n.Legacy, hasPoint = geo.FlatPoint{X: bsonutilFloat(vals[0]), Y: bsonutilFloat(vals[1])}, true, true
					n.MaxDistance = bsonutilFloat(vals[2])
					if !(n.MaxDistance >= 0) {
						return nil, errs.New(errs.Code(18522), "max distance must be non-negative")
					}
					continue
				}
				if v.Type == bsoncore.TypeArray {
					_, err := geo.ParseFlatPoint(v, false)
					return nil, err
				}
			}
			if t, err := v.Document().LookupErr("type"); err == nil && t.Type == bsoncore.TypeString {
				// A GeoJSON point given directly ({$nearSphere: {type:
				// "Point", ...}}), as mongod's legacy-form parser accepts.
				g, err := geo.ParseQueryPoint(v)
				if err != nil {
					return nil, err
				}
				n.Center, n.Flat, n.Spherical, hasPoint = g.Points[0], *g.Flat, true, true
				continue
			}
			if err := n.parseNewForm(v.Document()); err != nil {
				return nil, err
			}
			hasPoint = true
		case "$minDistance", "$maxDistance":
			if !isNumber(v) {
				return nil, errs.New(errs.Code(map[string]int32{"$minDistance": 16893, "$maxDistance": 16895}[k]), "%s must be a number", k)
			}
			d := bsonutilFloat(v)
			if !(d >= 0) {
				return nil, errs.New(errs.Code(map[string]int32{"$minDistance": 16894, "$maxDistance": 16896}[k]), "%s must be non-negative", k)
			}
			if k == "$minDistance" {
				n.MinDistance = d
			} else {
				n.MaxDistance = d
			}
		case "$uniqueDocs":
		default:
			return nil, errs.New(errs.Code(34413), "invalid argument in geo near query: %s", k)
		}
	}
	if !hasPoint {
		return nil, errs.New(errs.BadValue, "$geometry is required for geo near query")
	}
	if n.Legacy {
		n.Spherical = n.Op == "$nearSphere"
		n.Radians = n.Spherical
		if n.Spherical {
			if !geo.ValidLngLat(n.Flat) {
				return nil, errs.New(errs.BadValue, "Legacy point is out of bounds for spherical query")
			}
			n.Center, _ = geo.ToS2(n.Flat)
		}
	}
	return n, nil
}

func (n *NearNode) parseNewForm(d bsoncore.Document) error {
	elems, _ := d.Elements()
	if len(elems) == 0 {
		return errs.New(errs.BadValue, "empty geo near query object")
	}
	hasGeometry := false
	for _, e := range elems {
		v := e.Value()
		switch k := e.Key(); k {
		case "$geometry":
			if v.Type != bsoncore.TypeEmbeddedDocument && v.Type != bsoncore.TypeArray {
				continue
			}
			g, err := geo.ParseQueryPoint(v)
			if err != nil {
				return err
			}
			if g.Legacy {
				return errs.New(errs.BadValue, "$near requires geojson point, given %s", showDoc(v.Document()))
			}
			n.Center, n.Flat, n.Spherical = g.Points[0], *g.Flat, true
			hasGeometry = true
		case "$minDistance", "$maxDistance":
			if !isNumber(v) {
				return errs.New(errs.BadValue, "%s must be a number", k)
			}
			x := bsonutilFloat(v)
			if !(x >= 0) || math.IsInf(x, 0) {
				return errs.New(errs.BadValue, "%s must be non-negative", k)
			}
			if k == "$minDistance" {
				n.MinDistance = x
			} else {
				n.MaxDistance = x
			}
		default:
			return errs.New(errs.BadValue, "invalid argument in geo near query: %s", k)
		}
	}
	if !hasGeometry {
		return errs.New(errs.BadValue, "$geometry is required for geo near query")
	}
	return nil
}

func showDoc(d bsoncore.Document) string {
	return bsonutil.FormatDoc(d, bsonutil.Style{})
}

// eachValue adapts a callback to a path walk that visits every value.
type eachValue func(v bsoncore.Value)

func (f eachValue) matchValue(v bsoncore.Value, _ *int) bool {
	if v.Type != 0 {
		f(v)
	}
	return false
}

// EachPathValue calls fn with every value path reaches in doc (arrays in
// the middle of the path are traversed; one at the end is passed whole).
func EachPathValue(doc bsoncore.Document, path string, fn func(v bsoncore.Value)) {
	walkPath(doc, splitPath(path), false, eachValue(fn), nil, -1)
}

// NearestGeometry returns the distance to, and the value of, the nearest
// geometry of doc at path: a GeoJSON object, a legacy pair, or an array
// of either.
func NearestGeometry(center s2.Point, doc bsoncore.Document, path string) (float64, bsoncore.Value) {
	return nearestValue(doc, path, func(v bsoncore.Value) (float64, bool) {
		g, err := geo.ParseStored(v)
		if err != nil || g.OffSphere {
			return 0, false
		}
		return float64(geo.Distance(center, g)), true
	})
}

// NearestFlat returns the planar distance from c to, and the value of,
// the nearest legacy coordinate pair of doc at path (a 2d $near).
func NearestFlat(c geo.FlatPoint, doc bsoncore.Document, path string) (float64, bsoncore.Value) {
	return nearestValue(doc, path, func(v bsoncore.Value) (float64, bool) {
		if !geo.IsLegacyPoint(v) {
			return 0, false
		}
		p, err := geo.ParseFlatPoint(v, true)
		if err != nil {
			return 0, false
		}
		return math.Hypot(p.X-c.X, p.Y-c.Y), true
	})
}

// nearestValue returns the smallest dist over the values of doc at path,
// and the value it was found at. An array that is not itself a location
// has its elements tried instead.
func nearestValue(doc bsoncore.Document, path string, dist func(bsoncore.Value) (float64, bool)) (float64, bsoncore.Value) {
	best, loc := math.Inf(1), bsoncore.Value{}
	try := func(v bsoncore.Value) bool {
		d, ok := dist(v)
		if ok && d < best {
			best, loc = d, v
		}
		return ok
	}
	EachPathValue(doc, path, func(v bsoncore.Value) {
		if try(v) || v.Type != bsoncore.TypeArray {
			return
		}
		vals, _ := bsoncore.Document(v.Data).Values()
		for _, e := range vals {
			try(e)
		}
	})
	return best, loc
}
