package clients

import (
	"strings"
	"testing"
)

// TestGeoTutorialPymongo: MongoDB's "Find Restaurants with Geospatial
// Queries" tutorial through pymongo 3.11 (geo_restaurants_pymongo.py).
func TestGeoTutorialPymongo(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	out := runPython(t, s, "geo_restaurants_pymongo.py")
	if !strings.Contains(out, "geo tutorial ok") {
		t.Fatalf("geo_restaurants_pymongo.py did not finish:\n%s", out)
	}
}
