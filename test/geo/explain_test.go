package geo_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// Explain of $near at executionStats: GEO_NEAR_2DSPHERE over FETCH >
// IXSCAN per annulus searched, its searchIntervals (in meters for a
// GeoJSON point) accounting for every document returned.
func TestNearExplain(t *testing.T) {
	t.Parallel()
	coll := places(t)
	filter := bson.D{{Key: "location", Value: bson.D{{Key: "$near", Value: bson.D{{Key: "$geometry", Value: point(-73.9667, 40.78)}, {Key: "$maxDistance", Value: 10000}}}}}}
	r := testenv.Explain(t, coll.Database(), bson.D{{Key: "find", Value: "places"}, {Key: "filter", Value: filter}}, "executionStats")
	wp := testenv.WinningPlan(r)
	if wp.Lookup("stage").StringValue() != "GEO_NEAR_2DSPHERE" || wp.Lookup("indexName").StringValue() != "location_2dsphere" {
		t.Fatalf("winning plan %v", wp)
	}
	es := r.Lookup("executionStats", "executionStages").Document()
	ivs, _ := es.Lookup("searchIntervals").Array().Values()
	kids, _ := es.Lookup("inputStages").Array().Values()
	if len(ivs) == 0 || len(ivs) != len(kids) {
		t.Fatalf("%d searchIntervals, %d inputStages", len(ivs), len(kids))
	}
	var returned int64
	prevMax := 0.0
	for i, iv := range ivs {
		d := iv.Document()
		if min := d.Lookup("minDistance").Double(); min != prevMax {
			t.Fatalf("interval %d starts at %v, previous ended at %v", i, min, prevMax)
		}
		prevMax = d.Lookup("maxDistance").Double()
		returned += d.Lookup("nReturned").AsInt64()
		k := kids[i].Document()
		if k.Lookup("filter").Type != 0 {
			t.Fatalf("annulus %d: FETCH filter %v (only $near in the query)", i, k.Lookup("filter"))
		}
		if k.Lookup("stage").StringValue() != "FETCH" || k.Lookup("inputStage", "stage").StringValue() != "IXSCAN" {
			t.Fatalf("annulus %d: %v", i, k)
		}
	}
	if prevMax != 10000 || returned != 3 || r.Lookup("executionStats", "nReturned").AsInt64() != 3 {
		t.Fatalf("intervals end at %v, return %d (nReturned %v)", prevMax, returned, r.Lookup("executionStats", "nReturned"))
	}
}

// A compound 2dsphere index bounds its other fields in every annulus's
// scan: $near with category "Parks" over {location: "2dsphere",
// category: 1} fetches only parks (of 200 places, 20 parks).
func TestNearCompoundBounds(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("places")
	testenv.CreateIndex(t, coll, bson.D{{Key: "location", Value: "2dsphere"}, {Key: "category", Value: 1}})
	var docs []any
	for i := 0; i < 200; i++ {
		cat := "Stadiums"
		if i%10 == 0 {
			cat = "Parks"
		}
		docs = append(docs, bson.D{{Key: "name", Value: i}, {Key: "location", Value: point(-74+float64(i%20)*0.01, 40.7+float64(i/20)*0.01)}, {Key: "category", Value: cat}})
	}
	insert(t, coll, docs...)
	filter := bson.D{{Key: "location", Value: bson.D{{Key: "$near", Value: bson.D{{Key: "$geometry", Value: point(-73.9, 40.75)}}}}}, {Key: "category", Value: "Parks"}}
	r := testenv.Explain(t, db, bson.D{{Key: "find", Value: "places"}, {Key: "filter", Value: filter}}, "executionStats")
	if n := r.Lookup("executionStats", "nReturned").AsInt64(); n != 20 {
		t.Fatalf("nReturned %d, want 20", n)
	}
	// Each annulus's scan is bounded to category "Parks"; a park beyond
	// an annulus is fetched again by the next one, never a stadium.
	ixb := r.Lookup("executionStats", "executionStages", "inputStages", "0", "inputStage", "indexBounds", "category")
	if vals, _ := ixb.Array().Values(); len(vals) != 1 || vals[0].StringValue() != `["Parks", "Parks"]` {
		t.Fatalf("category bounds %v", ixb)
	}
	if f := r.Lookup("executionStats", "executionStages", "inputStages", "0", "filter"); f.String() != `{"category": {"$eq": "Parks"}}` {
		t.Fatalf("annulus FETCH filter %v, want the query without $near", f)
	}
	if d := r.Lookup("executionStats", "totalDocsExamined").AsInt64(); d > 40 {
		t.Fatalf("docsExamined %d, want at most 40 (parks only, some twice)", d)
	}
}

// An aggregate starting with $geoNear explains its first stage as
// mongod's $geoNearCursor with the GEO_NEAR_2DSPHERE plan.
func TestGeoNearAggregateExplain(t *testing.T) {
	t.Parallel()
	coll := places(t)
	for _, v := range []string{"queryPlanner", "executionStats"} {
		r := testenv.Explain(t, coll.Database(), bson.D{{Key: "aggregate", Value: "places"}, {Key: "pipeline", Value: bson.A{
			bson.D{{Key: "$geoNear", Value: bson.D{{Key: "near", Value: point(-73.9667, 40.78)}, {Key: "distanceField", Value: "d"}}}},
			bson.D{{Key: "$limit", Value: 2}}}}, {Key: "cursor", Value: bson.D{}}}, v)
		st := r.Lookup("stages", "0", "$geoNearCursor", "queryPlanner", "winningPlan", "stage")
		if st.Type == 0 || st.StringValue() != "GEO_NEAR_2DSPHERE" {
			t.Fatalf("%s: first stage %v", v, r.Lookup("stages", "0"))
		}
		if v == "executionStats" && r.Lookup("stages", "1", "nReturned").AsInt64() != 2 {
			t.Fatalf("$limit nReturned %v", r.Lookup("stages", "1"))
		}
	}
}

// A compound 2dsphere index whose geo field comes second serves a
// $geoWithin on the geo field alone (the first field unbounded).
func TestGeoWithinNonLeadingGeoField(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("c")
	testenv.CreateIndex(t, coll, bson.D{{Key: "category", Value: 1}, {Key: "location", Value: "2dsphere"}})
	insert(t, coll,
		bson.D{{Key: "name", Value: "in"}, {Key: "category", Value: "a"}, {Key: "location", Value: point(1, 1)}},
		bson.D{{Key: "name", Value: "out"}, {Key: "category", Value: "b"}, {Key: "location", Value: point(20, 20)}},
		bson.D{{Key: "name", Value: "none"}, {Key: "category", Value: "a"}})
	f := bson.D{{Key: "location", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$geometry", Value: polygon(square)}}}}}}
	if got := names(t, coll, f); !equal(got, []string{"in"}) {
		t.Fatalf("got %v", got)
	}
	r := testenv.Explain(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: f}}, "queryPlanner")
	ix := testenv.FindStage(testenv.WinningPlan(r), "IXSCAN")
	if ix == nil || ix.Lookup("indexName").StringValue() != "category_1_location_2dsphere" {
		t.Fatalf("plan %v", testenv.WinningPlan(r))
	}
}
