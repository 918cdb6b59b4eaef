package geo_test

import (
	"math"
	"sort"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// legacyPoints returns 2d-indexed and plain collections of legacy pairs
// on a grid (lng -10..10, lat -10..10 by 0.5, shifted by 0.25 so no point
// sits on a shape's edge), plus their coordinates by name.
func legacyPoints(t *testing.T) (indexed, plain *mongo.Collection, pts map[string][2]float64) {
	_, db := testenv.Open(t)
	indexed, plain = db.Collection("legacy2d"), db.Collection("plain")
	testenv.CreateIndex(t, indexed, bson.D{{Key: "loc", Value: "2d"}})
	pts = map[string][2]float64{}
	var docs []any
	for i := 0; i < 40; i++ {
		for j := 0; j < 40; j++ {
			x, y := -10+0.25+float64(i)*0.5, -10+0.25+float64(j)*0.5
			n := "p" + string(rune('A'+i/26)) + string(rune('a'+i%26)) + string(rune('A'+j/26)) + string(rune('a'+j%26))
			pts[n] = [2]float64{x, y}
			docs = append(docs, bson.D{{Key: "name", Value: n}, {Key: "loc", Value: bson.A{x, y}}})
		}
	}
	insert(t, indexed, docs...)
	insert(t, plain, docs...)
	return indexed, plain, pts
}

// rank returns the names within max of c by dist, nearest first (ties by
// name are left to the caller).
func rank(pts map[string][2]float64, dist func(p [2]float64) float64, max float64) ([]string, map[string]float64) {
	ds := map[string]float64{}
	var out []string
	for n, p := range pts {
		if d := dist(p); d <= max {
			ds[n] = d
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return ds[out[i]] < ds[out[j]] })
	return out, ds
}

// sameRanking compares an ordered result with the expected ranking,
// allowing documents at equal distance in any order.
func sameRanking(got, want []string, ds map[string]float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(ds[got[i]]-ds[want[i]]) > 1e-9 {
			return false
		}
		if _, ok := ds[got[i]]; !ok {
			return false
		}
	}
	return true
}

