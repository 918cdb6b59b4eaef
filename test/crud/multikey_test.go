package crud_test

import (
	"errors"
	"fmt"
	"sort"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestMultikeyElementWiseKeys: the compound multikey index of image
// metadata (patterns/metadata)
// holds one key per metadata element (MongoDB's key generation), so an
// $elemMatch on one pair examines one key per matching image, a query
// without $elemMatch still matches pairs split over two elements, and the
// index stays small. Its bounds and multiKeyPaths are checked in
// test/planner/testdata/metadata_multikey.txt.
func TestMultikeyElementWiseKeys(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("images")
	const n = 3000
	testenv.InsertBatches(t, coll, n, func(i int) any { return testenv.MetadataImage(i) })
	testenv.CreateIndex(t, coll, bson.D{{Key: "metadata.key", Value: 1}, {Key: "metadata.value", Value: 1}})
	const ixName = "metadata.key_1_metadata.value_1"

	type stats struct{ n, keys, docs int64 }
	run := func(filter bson.D) stats {
		t.Helper()
		res := testenv.Explain(t, db, bson.D{{Key: "find", Value: "images"}, {Key: "filter", Value: filter}}, "executionStats")
		ix := testenv.FindStage(res.Lookup("queryPlanner", "winningPlan").Document(), "IXSCAN")
		if ix == nil || ix.Lookup("indexName").StringValue() != ixName {
			t.Fatalf("%v: winning plan %v", filter, res.Lookup("queryPlanner", "winningPlan"))
		}
		es := res.Lookup("executionStats").Document()
		return stats{es.Lookup("nReturned").AsInt64(), es.Lookup("totalKeysExamined").AsInt64(), es.Lookup("totalDocsExamined").AsInt64()}
	}

	// One pair, one image: one key.
	st := run(bson.D{{Key: "metadata", Value: testenv.ElemMatch("File Name", "img_7.jpg")}})
	if st.n != 1 || st.keys > 2 || st.docs != 1 {
		t.Errorf("$elemMatch on a unique pair: %+v, want 1 returned, about 1 key", st)
	}
	// One pair, a third of the images: one key per matching image.
	st = run(bson.D{{Key: "metadata", Value: testenv.ElemMatch("MIME type", "image/jpeg")}})
	if st.n != n/3 || st.keys > st.n+1 || st.docs != st.n {
		t.Errorf("$elemMatch MIME type: %+v, want %d returned with one key and one document each", st, n/3)
	}
	// $all of two $elemMatch: the first pair bounds the scan (and, with
	// AND_SORTED, the second one too: only the images with both pairs are
	// fetched, at one key per pair and image at most).
	all := bson.D{{Key: "metadata", Value: bson.D{{Key: "$all", Value: bson.A{testenv.ElemMatch("MIME type", "image/jpeg"), testenv.ElemMatch("Flash", "No, auto")}}}}}
	st = run(all)
	if st.n != n/12 || st.keys > n/3+n/4+2 || st.docs > n/3 {
		t.Errorf("$all of $elemMatch: %+v, want %d returned, at most %d keys and %d documents", st, n/12, n/3+n/4+2, n/3)
	}
	// Without $elemMatch the two conditions may hold in different
	// elements (MongoDB's semantics): "Canon" is the Camera make's value,
	// not the MIME type's, and every image matches. Only the leading
	// field is bounded.
	split := bson.D{{Key: "metadata.key", Value: "MIME type"}, {Key: "metadata.value", Value: "Canon"}}
	st = run(split)
	if st.n != n {
		t.Errorf("split pair without $elemMatch: %+v, want all %d images", st, n)
	}
	if got := testenv.Count(t, coll, split); got != n {
		t.Errorf("count of the split pair = %d, want %d", got, n)
	}
	if got := testenv.Count(t, coll, bson.D{{Key: "metadata", Value: testenv.ElemMatch("MIME type", "Canon")}}); got != 0 {
		t.Errorf("$elemMatch of the split pair matched %d", got)
	}
	if got := testenv.Count(t, coll, bson.D{{Key: "metadata.key", Value: "MIME type"}, {Key: "metadata.value", Value: "no such value"}}); got != 0 {
		t.Errorf("absent value matched %d", got)
	}

	// 12 keys per image, not 144: the metadata index is a small multiple
	// of the _id index (one 12-byte ObjectId key per image) per key.
	s := testenv.ReadCollSizes(t, db, "images")
	id, md := s.Index["_id_"], s.Index[ixName]
	t.Logf("indexSizes for %d images: _id_ %d (%d B/doc), %s %d (%d B/doc, %d B/key)", n, id, id/n, ixName, md, md/n, md/(12*n))
	if md > 3*12*id {
		t.Errorf("metadata index %d bytes > 3 x 12 x _id index %d bytes", md, id)
	}
}

// TestMultikeyNestedArraysThroughClient: keys through nested arrays and
// elements lacking the subfield, checked by the results the index gives.
func TestMultikeyNestedArraysThroughClient(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := db.Collection("nested")
	docs := []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.A{bson.D{{Key: "b", Value: 3}}, bson.D{{Key: "c", Value: 3}}}}},
		bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: bson.A{bson.D{{Key: "b", Value: 3}, {Key: "c", Value: 3}}}}},
		bson.D{{Key: "_id", Value: 3}, {Key: "a", Value: bson.A{1, bson.D{{Key: "b", Value: 4}}}}},
		bson.D{{Key: "_id", Value: 4}, {Key: "a", Value: bson.A{}}},
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: bson.D{{Key: "a.b", Value: 1}, {Key: "a.c", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	idsHint := func(filter bson.D, hint any) string {
		t.Helper()
		opts := options.Find()
		if hint != nil {
			opts.SetHint(hint)
		}
		cur, err := coll.Find(c, filter, opts)
		if err != nil {
			t.Fatal(err)
		}
		var out []bson.M
		if err := cur.All(c, &out); err != nil {
			t.Fatal(err)
		}
		var s []int
		for _, d := range out {
			s = append(s, int(d["_id"].(int32)))
		}
		sort.Ints(s)
		return fmt.Sprint(s)
	}
	ids := func(filter bson.D) string { return idsHint(filter, nil) }
	for _, tc := range []struct {
		filter bson.D
		want   string
	}{
		// jstests/index13.js: {a: [{b: 3}, {c: 3}]} matches without
		// $elemMatch, not with it.
		{bson.D{{Key: "a.b", Value: 3}, {Key: "a.c", Value: 3}}, "[1 2]"},
		{bson.D{{Key: "a", Value: bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "b", Value: 3}, {Key: "c", Value: 3}}}}}}, "[2]"},
		// An element lacking b is indexed as null.
		{bson.D{{Key: "a.b", Value: nil}, {Key: "a.c", Value: 3}}, "[1]"},
		{bson.D{{Key: "a.b", Value: 4}}, "[3]"},
	} {
		if got := ids(tc.filter); got != tc.want {
			t.Errorf("%v: got %s, want %s", tc.filter, got, tc.want)
		}
	}
	// Null lookups through the index (null keys for elements lacking b,
	// for the empty array) return what a collection scan returns.
	for _, f := range []bson.D{
		{{Key: "a.b", Value: nil}},
		{{Key: "a.c", Value: nil}},
		{{Key: "a.b", Value: nil}, {Key: "a.c", Value: 3}},
	} {
		viaIndex := idsHint(f, "a.b_1_a.c_1")
		if want := idsHint(f, bson.D{{Key: "$natural", Value: 1}}); viaIndex != want {
			t.Errorf("%v: index gives %s, collection scan %s", f, viaIndex, want)
		}
	}
	_, err := coll.InsertOne(c, bson.D{{Key: "a", Value: bson.A{bson.D{{Key: "b", Value: bson.A{1, 2}}, {Key: "c", Value: bson.A{1, 2}}}}}})
	var we mongo.WriteException
	if !errors.As(err, &we) || len(we.WriteErrors) != 1 || we.WriteErrors[0].Code != 171 || we.WriteErrors[0].Message != "cannot index parallel arrays [c] [b]" {
		t.Errorf("parallel arrays: %v", err)
	}
}

