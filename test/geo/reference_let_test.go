package geo_test

import (
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// geoNearDocs runs an aggregate on coll and returns its documents.
func geoNearDocs(t *testing.T, coll *mongo.Collection, p mongo.Pipeline, opts ...options.Lister[options.AggregateOptions]) []bson.Raw {
	t.Helper()
	cur, err := coll.Aggregate(testenv.Ctx(t), p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(testenv.Ctx(t), &docs); err != nil {
		t.Fatal(err)
	}
	return docs
}

func rawNames(docs []bson.Raw) []string {
	out := []string{}
	for _, d := range docs {
		out = append(out, d.Lookup("name").StringValue())
	}
	return out
}

// The $geoNear reference page's remaining examples over places:
// "Specify a Minimum Distance" (minDistance 2 over Parks: Central Park
// only), "$geoNear with the let option" (near "$$pt" bound by the
// aggregate's let to a legacy pair: both parks, distances in radians), and "Use Bound let
// Option" (a $lookup whose sub-pipeline's $geoNear is near each outer
// document's location: every place, nearest first, Sara D. Roosevelt Park
// itself at 0).
func TestGeoNearLetDocsExamples(t *testing.T) {
	t.Parallel()
	coll := places(t)

	t.Run("minDistance", func(t *testing.T) {
		docs := geoNearDocs(t, coll, mongo.Pipeline{{{Key: "$geoNear", Value: bson.D{
			{Key: "near", Value: point(-73.99279, 40.719296)},
			{Key: "distanceField", Value: "dist.calculated"},
			{Key: "minDistance", Value: 2},
			{Key: "query", Value: bson.D{{Key: "category", Value: "Parks"}}},
			{Key: "includeLocs", Value: "dist.location"},
			{Key: "spherical", Value: true},
		}}}})
		if got := rawNames(docs); !equal(got, []string{"Central Park"}) {
			t.Fatalf("got %v, want [Central Park]", got)
		}
		want := haversine(-73.99279, 40.719296, -73.97, 40.77) * earthRadius
		if got := docs[0].Lookup("dist", "calculated").Double(); math.Abs(got-want) > 1e-3 {
			t.Fatalf("dist.calculated %v, want %v", got, want)
		}
		if c := docs[0].Lookup("dist", "location", "coordinates").Array().Index(0).Double(); c != -73.97 {
			t.Fatalf("dist.location %v", docs[0])
		}
	})

	t.Run("let", func(t *testing.T) {
		docs := geoNearDocs(t, coll, mongo.Pipeline{{{Key: "$geoNear", Value: bson.D{
			{Key: "near", Value: "$$pt"},
			{Key: "distanceField", Value: "distance"},
			{Key: "maxDistance", Value: 2},
			{Key: "query", Value: bson.D{{Key: "category", Value: "Parks"}}},
			{Key: "includeLocs", Value: "dist.location"},
			{Key: "spherical", Value: true},
		}}}}, options.Aggregate().SetLet(bson.D{{Key: "pt", Value: bson.A{-73.99279, 40.719296}}}))
		// The point is a legacy pair: maxDistance 2 and the distances are
		// radians, so both parks are in (documented: Sara D. Roosevelt
		// Park at 1.5e-7, then Central Park at 0.00093).
		if got := rawNames(docs); !equal(got, []string{"Sara D. Roosevelt Park", "Central Park"}) {
			t.Fatalf("got %v, want [Sara D. Roosevelt Park Central Park]", got)
		}
		for _, d := range docs {
			p := placeCoords[d.Lookup("name").StringValue()]
			want := haversine(-73.99279, 40.719296, p[0], p[1])
			if got := d.Lookup("distance").Double(); math.Abs(got-want) > 1e-9 {
				t.Fatalf("%s: distance %v, want %v", d.Lookup("name"), got, want)
			}
		}
	})

	t.Run("let inside a GeoJSON point", func(t *testing.T) {
		docs := geoNearDocs(t, coll, mongo.Pipeline{{{Key: "$geoNear", Value: bson.D{
			{Key: "near", Value: bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: "$$pt"}}},
			{Key: "distanceField", Value: "distance"},
			{Key: "maxDistance", Value: 2},
			{Key: "spherical", Value: true},
		}}}}, options.Aggregate().SetLet(bson.D{{Key: "pt", Value: bson.A{-73.99279, 40.719296}}}))
		// A GeoJSON point: maxDistance is 2 meters.
		if got := rawNames(docs); !equal(got, []string{"Sara D. Roosevelt Park"}) {
			t.Fatalf("got %v, want [Sara D. Roosevelt Park]", got)
		}
	})

	t.Run("bound let in lookup", func(t *testing.T) {
		docs := geoNearDocs(t, coll, mongo.Pipeline{
			{{Key: "$lookup", Value: bson.D{
				{Key: "from", Value: "places"},
				{Key: "let", Value: bson.D{{Key: "pt", Value: "$location"}}},
				{Key: "pipeline", Value: bson.A{bson.D{{Key: "$geoNear", Value: bson.D{
					{Key: "near", Value: "$$pt"},
					{Key: "distanceField", Value: "distance"},
				}}}}},
				{Key: "as", Value: "joinedField"},
			}}},
			{{Key: "$match", Value: bson.D{{Key: "name", Value: "Sara D. Roosevelt Park"}}}},
		})
		if len(docs) != 1 {
			t.Fatalf("got %v", docs)
		}
		vals, err := docs[0].Lookup("joinedField").Array().Values()
		if err != nil {
			t.Fatal(err)
		}
		wantNames := []string{"Sara D. Roosevelt Park", "Central Park", "Polo Grounds"}
		if len(vals) != 3 {
			t.Fatalf("joinedField %v", vals)
		}
		for i, v := range vals {
			d := v.Document()
			name := d.Lookup("name").StringValue()
			if name != wantNames[i] {
				t.Fatalf("joinedField[%d] %s, want %s", i, name, wantNames[i])
			}
			p := placeCoords[name]
			want := haversine(-73.9928, 40.7193, p[0], p[1]) * earthRadius
			if got := d.Lookup("distance").Double(); math.Abs(got-want) > 1e-3 {
				t.Fatalf("%s: distance %v, want %v", name, got, want)
			}
		}
	})
}

