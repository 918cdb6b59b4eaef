package geo_test

import (
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// places is the collection of MongoDB's "Geospatial Queries" page and of
// the $near and $geoNear reference pages.
func places(t *testing.T) *mongo.Collection {
	_, db := testenv.Open(t)
	coll := db.Collection("places")
	insert(t, coll,
		bson.D{{Key: "name", Value: "Central Park"}, {Key: "location", Value: point(-73.97, 40.77)}, {Key: "category", Value: "Parks"}},
		bson.D{{Key: "name", Value: "Sara D. Roosevelt Park"}, {Key: "location", Value: point(-73.9928, 40.7193)}, {Key: "category", Value: "Parks"}},
		bson.D{{Key: "name", Value: "Polo Grounds"}, {Key: "location", Value: point(-73.9375, 40.8303)}, {Key: "category", Value: "Stadiums"}},
	)
	testenv.CreateIndex(t, coll, bson.D{{Key: "location", Value: "2dsphere"}})
	return coll
}

var placeCoords = map[string][2]float64{
	"Central Park":           {-73.97, 40.77},
	"Sara D. Roosevelt Park": {-73.9928, 40.7193},
	"Polo Grounds":           {-73.9375, 40.8303},
}

// The reference pages' $near examples, with the expected documents
// computed by haversine: $near with $minDistance 1000 and $maxDistance
// 5000 meters of [-73.9667, 40.78] is Central Park only (documented).
func TestNearDocsExamples(t *testing.T) {
	t.Parallel()
	coll := places(t)
	center := [2]float64{-73.9667, 40.78}
	cases := []struct {
		name     string
		op       string
		min, max float64 // meters; max < 0: none
	}{
		{"near-min-max", "$near", 1000, 5000},
		{"near-no-bounds", "$near", 0, -1},
		{"near-max-2km", "$near", 0, 2000},
		{"nearSphere-min", "$nearSphere", 2000, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := bson.D{{Key: "$geometry", Value: point(center[0], center[1])}}
			if c.min > 0 {
				q = append(q, bson.E{Key: "$minDistance", Value: c.min})
			}
			if c.max >= 0 {
				q = append(q, bson.E{Key: "$maxDistance", Value: c.max})
			}
			got := names(t, coll, bson.D{{Key: "location", Value: bson.D{{Key: c.op, Value: q}}}})
			// Brute force: filter by distance, sort by distance.
			var want []string
			type nd struct {
				n string
				d float64
			}
			var all []nd
			for n, p := range placeCoords {
				d := haversine(center[0], center[1], p[0], p[1]) * earthRadius
				if d >= c.min && (c.max < 0 || d <= c.max) {
					all = append(all, nd{n, d})
				}
			}
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
				t.Fatalf("got %v, want %v", got, want)
			}
		})
	}
	// The documented result of the first example.
	got := names(t, coll, bson.D{{Key: "location", Value: bson.D{{Key: "$near", Value: bson.D{
		{Key: "$geometry", Value: point(-73.9667, 40.78)}, {Key: "$minDistance", Value: 1000}, {Key: "$maxDistance", Value: 5000}}}}}})
	if !equal(got, []string{"Central Park"}) {
		t.Fatalf("documented $near example: got %v", got)
	}
}

