package geo_test

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

func line(pts ...[2]float64) bson.D {
	var c bson.A
	for _, p := range pts {
		c = append(c, bson.A{p[0], p[1]})
	}
	return bson.D{{Key: "type", Value: "LineString"}, {Key: "coordinates", Value: c}}
}

func within(g any) bson.D {
	return bson.D{{Key: "geo", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$geometry", Value: g}}}}}}
}

func intersects(g any) bson.D {
	return bson.D{{Key: "geo", Value: bson.D{{Key: "$geoIntersects", Value: bson.D{{Key: "$geometry", Value: g}}}}}}
}

var (
	square   = [][2]float64{{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}}
	hole     = [][2]float64{{4, 4}, {6, 4}, {6, 6}, {4, 6}, {4, 4}}
	antimer  = [][2]float64{{170, -10}, {-170, -10}, {-170, 10}, {170, 10}, {170, -10}}
	shapeSet = []bson.D{
		{{Key: "name", Value: "p_inside"}, {Key: "geo", Value: point(2, 2)}},
		{{Key: "name", Value: "p_hole"}, {Key: "geo", Value: point(5, 5)}},
		{{Key: "name", Value: "p_out"}, {Key: "geo", Value: point(20, 20)}},
		{{Key: "name", Value: "p_antimer_east"}, {Key: "geo", Value: point(179.5, 0)}},
		{{Key: "name", Value: "p_antimer_west"}, {Key: "geo", Value: point(-179.5, 1)}},
		{{Key: "name", Value: "p_npole"}, {Key: "geo", Value: point(0, 90)}},
		{{Key: "name", Value: "p_npole_near"}, {Key: "geo", Value: point(100, 89.9)}},
		{{Key: "name", Value: "p_spole"}, {Key: "geo", Value: point(0, -90)}},
		{{Key: "name", Value: "line_cross"}, {Key: "geo", Value: line([2]float64{-1, 5}, [2]float64{3, 5})}},
		{{Key: "name", Value: "line_in"}, {Key: "geo", Value: line([2]float64{1, 1}, [2]float64{3, 1})}},
		{{Key: "name", Value: "poly_in"}, {Key: "geo", Value: polygon([][2]float64{{1, 1}, {2, 1}, {2, 2}, {1, 2}, {1, 1}})}},
		{{Key: "name", Value: "poly_around_hole"}, {Key: "geo", Value: polygon([][2]float64{{3, 3}, {7, 3}, {7, 7}, {3, 7}, {3, 3}})}},
		{{Key: "name", Value: "multipoint"}, {Key: "geo", Value: bson.D{{Key: "type", Value: "MultiPoint"}, {Key: "coordinates", Value: bson.A{bson.A{2, 8}, bson.A{30, 30}}}}}},
		{{Key: "name", Value: "collection"}, {Key: "geo", Value: bson.D{{Key: "type", Value: "GeometryCollection"}, {Key: "geometries", Value: bson.A{point(8, 8), line([2]float64{8, 1}, [2]float64{9, 1})}}}}},
		{{Key: "name", Value: "legacy"}, {Key: "geo", Value: bson.A{3, 3}}},
		{{Key: "name", Value: "multipolygon"}, {Key: "geo", Value: bson.D{{Key: "type", Value: "MultiPolygon"}, {Key: "coordinates", Value: bson.A{
			polygon([][2]float64{{50, 50}, {51, 50}, {51, 51}, {50, 51}, {50, 50}})[1].Value,
			polygon([][2]float64{{60, 60}, {61, 60}, {61, 61}, {60, 61}, {60, 60}})[1].Value,
		}}}}},
		{{Key: "name", Value: "multiline"}, {Key: "geo", Value: bson.D{{Key: "type", Value: "MultiLineString"}, {Key: "coordinates", Value: bson.A{
			bson.A{bson.A{30, -5}, bson.A{30, 5}}, bson.A{bson.A{8, 8.5}, bson.A{9, 8.5}}}}}}},
		{{Key: "name", Value: "no_geo"}},
	}
)

// shapeColls returns the shape set in a collection with a 2dsphere index
// and in one without.
func shapeColls(t *testing.T) (indexed, plain *mongo.Collection) {
	_, db := testenv.Open(t)
	indexed, plain = db.Collection("indexed"), db.Collection("plain")
	testenv.CreateIndex(t, indexed, bson.D{{Key: "geo", Value: "2dsphere"}})
	for _, d := range shapeSet {
		insert(t, indexed, d)
		insert(t, plain, d)
	}
	return indexed, plain
}

// Every operator and shape, with and without the index. Expected sets
// follow the operators' documented semantics: $geoWithin selects
// geometries entirely inside (a polygon's hole is outside), $geoIntersects
// any shared point; GeoJSON polygons are the smaller of the two regions
// their ring bounds, so a ring across the antimeridian selects the 20°
// around it; the flat shapes ($box, $polygon, $center) compare points'
// coordinates in the plane.
func TestGeoOperatorsShapes(t *testing.T) {
	t.Parallel()
	indexed, plain := shapeColls(t)
	cases := []struct {
		name      string
		filter    bson.D
		want      []string
		usesIndex bool
	}{
		{"within-polygon-with-hole", within(polygon(square, hole)),
			[]string{"p_inside", "line_in", "poly_in", "collection", "legacy"}, true},
		{"within-polygon-no-hole", within(polygon(square)),
			[]string{"p_inside", "p_hole", "line_in", "poly_in", "poly_around_hole", "collection", "legacy"}, true},
		{"intersects-polygon-with-hole", intersects(polygon(square, hole)),
			[]string{"p_inside", "line_cross", "line_in", "poly_in", "poly_around_hole", "multipoint", "collection", "legacy", "multiline"}, true},
		{"intersects-geometrycollection", intersects(bson.D{{Key: "type", Value: "GeometryCollection"}, {Key: "geometries", Value: bson.A{point(1.5, 1.5), point(50.5, 50.5)}}}),
			[]string{"poly_in", "multipolygon"}, true},
		{"intersects-multilinestring", intersects(bson.D{{Key: "type", Value: "MultiLineString"}, {Key: "coordinates", Value: bson.A{
			bson.A{bson.A{29, 0}, bson.A{31, 0}}, bson.A{bson.A{-1, 1.5}, bson.A{0.5, 1.5}}}}}),
			[]string{"multiline"}, true},
		{"within-antimeridian", within(polygon(antimer)), []string{"p_antimer_east", "p_antimer_west"}, true},
		{"intersects-antimeridian-line", intersects(line([2]float64{179, -0.5}, [2]float64{-179, 0.5})), []string{}, true},
		{"within-multipolygon", within(bson.D{{Key: "type", Value: "MultiPolygon"}, {Key: "coordinates", Value: bson.A{
			polygon([][2]float64{{49, 49}, {52, 49}, {52, 52}, {49, 52}, {49, 49}})[1].Value,
			polygon([][2]float64{{59, 59}, {62, 59}, {62, 62}, {59, 62}, {59, 59}})[1].Value,
		}}}), []string{"multipolygon"}, true},
		{"intersects-point-in-polygon", intersects(point(50.5, 50.5)), []string{"multipolygon"}, true},
		{"intersects-line-through-hole-polygon", intersects(line([2]float64{5, -1}, [2]float64{5, 11})),
			[]string{"p_hole", "poly_around_hole"}, true},
		{"centerSphere-north-pole", bson.D{{Key: "geo", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$centerSphere", Value: bson.A{bson.A{0, 90}, 0.01}}}}}}},
			[]string{"p_npole", "p_npole_near"}, true},
		{"centerSphere-south-pole", bson.D{{Key: "geo", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$centerSphere", Value: bson.A{bson.A{120, -90}, 0.01}}}}}}},
			[]string{"p_spole"}, true},
		{"box", bson.D{{Key: "geo", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$box", Value: bson.A{bson.A{0, 0}, bson.A{4, 4}}}}}}}},
			[]string{"p_inside", "legacy"}, false},
		{"flat-polygon", bson.D{{Key: "geo", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$polygon", Value: bson.A{bson.A{0, 0}, bson.A{6, 0}, bson.A{0, 6}}}}}}}},
			[]string{"p_inside", "legacy"}, false},
		{"center", bson.D{{Key: "geo", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$center", Value: bson.A{bson.A{0, 0}, 5}}}}}}},
			[]string{"p_inside", "legacy"}, false},
		{"within-alias", bson.D{{Key: "geo", Value: bson.D{{Key: "$within", Value: bson.D{{Key: "$box", Value: bson.A{bson.A{19, 19}, bson.A{21, 21}}}}}}}},
			[]string{"p_out"}, false},
	}
	for _, c := range cases {
		for _, coll := range []*mongo.Collection{indexed, plain} {
			got := sorted(names(t, coll, c.filter))
			if !equal(got, sorted(c.want)) {
				t.Errorf("%s on %s: got %v, want %v", c.name, coll.Name(), got, sorted(c.want))
			}
		}
		r := testenv.Explain(t, indexed.Database(), bson.D{{Key: "find", Value: "indexed"}, {Key: "filter", Value: c.filter}}, "executionStats")
		stages := strings.Join(testenv.Stages(testenv.WinningPlan(r)), ">")
		if c.usesIndex && stages != "FETCH>IXSCAN" {
			t.Errorf("%s: winning plan %s, want FETCH>IXSCAN over the 2dsphere index", c.name, stages)
		}
		if !c.usesIndex && stages != "COLLSCAN" {
			t.Errorf("%s: winning plan %s, want COLLSCAN (flat shapes need a 2d index)", c.name, stages)
		}
	}
}

// $near and $nearSphere around the poles and across the antimeridian over
// points, against a brute-force haversine ranking.
func TestNearPolesAntimeridian(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("pts")
	testenv.CreateIndex(t, coll, bson.D{{Key: "geo", Value: "2dsphere"}})
	pts := map[string][2]float64{}
	var docs []any
	for _, d := range shapeSet {
		if len(d) < 2 {
			continue
		}
		g, ok := d[1].Value.(bson.D)
		if !ok || g[0].Value != "Point" {
			continue
		}
		c := g[1].Value.(bson.A)
		pts[d[0].Value.(string)] = [2]float64{toF(c[0]), toF(c[1])}
		docs = append(docs, d)
	}
	insert(t, coll, docs...)
	cases := []struct {
		name   string
		center [2]float64
		op     string
		max    float64 // radians; 0 none
	}{
		{"north", [2]float64{-45, 89}, "$near", 0},
		{"south", [2]float64{0, -89.5}, "$nearSphere", 0},
		{"antimeridian", [2]float64{-179.9, 0.2}, "$near", 0.05},
		{"antimeridian-east", [2]float64{179.9, 0.2}, "$nearSphere", 0.05},
	}
	for _, c := range cases {
		q := bson.D{{Key: "$geometry", Value: point(c.center[0], c.center[1])}}
		if c.max > 0 {
			q = append(q, bson.E{Key: "$maxDistance", Value: c.max * earthRadius})
		}
		got := names(t, coll, bson.D{{Key: "geo", Value: bson.D{{Key: c.op, Value: q}}}})
		type nd struct {
			n string
			d float64
		}
		var all []nd
		for n, p := range pts {
			d := haversine(c.center[0], c.center[1], p[0], p[1])
			if c.max == 0 || d <= c.max {
				all = append(all, nd{n, d})
			}
		}
		var want []string
		for len(all) > 0 {
			bi := 0
			for i := range all {
				if all[i].d < all[bi].d {
					bi = i
				}
			}
			want = append(want, all[bi].n)
			all = append(all[:bi], all[bi+1:]...)
		}
		if !equal(got, want) {
			t.Errorf("%s: got %v, want %v", c.name, got, want)
		}
	}
	// The legacy form of $nearSphere takes radians.
	got := names(t, coll, bson.D{{Key: "geo", Value: bson.D{{Key: "$nearSphere", Value: bson.A{0, 90}}, {Key: "$maxDistance", Value: 0.01}}}})
	if !equal(got, []string{"p_npole", "p_npole_near"}) {
		t.Errorf("legacy $nearSphere: got %v", got)
	}
}

func toF(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	return 0
}
