// Package geo_test drives the geospatial operators, indexes and the
// $geoNear stage through the Go driver, with the examples of MongoDB's
// reference pages and tutorials; expected distances and memberships are
// computed in the tests by brute force (haversine on a sphere of mongod's
// radius, 6378.1 km), never by Lode's code.
package geo_test

import (
	"math"
	"sort"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

const earthRadius = 6378.1 * 1000

// haversine is the great-circle distance in radians between two
// longitude/latitude points.
func haversine(lng1, lat1, lng2, lat2 float64) float64 {
	r := math.Pi / 180
	dLat := (lat2 - lat1) * r
	dLng := (lng2 - lng1) * r
	a := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(lat1*r)*math.Cos(lat2*r)*math.Sin(dLng/2)*math.Sin(dLng/2)
	return 2 * math.Atan2(math.Sqrt(a), math.Sqrt(1-a))
}

func point(lng, lat float64) bson.D {
	return bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: bson.A{lng, lat}}}
}

func polygon(rings ...[][2]float64) bson.D {
	var rs bson.A
	for _, r := range rings {
		var ring bson.A
		for _, p := range r {
			ring = append(ring, bson.A{p[0], p[1]})
		}
		rs = append(rs, ring)
	}
	return bson.D{{Key: "type", Value: "Polygon"}, {Key: "coordinates", Value: rs}}
}

// names runs a find and returns the "name" field of each result in order.
func names(t *testing.T, coll *mongo.Collection, filter any) []string {
	t.Helper()
	cur, err := coll.Find(testenv.Ctx(t), filter)
	if err != nil {
		t.Fatalf("find %v: %v", filter, err)
	}
	var docs []bson.M
	if err := cur.All(testenv.Ctx(t), &docs); err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, d := range docs {
		s, _ := d["name"].(string)
		out = append(out, s)
	}
	return out
}

func sorted(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func insert(t *testing.T, coll *mongo.Collection, docs ...any) {
	t.Helper()
	if _, err := coll.InsertMany(testenv.Ctx(t), docs); err != nil {
		t.Fatal(err)
	}
}