// TestMultikeyBuildPastTheKeySample: an index build sizes its sort for
// the keys per document it sees in the first 4,096 documents; a build
// over more images than that (twelve keys each) still has every key, as
// validate counts them, and finds images on either side of the sample.
func TestMultikeyBuildPastTheKeySample(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("images")
	const n = 6000
	testenv.InsertBatches(t, coll, n, func(i int) any { return testenv.MetadataImage(i) })
	testenv.CreateIndex(t, coll, bson.D{{Key: "metadata.key", Value: 1}, {Key: "metadata.value", Value: 1}})
	var res bson.Raw
	if err := db.RunCommand(t.Context(), bson.D{{Key: "validate", Value: "images"}, {Key: "full", Value: true}}).Decode(&res); err != nil {
		t.Fatal(err)
	}
	if !res.Lookup("valid").Boolean() {
		t.Fatalf("validate: not valid: %v, keysPerIndex %v", res.Lookup("errors"), res.Lookup("keysPerIndex"))
	}
	if got := res.Lookup("keysPerIndex", "metadata.key_1_metadata.value_1").AsInt64(); got != 12*n {
		t.Errorf("keysPerIndex: %d, want %d (twelve per image)", got, 12*n)
	}
	for _, i := range []int{7, 4095, 4096, n - 1} {
		filter := bson.D{{Key: "metadata", Value: testenv.ElemMatch("File Name", fmt.Sprintf("img_%d.jpg", i))}}
		got, err := coll.CountDocuments(t.Context(), filter, options.Count().SetHint("metadata.key_1_metadata.value_1"))
		if err != nil || got != 1 {
			t.Errorf("image %d through the index: %d, %v; want 1", i, got, err)
		}
	}
	got, err := coll.CountDocuments(t.Context(), bson.D{{Key: "metadata", Value: testenv.ElemMatch("MIME type", "image/png")}},
		options.Count().SetHint("metadata.key_1_metadata.value_1"))
	if err != nil || got != n/3 {
		t.Errorf("MIME type image/png through the index: %d, %v; want %d", got, err, n/3)
	}
}
