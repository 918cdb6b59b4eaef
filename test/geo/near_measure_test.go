package geo_test

import (
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestNearMeasure loads N uniformly random points on the sphere (N from
// LODE_GEO_N, default 20,000; 1,000,000 under LODE_ACCEPTANCE), builds the
// 2dsphere index, runs $near with limit 100 and reports its time and the
// keys and documents it examined (explain executionStats). It checks the
// 100 results against a brute-force haversine ranking and that the keys
// examined stay in the low thousands, far below N.
//
//	LODE_GEO_N=1000000 go test ./test/geo -run TestNearMeasure -count=1 -v -timeout 30m
func TestNearMeasure(t *testing.T) {
	n := testenv.Size(20000, 1000000)
	if s := os.Getenv("LODE_GEO_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 100 {
			t.Fatalf("LODE_GEO_N=%q: want an integer >= 100", s)
		}
		n = v
	}
	_, db := testenv.Open(t)
	coll := db.Collection("pts")
	rng := rand.New(rand.NewPCG(20, 26))
	lngs, lats := make([]float64, n), make([]float64, n)
	for i := range lngs {
		// Uniform on the sphere: z = sin(lat) uniform in [-1, 1].
		lngs[i] = rng.Float64()*360 - 180
		lats[i] = math.Asin(rng.Float64()*2-1) * 180 / math.Pi
	}
	start := time.Now()
	testenv.InsertBatches(t, coll, n, func(i int) any {
		return bson.D{{Key: "_id", Value: i}, {Key: "loc", Value: point(lngs[i], lats[i])}}
	})
	load := time.Since(start)
	start = time.Now()
	testenv.CreateIndex(t, coll, bson.D{{Key: "loc", Value: "2dsphere"}})
	build := time.Since(start)

	center := [2]float64{2.35, 48.85}
	filter := bson.D{{Key: "loc", Value: bson.D{{Key: "$near", Value: bson.D{{Key: "$geometry", Value: point(center[0], center[1])}}}}}}
	start = time.Now()
	cur, err := coll.Find(testenv.Ctx(t), filter, options.Find().SetLimit(100))
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		ID int `bson:"_id"`
	}
	if err := cur.All(testenv.Ctx(t), &docs); err != nil {
		t.Fatal(err)
	}
	query := time.Since(start)

	// Brute force: the 100 nearest by haversine.
	ids := make([]int, n)
	dist := make([]float64, n)
	for i := range ids {
		ids[i] = i
		dist[i] = haversine(center[0], center[1], lngs[i], lats[i])
	}
	sort.Slice(ids, func(a, b int) bool { return dist[ids[a]] < dist[ids[b]] })
	if len(docs) != 100 {
		t.Fatalf("got %d results, want 100", len(docs))
	}
	for i, d := range docs {
		// Equal distances may swap; compare distances, not ids.
		if math.Abs(dist[d.ID]-dist[ids[i]]) > 1e-12 {
			t.Fatalf("result %d: _id %d at %v rad, want _id %d at %v rad", i, d.ID, dist[d.ID], ids[i], dist[ids[i]])
		}
	}

	r := testenv.Explain(t, db, bson.D{{Key: "find", Value: "pts"}, {Key: "filter", Value: filter}, {Key: "limit", Value: 100}}, "executionStats")
	keys := r.Lookup("executionStats", "totalKeysExamined").AsInt64()
	docsEx := r.Lookup("executionStats", "totalDocsExamined").AsInt64()
	t.Logf("N=%d load %v, index build %v; $near limit 100: %v, keysExamined %d, docsExamined %d",
		n, load.Round(time.Millisecond), build.Round(time.Millisecond), query.Round(time.Microsecond), keys, docsEx)
	if keys > 5000 {
		t.Fatalf("keysExamined %d: want at most a few thousand", keys)
	}
}
