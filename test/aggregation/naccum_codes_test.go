package aggregation_test

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestNAccumulatorCodesAndCovariance: the n-accumulators' parse codes
// per family, as mongod's parseMinMaxN, parseFirstLastN and
// accumulatorNParseArgs give them (from MongoDB's own n_accumulators
// test), and $covariancePop over a window of one pair is exactly 0 even
// after the window slid (covariance test).
func TestNAccumulatorCodesAndCovariance(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	win := func(spec string) string {
		return `[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"o": ` + spec + `}}}]`
	}
	for pipeline, want := range map[string]int32{
		win(`{"$minN": "non object"}`):   5787900,
		win(`{"$firstN": "non object"}`): 5787801,
		win(`{"$topN": "non object"}`):   5788001,
		win(`{"$top": {"n": 2, "output": "$s", "sortBy": {"s": 1}}, "window": {"documents": [-1, 1]}}`): 5788002,
		win(`{"$topN": {"output": "$s", "sortBy": {"s": 1}}, "window": {"documents": [-1, 1]}}`):        5788003,
		win(`{"$bottomN": {"n": 2, "sortBy": {"s": 1}}, "window": {"documents": [-1, 1]}}`):             5788004,
		win(`{"$bottom": {"output": "$s"}, "window": {"documents": [-1, 1]}}`):                          5788005,
		`[{"$group": {"_id": null, "x": {"$maxN": "x"}}}]`:                                              5787900,
		`[{"$project": {"x": {"$minN": "x"}}}]`:                                                         5787900,
	} {
		_, err, _ := aggOne(t, d, pipeline, 0)
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != want {
			t.Errorf("%s: %v, want code %d", pipeline, err, want)
		}
	}
	r, err, _ := aggOne(t, d, `[{"$limit": 1}, {"$project": {"_id": 0}},
		{"$unionWith": {"pipeline": [{"$documents": [{"i": 0, "x": 0.1, "y": 0.2}, {"i": 1, "x": 0.7, "y": 0.6}, {"i": 2, "x": 0.3, "y": 0.5}, {"i": 3, "x": 0.9, "y": 0.05}]}]}},
		{"$match": {"i": {"$exists": true}}},
		{"$setWindowFields": {"sortBy": {"i": 1}, "output": {"p": {"$covariancePop": ["$x", "$y"], "window": {"documents": ["current", 1]}}}}},
		{"$match": {"i": 3}}]`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Lookup("cursor", "firstBatch", "0", "p").Double(); p != 0 {
		t.Errorf("$covariancePop of one pair after sliding: %v, want 0", p)
	}
}
