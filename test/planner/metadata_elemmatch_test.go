package planner_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// Image metadata (patterns/metadata): $all of two $elemMatch on metadata
// uses the compound multikey index (its bounds are in
// testdata/metadata_multikey.txt) and fetches no more documents than match
// the first pair.
func TestMetadataAllElemMatch(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("images")
	// The acceptance size (LODE_ACCEPTANCE=1) is 100k images (the compound
	// multikey index holds one key per metadata element, 12 per image, as
	// MongoDB's does); the everyday run loads 12k.
	n := testenv.Size(12_000, 100_000)
	testenv.InsertBatches(t, coll, n, func(i int) any { return testenv.MetadataImage(i) })
	testenv.CreateIndex(t, coll, bson.D{{Key: "metadata.key", Value: 1}, {Key: "metadata.value", Value: 1}})
	first := bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "key", Value: "MIME type"}, {Key: "value", Value: "image/jpeg"}}}}
	second := bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "key", Value: "Flash"}, {Key: "value", Value: "No, auto"}}}}
	filter := bson.D{{Key: "metadata", Value: bson.D{{Key: "$all", Value: bson.A{first, second}}}}}
	firstCount := testenv.Count(t, coll, bson.D{{Key: "metadata", Value: first}})
	want := testenv.Count(t, coll, filter)
	res := testenv.Explain(t, db, bson.D{{Key: "find", Value: "images"}, {Key: "filter", Value: filter}}, "executionStats")
	wp := res.Lookup("queryPlanner", "winningPlan").Document()
	ix := testenv.FindStage(wp, "IXSCAN")
	if ix == nil || ix.Lookup("indexName").StringValue() != "metadata.key_1_metadata.value_1" {
		t.Fatalf("winning plan %v", wp)
	}
	es := res.Lookup("executionStats").Document()
	if got := es.Lookup("nReturned").AsInt64(); got != want || want != int64((n+11)/12) {
		t.Errorf("nReturned %d, want %d (= ceil(n/12))", got, want)
	}
	if docs := es.Lookup("totalDocsExamined").AsInt64(); docs > firstCount {
		t.Errorf("totalDocsExamined %d > %d matching the first pair", docs, firstCount)
	}
}