// The $near and $nearSphere reference pages' legacy-coordinate examples
// over a 2d index: $near [-73.9667, 40.78] with $maxDistance 0.10
// (flat degrees: all three are within it, nearest first; 0.06 leaves
// out Sara D. Roosevelt Park at 0.066), and $nearSphere with $minDistance
// 0.0004 radians (2.55 km: Central Park, 1.15 km away, is left out).
func TestLegacyNearDocsExamples(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("legacyplaces")
	for name, p := range placeCoords {
		insert(t, coll, bson.D{{Key: "name", Value: name}, {Key: "location", Value: bson.A{p[0], p[1]}}})
	}
	testenv.CreateIndex(t, coll, bson.D{{Key: "location", Value: "2d"}})
	cases := []struct {
		name   string
		filter bson.D
		want   []string
	}{
		{"near-max", bson.D{{Key: "location", Value: bson.D{{Key: "$near", Value: bson.A{-73.9667, 40.78}}, {Key: "$maxDistance", Value: 0.10}}}},
			[]string{"Central Park", "Polo Grounds", "Sara D. Roosevelt Park"}},
		{"near-max-small", bson.D{{Key: "location", Value: bson.D{{Key: "$near", Value: bson.A{-73.9667, 40.78}}, {Key: "$maxDistance", Value: 0.06}}}},
			[]string{"Central Park", "Polo Grounds"}},
		{"nearSphere-min", bson.D{{Key: "location", Value: bson.D{{Key: "$nearSphere", Value: bson.A{-73.9667, 40.78}}, {Key: "$minDistance", Value: 0.0004}}}},
			[]string{"Polo Grounds", "Sara D. Roosevelt Park"}},
		{"nearSphere-max", bson.D{{Key: "location", Value: bson.D{{Key: "$nearSphere", Value: bson.A{-73.9667, 40.78}}, {Key: "$maxDistance", Value: 5000 / earthRadius}}}},
			[]string{"Central Park"}},
		// $geoWithin legacy shapes: $box, $center (flat degrees), $polygon.
		{"box", bson.D{{Key: "location", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$box", Value: bson.A{bson.A{-74, 40.7}, bson.A{-73.96, 40.78}}}}}}}},
			[]string{"Central Park", "Sara D. Roosevelt Park"}},
		{"center", bson.D{{Key: "location", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$center", Value: bson.A{bson.A{-73.94, 40.83}, 0.01}}}}}}},
			[]string{"Polo Grounds"}},
		{"polygon", bson.D{{Key: "location", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$polygon", Value: bson.A{bson.A{-74, 40.7}, bson.A{-73.9, 40.7}, bson.A{-73.9, 40.8}, bson.A{-74, 40.75}}}}}}}},
			[]string{"Sara D. Roosevelt Park"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := names(t, coll, c.filter)
			if c.name == "box" || c.name == "polygon" || c.name == "center" {
				got = sorted(got)
			}
			if !equal(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

// The $box and $center reference examples' shapes include their
// boundary: $box [[0, 0], [100, 100]] holds its corners and edges, and
// $center [[-74, 40.74], 10] holds a point exactly 10 away; with and
// without a 2d index.
func TestLegacyShapeBoundaries(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	indexed := db.Collection("boundidx")
	plain := db.Collection("boundplain")
	pts := []struct {
		name string
		p    [2]float64
	}{
		{"corner-low", [2]float64{0, 0}},
		{"corner-high", [2]float64{100, 100}},
		{"edge", [2]float64{0, 50}},
		{"inside", [2]float64{50, 50}},
		{"outside", [2]float64{100.5, 50}},
		{"center-rim", [2]float64{-64, 40.74}},
		{"center-out", [2]float64{-63.9, 40.74}},
	}
	for _, c := range []*mongo.Collection{indexed, plain} {
		for _, p := range pts {
			insert(t, c, bson.D{{Key: "name", Value: p.name}, {Key: "loc", Value: bson.A{p.p[0], p.p[1]}}})
		}
	}
	testenv.CreateIndex(t, indexed, bson.D{{Key: "loc", Value: "2d"}})
	cases := []struct {
		name   string
		filter bson.D
		want   []string
	}{
		{"box", bson.D{{Key: "loc", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$box", Value: bson.A{bson.A{0, 0}, bson.A{100, 100}}}}}}}},
			[]string{"corner-high", "corner-low", "edge", "inside"}},
		{"center", bson.D{{Key: "loc", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$center", Value: bson.A{bson.A{-74, 40.74}, 10}}}}}}},
			[]string{"center-rim"}},
	}
	for _, c := range cases {
		for _, cl := range []*mongo.Collection{indexed, plain} {
			if got := sorted(names(t, cl, c.filter)); !equal(got, c.want) {
				t.Errorf("%s on %s: got %v, want %v", c.name, cl.Name(), got, c.want)
			}
		}
	}
}

// The $geoNear page's "Specify Which Geospatial Index to Use": places
// with a 2dsphere index on location and a 2d index on legacy; key
// "legacy" with a legacy near point and no spherical measures in the
// plane (Sara D. Roosevelt Park, then Central Park, both Parks), and key
// "location" with spherical measures on the sphere.
func TestGeoNearKeyDocsExample(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("places")
	for name, p := range placeCoords {
		cat := "Parks"
		if name == "Polo Grounds" {
			cat = "Stadiums"
		}
		insert(t, coll, bson.D{{Key: "name", Value: name}, {Key: "location", Value: point(p[0], p[1])}, {Key: "legacy", Value: bson.A{p[0], p[1]}}, {Key: "category", Value: cat}})
	}
	testenv.CreateIndex(t, coll, bson.D{{Key: "location", Value: "2dsphere"}})
	testenv.CreateIndex(t, coll, bson.D{{Key: "legacy", Value: "2d"}})
	near := [2]float64{-73.98142, 40.71782}
	for _, key := range []string{"legacy", "location"} {
		t.Run(key, func(t *testing.T) {
			stage := bson.D{
				{Key: "near", Value: bson.A{near[0], near[1]}},
				{Key: "key", Value: key},
				{Key: "distanceField", Value: "dist.calculated"},
				{Key: "query", Value: bson.D{{Key: "category", Value: "Parks"}}},
			}
			if key == "location" {
				stage = append(stage, bson.E{Key: "spherical", Value: true})
			}
			docs := geoNearDocs(t, coll, mongo.Pipeline{{{Key: "$geoNear", Value: stage}}, {{Key: "$limit", Value: 5}}})
			if got := rawNames(docs); !equal(got, []string{"Sara D. Roosevelt Park", "Central Park"}) {
				t.Fatalf("got %v", got)
			}
			for _, d := range docs {
				p := placeCoords[d.Lookup("name").StringValue()]
				want := math.Hypot(p[0]-near[0], p[1]-near[1])
				if key == "location" {
					want = haversine(near[0], near[1], p[0], p[1]) // radians: a legacy point
				}
				if got := d.Lookup("dist", "calculated").Double(); math.Abs(got-want) > 1e-9 {
					t.Fatalf("%s: dist.calculated %v, want %v", d.Lookup("name"), got, want)
				}
			}
		})
	}
}

// $geoNear refuses its own 'collation' ("specify a collation for the
// entire aggregation command"): its query runs under the command's
// collation, as find's $near does under find's.
func TestGeoNearCommandCollation(t *testing.T) {
	t.Parallel()
	coll := places(t)
	ci := &options.Collation{Locale: "en", Strength: 2}
	lower := bson.D{{Key: "category", Value: "parks"}}
	docs := geoNearDocs(t, coll, mongo.Pipeline{{{Key: "$geoNear", Value: bson.D{
		{Key: "near", Value: point(-73.9667, 40.78)}, {Key: "distanceField", Value: "d"}, {Key: "query", Value: lower}}}}},
		options.Aggregate().SetCollation(ci))
	want := []string{"Central Park", "Sara D. Roosevelt Park"}
	if got := rawNames(docs); !equal(got, want) {
		t.Fatalf("aggregate with collation: %v, want %v", got, want)
	}
	// Without it, binary: "parks" is not "Parks".
	docs = geoNearDocs(t, coll, mongo.Pipeline{{{Key: "$geoNear", Value: bson.D{
		{Key: "near", Value: point(-73.9667, 40.78)}, {Key: "distanceField", Value: "d"}, {Key: "query", Value: lower}}}}})
	if got := rawNames(docs); len(got) != 0 {
		t.Fatalf("aggregate without collation: %v, want none", got)
	}
	// find's $near with the same collation agrees.
	cur, err := coll.Find(testenv.Ctx(t), append(lower, bson.E{Key: "location", Value: bson.D{{Key: "$near", Value: bson.D{{Key: "$geometry", Value: point(-73.9667, 40.78)}}}}}),
		options.Find().SetCollation(ci))
	if err != nil {
		t.Fatal(err)
	}
	var found []bson.Raw
	if err := cur.All(testenv.Ctx(t), &found); err != nil {
		t.Fatal(err)
	}
	if got := rawNames(found); !equal(got, want) {
		t.Fatalf("find $near with collation: %v, want %v", got, want)
	}
}

// The $centerSphere page's example, 10 miles (10/3963.2 radians) around
// [-88, 30], over legacy pairs with a 2d index, GeoJSON points with a
// 2dsphere index, and both without an index; membership by haversine.
func TestCenterSphereDocsExample(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	pts := map[string][2]float64{
		"center": {-88, 30}, "5mi-north": {-88, 30 + 5/69.0}, "9mi-east": {-88 + 9/(69.0*math.Cos(30*math.Pi/180)), 30},
		"11mi-south": {-88, 30 - 11/69.0}, "far": {-87, 31},
	}
	radius := 10 / 3963.2
	var want []string
	for name, p := range pts {
		if haversine(-88, 30, p[0], p[1]) <= radius {
			want = append(want, name)
		}
	}
	want = sorted(want)
	if len(want) != 3 {
		t.Fatalf("test data: %v", want)
	}
	filter := bson.D{{Key: "loc", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$centerSphere", Value: bson.A{bson.A{-88, 30}, radius}}}}}}}
	for _, c := range []struct {
		name   string
		legacy bool
		index  string
	}{{"legacy-2d", true, "2d"}, {"legacy-none", true, ""}, {"geojson-2dsphere", false, "2dsphere"}, {"geojson-none", false, ""}, {"legacy-2dsphere", true, "2dsphere"}} {
		coll := db.Collection(c.name)
		for name, p := range pts {
			var loc any = point(p[0], p[1])
			if c.legacy {
				loc = bson.A{p[0], p[1]}
			}
			insert(t, coll, bson.D{{Key: "name", Value: name}, {Key: "loc", Value: loc}})
		}
		if c.index != "" {
			testenv.CreateIndex(t, coll, bson.D{{Key: "loc", Value: c.index}})
		}
		if got := sorted(names(t, coll, filter)); !equal(got, want) {
			t.Errorf("%s: got %v, want %v", c.name, got, want)
		}
	}
}

// The "Geospatial Queries" page's $geoWithin polygon over places: only
// Central Park lies inside (its edges pass 200 m and more from it).
func TestGeoWithinQueriesPageExample(t *testing.T) {
	t.Parallel()
	coll := places(t)
	poly := polygon([][2]float64{{-73.95, 40.80}, {-73.94, 40.79}, {-73.97, 40.76}, {-73.98, 40.76}, {-73.95, 40.80}})
	for _, op := range []string{"$geoWithin", "$geoIntersects"} {
		got := names(t, coll, bson.D{{Key: "location", Value: bson.D{{Key: op, Value: bson.D{{Key: "$geometry", Value: poly}}}}}})
		if !equal(got, []string{"Central Park"}) {
			t.Errorf("%s: got %v, want [Central Park]", op, got)
		}
	}
}

// $geoNear's query may use the command's let variables and a $lookup's
// in $expr, as a $match may: the parks by category "$$cat", and for each
// place the other places nearest it ("$$self" excluded).
func TestGeoNearQueryVariables(t *testing.T) {
	t.Parallel()
	coll := places(t)
	docs := geoNearDocs(t, coll, mongo.Pipeline{{{Key: "$geoNear", Value: bson.D{
		{Key: "near", Value: point(-73.9667, 40.78)}, {Key: "distanceField", Value: "d"},
		{Key: "query", Value: bson.D{{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{"$category", "$$cat"}}}}}}}}}},
		options.Aggregate().SetLet(bson.D{{Key: "cat", Value: "Parks"}}))
	if got, want := rawNames(docs), []string{"Central Park", "Sara D. Roosevelt Park"}; !equal(got, want) {
		t.Fatalf("let cat: %v, want %v", got, want)
	}
	docs = geoNearDocs(t, coll, mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "name", Value: "Sara D. Roosevelt Park"}}}},
		{{Key: "$lookup", Value: bson.D{
			{Key: "from", Value: "places"},
			{Key: "let", Value: bson.D{{Key: "pt", Value: "$location"}, {Key: "self", Value: "$name"}}},
			{Key: "pipeline", Value: bson.A{bson.D{{Key: "$geoNear", Value: bson.D{
				{Key: "near", Value: "$$pt"}, {Key: "distanceField", Value: "distance"},
				{Key: "query", Value: bson.D{{Key: "$expr", Value: bson.D{{Key: "$ne", Value: bson.A{"$name", "$$self"}}}}}},
			}}}}},
			{Key: "as", Value: "others"},
		}}},
	})
	if len(docs) != 1 {
		t.Fatalf("got %v", docs)
	}
	vals, _ := docs[0].Lookup("others").Array().Values()
	var got []string
	for _, v := range vals {
		got = append(got, v.Document().Lookup("name").StringValue())
	}
	if want := []string{"Central Park", "Polo Grounds"}; !equal(got, want) {
		t.Fatalf("others: %v, want %v", got, want)
	}
}

// A compound {location: "2dsphere", category: 1} index has the simple
// collation: a case-insensitive query may not bound category with it, and
// still finds both parks by "parks" through $near, $geoWithin and
// $geoNear.
func TestCompoundGeoIndexOtherCollation(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("cp")
	for name, p := range placeCoords {
		cat := "Parks"
		if name == "Polo Grounds" {
			cat = "Stadiums"
		}
		insert(t, coll, bson.D{{Key: "name", Value: name}, {Key: "location", Value: point(p[0], p[1])}, {Key: "category", Value: cat}})
	}
	testenv.CreateIndex(t, coll, bson.D{{Key: "location", Value: "2dsphere"}, {Key: "category", Value: 1}})
	ci := &options.Collation{Locale: "en", Strength: 2}
	want := []string{"Central Park", "Sara D. Roosevelt Park"}
	for _, f := range []bson.D{
		{{Key: "category", Value: "parks"}, {Key: "location", Value: bson.D{{Key: "$near", Value: bson.D{{Key: "$geometry", Value: point(-73.9667, 40.78)}}}}}},
		{{Key: "category", Value: "parks"}, {Key: "location", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$centerSphere", Value: bson.A{bson.A{-73.9667, 40.78}, 0.01}}}}}}},
	} {
		cur, err := coll.Find(testenv.Ctx(t), f, options.Find().SetCollation(ci))
		if err != nil {
			t.Fatal(err)
		}
		var docs []bson.Raw
		if err := cur.All(testenv.Ctx(t), &docs); err != nil {
			t.Fatal(err)
		}
		if got := sorted(rawNames(docs)); !equal(got, want) {
			t.Errorf("%v: got %v, want %v", f, got, want)
		}
	}
	docs := geoNearDocs(t, coll, mongo.Pipeline{{{Key: "$geoNear", Value: bson.D{{Key: "near", Value: point(-73.9667, 40.78)}, {Key: "distanceField", Value: "d"},
		{Key: "query", Value: bson.D{{Key: "category", Value: "parks"}}}}}}}, options.Aggregate().SetCollation(ci))
	if got := rawNames(docs); !equal(got, want) {
		t.Errorf("$geoNear: got %v, want %v", got, want)
	}
}
