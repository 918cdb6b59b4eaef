package planner_test

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// A blocking sort over its memory limit fails with 292 when allowDiskUse is
// false; otherwise it spills to disk and still returns every document in
// order. As in MongoDB 7.0, a find without allowDiskUse follows the
// allowDiskUseByDefault server parameter (true by default).
func TestBlockingSortMemoryLimit(t *testing.T) {
	// Not parallel: internalQueryMaxBlockingSortMemoryUsageBytes and
	// allowDiskUseByDefault are process-wide.
	_, db := testenv.Open(t)
	coll := db.Collection("big")
	pad := strings.Repeat("x", 1000)
	testenv.InsertBatches(t, coll, 3000, func(i int) any {
		return bson.D{{Key: "k", Value: (i * 7) % 3000}, {Key: "pad", Value: pad}}
	})
	testenv.SetParameter(t, db, "internalQueryMaxBlockingSortMemoryUsageBytes", 1<<20)
	defer testenv.SetParameter(t, db, "internalQueryMaxBlockingSortMemoryUsageBytes", 100<<20)
	sorted := options.Find().SetSort(bson.D{{Key: "k", Value: 1}})
	want292 := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error over the sort memory limit", what)
		}
		if ce := testenv.CmdErr(t, err); ce.Code != 292 || ce.Name != "QueryExceededMemoryLimitNoDiskUseAllowed" {
			t.Fatalf("%s: code %d %s %s, want 292", what, ce.Code, ce.Name, ce.Message)
		}
	}
	_, err := coll.Find(testenv.Ctx(t), bson.D{}, options.Find().SetSort(bson.D{{Key: "k", Value: 1}}).SetAllowDiskUse(false))
	want292("allowDiskUse false", err)
	checkAll := func(what string, opts *options.FindOptionsBuilder) {
		t.Helper()
		cur, err := coll.Find(testenv.Ctx(t), bson.D{}, opts)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		var docs []bson.Raw
		if err := cur.All(testenv.Ctx(t), &docs); err != nil {
			t.Fatal(err)
		}
		if len(docs) != 3000 {
			t.Fatalf("%s: %d docs", what, len(docs))
		}
		for i, d := range docs {
			if d.Lookup("k").Int32() != int32(i) {
				t.Fatalf("%s: doc %d has k %v", what, i, d.Lookup("k"))
			}
		}
	}
	checkAll("allowDiskUse true", options.Find().SetSort(bson.D{{Key: "k", Value: 1}}).SetAllowDiskUse(true))
	checkAll("allowDiskUse by default", sorted)
	// With allowDiskUseByDefault false, a find without allowDiskUse fails.
	admin := db.Client().Database("admin")
	if _, err := testenv.RunCmd(t, admin, bson.D{{Key: "setParameter", Value: 1}, {Key: "allowDiskUseByDefault", Value: false}}); err != nil {
		t.Fatal(err)
	}
	_, err = coll.Find(testenv.Ctx(t), bson.D{}, sorted)
	if _, serr := testenv.RunCmd(t, admin, bson.D{{Key: "setParameter", Value: 1}, {Key: "allowDiskUseByDefault", Value: true}}); serr != nil {
		t.Fatal(serr)
	}
	want292("allowDiskUseByDefault false", err)
	res, err := testenv.RunCmd(t, admin, bson.D{{Key: "getParameter", Value: 1}, {Key: "allowDiskUseByDefault", Value: 1}})
	if err != nil || !res.Lookup("allowDiskUseByDefault").Boolean() {
		t.Fatalf("getParameter allowDiskUseByDefault: %v %v", res, err)
	}
	res = testenv.Explain(t, db, bson.D{{Key: "find", Value: "big"}, {Key: "sort", Value: bson.D{{Key: "k", Value: 1}}}}, "executionStats")
	s := testenv.FindStage(res.Lookup("executionStats", "executionStages").Document(), "SORT")
	if s == nil || !s.Lookup("usedDisk").Boolean() {
		t.Errorf("SORT stage %v, want usedDisk", s)
	}
}