// The 2d index: $near with legacy pairs in planar distance ($near
// reference page: {$near: [x, y], $maxDistance: d}), $nearSphere in
// radians, $geoWithin's flat shapes over the index, the $geoNear stage.
func TestIndex2D(t *testing.T) {
	t.Parallel()
	indexed, plain, pts := legacyPoints(t)
	ctx := testenv.Ctx(t)
	c := [2]float64{1.1, -2.3}

	got := names(t, indexed, bson.D{{Key: "loc", Value: bson.D{{Key: "$near", Value: bson.A{c[0], c[1]}}, {Key: "$maxDistance", Value: 1.6}}}})
	want, ds := rank(pts, func(p [2]float64) float64 { return math.Hypot(p[0]-c[0], p[1]-c[1]) }, 1.6)
	if !sameRanking(got, want, ds) {
		t.Errorf("$near 2d: got %v, want %v", got, want)
	}
	// The three-element legacy form [x, y, maxDistance].
	if got3 := names(t, indexed, bson.D{{Key: "loc", Value: bson.D{{Key: "$near", Value: bson.A{c[0], c[1], 1.6}}}}}); !sameRanking(got3, want, ds) {
		t.Errorf("$near [x, y, max]: got %v, want %v", got3, want)
	}
	sphere := func(p [2]float64) float64 { return haversine(c[0], c[1], p[0], p[1]) }
	got = names(t, indexed, bson.D{{Key: "loc", Value: bson.D{{Key: "$nearSphere", Value: bson.A{c[0], c[1]}}, {Key: "$maxDistance", Value: 0.02}}}})
	want, ds = rank(pts, sphere, 0.02)
	if !sameRanking(got, want, ds) {
		t.Errorf("$nearSphere 2d: got %v, want %v", got, want)
	}
	r := testenv.Explain(t, indexed.Database(), bson.D{{Key: "find", Value: "legacy2d"}, {Key: "filter", Value: bson.D{{Key: "loc", Value: bson.D{{Key: "$near", Value: bson.A{c[0], c[1]}}}}}}, {Key: "limit", Value: 10}}, "executionStats")
	if st := testenv.Stages(testenv.WinningPlan(r)); st[0] != "LIMIT" || st[1] != "GEO_NEAR_2D" {
		t.Errorf("$near 2d plan %v", st)
	}
	if keys := r.Lookup("executionStats", "totalKeysExamined").AsInt64(); keys > 400 {
		t.Errorf("$near 2d limit 10 examined %d keys of 1600", keys)
	}

	within := func(shape string, arg any) bson.D {
		return bson.D{{Key: "loc", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: shape, Value: arg}}}}}}
	}
	cases := []struct {
		name   string
		filter bson.D
		in     func(p [2]float64) bool
	}{
		{"box", within("$box", bson.A{bson.A{-3, -2}, bson.A{4.1, 1}}), func(p [2]float64) bool { return p[0] >= -3 && p[0] <= 4.1 && p[1] >= -2 && p[1] <= 1 }},
		{"center", within("$center", bson.A{bson.A{c[0], c[1]}, 2.2}), func(p [2]float64) bool { return math.Hypot(p[0]-c[0], p[1]-c[1]) <= 2.2 }},
		{"polygon-triangle", within("$polygon", bson.A{bson.A{0, 0}, bson.A{6, 0}, bson.A{0, 6}}), func(p [2]float64) bool { return p[0] >= 0 && p[1] >= 0 && p[0]+p[1] <= 6 }},
		{"centerSphere", within("$centerSphere", bson.A{bson.A{c[0], c[1]}, 0.05}), func(p [2]float64) bool { return sphere(p) <= 0.05 }},
	}
	for _, cs := range cases {
		var want []string
		for n, p := range pts {
			if cs.in(p) {
				want = append(want, n)
			}
		}
		for _, coll := range []*mongo.Collection{indexed, plain} {
			if got := sorted(names(t, coll, cs.filter)); !equal(got, sorted(want)) {
				t.Errorf("%s on %s: %d results, want %d", cs.name, coll.Name(), len(got), len(want))
			}
		}
		r := testenv.Explain(t, indexed.Database(), bson.D{{Key: "find", Value: "legacy2d"}, {Key: "filter", Value: cs.filter}}, "queryPlanner")
		if st := strings.Join(testenv.Stages(testenv.WinningPlan(r)), ">"); st != "FETCH>IXSCAN" {
			t.Errorf("%s: plan %s, want FETCH>IXSCAN over the 2d index", cs.name, st)
		}
	}

	// $geoNear over the 2d index: planar distances unless spherical.
	cur, err := indexed.Aggregate(ctx, mongo.Pipeline{
		{{Key: "$geoNear", Value: bson.D{{Key: "near", Value: bson.A{c[0], c[1]}}, {Key: "distanceField", Value: "d"}, {Key: "distanceMultiplier", Value: 10}, {Key: "includeLocs", Value: "at"}}}},
		{{Key: "$limit", Value: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	want, ds = rank(pts, func(p [2]float64) float64 { return math.Hypot(p[0]-c[0], p[1]-c[1]) }, math.Inf(1))
	if len(docs) != 5 {
		t.Fatalf("$geoNear 2d: %d docs", len(docs))
	}
	for i, d := range docs {
		n := d.Lookup("name").StringValue()
		if math.Abs(d.Lookup("d").Double()-10*ds[want[i]]) > 1e-9 || math.Abs(ds[n]-ds[want[i]]) > 1e-9 {
			t.Errorf("$geoNear 2d result %d: %s d=%v, want %v", i, n, d.Lookup("d"), 10*ds[want[i]])
		}
		if at := d.Lookup("at", "0").Double(); at != pts[n][0] {
			t.Errorf("includeLocs %v for %s", d.Lookup("at"), n)
		}
	}

	// Keys: out of range and non-legacy values fail the write.
	_, err = indexed.InsertOne(ctx, bson.D{{Key: "loc", Value: bson.A{200, 0}}})
	if code, msg := errInfo(err); code != 13027 || !strings.HasPrefix(msg, "point not in interval of [ -180, 180 ] :: caused by :: { _id: ObjectId(") {
		t.Errorf("out of range: %d %q", code, msg)
	}
	_, err = indexed.InsertOne(ctx, bson.D{{Key: "loc", Value: point(1, 1)}})
	if code, _ := errInfo(err); code != 13026 {
		t.Errorf("GeoJSON in a 2d index: %v, want 13026", err)
	}
	// GeoJSON $near needs a 2dsphere index.
	cur, err = indexed.Find(ctx, bson.D{{Key: "loc", Value: bson.D{{Key: "$near", Value: bson.D{{Key: "$geometry", Value: point(0, 0)}}}}}})
	if err == nil {
		err = cur.All(ctx, &docs)
	}
	if code, _ := errInfo(err); code != 291 {
		t.Errorf("GeoJSON $near over a 2d index: %v, want 291", err)
	}
}