// The $geoNear reference page's examples: maxDistance 2 meters with
// includeLocs (documented: Sara D. Roosevelt Park only, with its
// location), and query + spherical over Parks (Central Park, then Sara D.
// Roosevelt Park); distances are checked against haversine.
func TestGeoNearStageDocsExamples(t *testing.T) {
	t.Parallel()
	coll := places(t)
	ctx := testenv.Ctx(t)
	cur, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$geoNear", Value: bson.D{
		{Key: "near", Value: point(-73.99279, 40.719296)},
		{Key: "distanceField", Value: "dist.calculated"},
		{Key: "maxDistance", Value: 2},
		{Key: "query", Value: bson.D{{Key: "category", Value: "Parks"}}},
		{Key: "includeLocs", Value: "dist.location"},
		{Key: "spherical", Value: true},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || docs[0].Lookup("name").StringValue() != "Sara D. Roosevelt Park" {
		t.Fatalf("got %v", docs)
	}
	want := haversine(-73.99279, 40.719296, -73.9928, 40.7193) * earthRadius
	if got := docs[0].Lookup("dist", "calculated").Double(); math.Abs(got-want) > 1e-3 {
		t.Fatalf("dist.calculated %v, want %v", got, want)
	}
	if loc := docs[0].Lookup("dist", "location", "type"); loc.StringValue() != "Point" {
		t.Fatalf("dist.location %v", docs[0])
	}

	// query + spherical + distanceMultiplier (km).
	cur, err = coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$geoNear", Value: bson.D{
		{Key: "near", Value: point(-73.9667, 40.78)},
		{Key: "spherical", Value: true},
		{Key: "query", Value: bson.D{{Key: "category", Value: "Parks"}}},
		{Key: "distanceField", Value: "calcDistance"},
		{Key: "distanceMultiplier", Value: 0.001},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	docs = nil
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].Lookup("name").StringValue() != "Central Park" || docs[1].Lookup("name").StringValue() != "Sara D. Roosevelt Park" {
		t.Fatalf("got %v", docs)
	}
	for _, d := range docs {
		p := placeCoords[d.Lookup("name").StringValue()]
		want := haversine(-73.9667, 40.78, p[0], p[1]) * earthRadius / 1000
		if got := d.Lookup("calcDistance").Double(); math.Abs(got-want) > 1e-6 {
			t.Fatalf("%s: calcDistance %v, want %v", d.Lookup("name"), got, want)
		}
	}
}

// $geoWithin's reference example polygon, and $centerSphere, over the
// places, with and without the 2dsphere index.
func TestGeoWithinDocsExamples(t *testing.T) {
	t.Parallel()
	coll := places(t)
	_, db := testenv.Open(t)
	plain := db.Collection("noindex")
	cur, err := coll.Find(testenv.Ctx(t), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var all []bson.D
	if err := cur.All(testenv.Ctx(t), &all); err != nil {
		t.Fatal(err)
	}
	for _, d := range all {
		insert(t, plain, d)
	}
	cases := []struct {
		name   string
		filter bson.D
		want   []string
	}{
		{"polygon-manhattan-north", bson.D{{Key: "location", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$geometry", Value: polygon([][2]float64{{-74, 40.75}, {-73.9, 40.75}, {-73.9, 40.85}, {-74, 40.85}, {-74, 40.75}})}}}}}},
			[]string{"Central Park", "Polo Grounds"}},
		{"centerSphere-5km", bson.D{{Key: "location", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$centerSphere", Value: bson.A{bson.A{-73.9667, 40.78}, 5000 / earthRadius}}}}}}},
			[]string{"Central Park"}},
		{"intersects-point", bson.D{{Key: "location", Value: bson.D{{Key: "$geoIntersects", Value: bson.D{{Key: "$geometry", Value: polygon([][2]float64{{-74, 40.7}, {-73.98, 40.7}, {-73.98, 40.73}, {-74, 40.73}, {-74, 40.7}})}}}}}},
			[]string{"Sara D. Roosevelt Park"}},
		{"box-legacy-on-geojson-points", bson.D{{Key: "location", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$box", Value: bson.A{bson.A{-74, 40.75}, bson.A{-73.95, 40.8}}}}}}}},
			[]string{"Central Park"}},
	}
	for _, c := range cases {
		for _, cl := range []*mongo.Collection{coll, plain} {
			got := sorted(names(t, cl, c.filter))
			if !equal(got, sorted(c.want)) {
				t.Errorf("%s on %s: got %v, want %v", c.name, cl.Name(), got, c.want)
			}
		}
	}
}
