package geo_test

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// 2d indexes with their own bits, min and max (the 2d index reference
// page's "Location Precision" and "Points on a 2d Index" options: the
// range is [min, max] on both axes, bits the geohash precision). Every
// query result is checked against a brute-force computation over the
// inserted points, never against Lode's code.

// grid2DCase is one index to test: its options as given, the range its
// points are drawn from, and points outside it.
type grid2DCase struct {
	name     string
	opts     bson.D
	min, max float64
	outside  [][2]float64
}

var grid2DCases = []grid2DCase{
	{"bits32-500", bson.D{{Key: "bits", Value: int32(32)}, {Key: "min", Value: int32(-500)}, {Key: "max", Value: int32(500)}}, -500, 500,
		[][2]float64{{500.5, 0}, {0, -501}, {600, 600}}},
	{"range0-100", bson.D{{Key: "min", Value: int32(0)}, {Key: "max", Value: int32(100)}}, 0, 100,
		[][2]float64{{-1, 50}, {50, 100.0001}, {-180, 0}, {200, 0}}},
	// mongod's jstest geo_invalid_2d_params creates this one: one bit.
	{"bits1", bson.D{{Key: "bits", Value: 1.0}, {Key: "min", Value: -1.0}, {Key: "max", Value: 1.0}}, -1, 1,
		[][2]float64{{1.5, 0}, {0, -2}}},
}

// grid2DPoints returns n pseudo-random points in [min, max]² plus the
// corners (the range is inclusive: mongod's 13027 check is min <= v <=
// max), by name.
func grid2DPoints(c grid2DCase, n int) map[string][2]float64 {
	r := rand.New(rand.NewSource(int64(len(c.name))))
	pts := map[string][2]float64{
		"c00": {c.min, c.min}, "c11": {c.max, c.max}, "c10": {c.max, c.min}, "c01": {c.min, c.max},
	}
	w := c.max - c.min
	for i := 0; i < n; i++ {
		pts[fmt.Sprintf("p%03d", i)] = [2]float64{c.min + r.Float64()*w, c.min + r.Float64()*w}
	}
	return pts
}

// pointInPolygon is the even-odd rule (the test polygons keep every
// point off their edges).
func pointInPolygon(p [2]float64, poly [][2]float64) bool {
	in := false
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		a, b := poly[i], poly[j]
		if (a[1] > p[1]) != (b[1] > p[1]) && p[0] < (b[0]-a[0])*(p[1]-a[1])/(b[1]-a[1])+a[0] {
			in = !in
		}
	}
	return in
}

func TestGrid2DOptions(t *testing.T) {
	t.Parallel()
	for _, c := range grid2DCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			testGrid2D(t, c)
		})
	}
}

func testGrid2D(t *testing.T, c grid2DCase) {
	dir := t.TempDir()
	ctx := testenv.Ctx(t)
	db, err := lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	coll := db.Client().Database("g").Collection("c")
	spec := append(bson.D{{Key: "key", Value: bson.D{{Key: "loc", Value: "2d"}}}, {Key: "name", Value: "loc_2d"}}, c.opts...)
	if _, err := testenv.RunCmd(t, coll.Database(), bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{spec}}}); err != nil {
		t.Fatalf("createIndexes %v: %v", spec, err)
	}
	pts := grid2DPoints(c, 300)
	var docs []any
	for n, p := range pts {
		docs = append(docs, bson.D{{Key: "_id", Value: n}, {Key: "name", Value: n}, {Key: "loc", Value: bson.A{p[0], p[1]}}})
	}
	insert(t, coll, docs...)

	checkGrid2DOutside(t, coll, c)
	checkGrid2DListIndexes(t, coll, c)
	checkGrid2DQueries(t, coll, c, pts)
	checkGrid2DExplain(t, coll, c)

	// A reopen keeps the options: listIndexes, keys and plans.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	coll = db.Client().Database("g").Collection("c")
	checkGrid2DListIndexes(t, coll, c)
	checkGrid2DOutside(t, coll, c)
	mid := (c.min + c.max) / 2
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "new"}, {Key: "name", Value: "new"}, {Key: "loc", Value: bson.A{mid, mid}}}); err != nil {
		t.Fatalf("insert after reopen: %v", err)
	}
	pts["new"] = [2]float64{mid, mid}
	checkGrid2DQueries(t, coll, c, pts)
	checkGrid2DExplain(t, coll, c)
	v, err := testenv.RunCmd(t, coll.Database(), bson.D{{Key: "validate", Value: "c"}, {Key: "full", Value: true}})
	if err != nil || !v.Lookup("valid").Boolean() {
		t.Fatalf("validate after reopen: %v %v", v, err)
	}
}

// checkGrid2DOutside: a point outside [min, max] fails the insert with
// 13027, whose message quotes the index's bounds (mongod's
// GeoHashConverter::hash: "point not in interval of [ min, max ]" caused
// by the document).
func checkGrid2DOutside(t *testing.T, coll *mongo.Collection, c grid2DCase) {
	t.Helper()
	want := fmt.Sprintf("point not in interval of [ %v, %v ] :: caused by :: { _id: \"out\"", c.min, c.max)
	for _, p := range c.outside {
		_, err := coll.InsertOne(testenv.Ctx(t), bson.D{{Key: "_id", Value: "out"}, {Key: "loc", Value: bson.A{p[0], p[1]}}})
		if code, msg := errInfo(err); code != 13027 || !strings.HasPrefix(msg, want) {
			t.Errorf("insert %v: %d %q, want 13027 %q...", p, code, msg, want)
		}
	}
}

// checkGrid2DListIndexes: the options show as given.
func checkGrid2DListIndexes(t *testing.T, coll *mongo.Collection, c grid2DCase) {
	t.Helper()
	cur, err := coll.Indexes().List(testenv.Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var ixs []bson.Raw
	if err := cur.All(testenv.Ctx(t), &ixs); err != nil {
		t.Fatal(err)
	}
	for _, ix := range ixs {
		if ix.Lookup("name").StringValue() != "loc_2d" {
			continue
		}
		for _, o := range c.opts {
			got := ix.Lookup(o.Key)
			want := bson.RawValue{}
			switch v := o.Value.(type) {
			case int32:
				want = bson.RawValue{Type: bson.TypeInt32, Value: bsonInt32(v)}
			case float64:
				want = bson.RawValue{Type: bson.TypeDouble, Value: bsonDouble(v)}
			}
			if !got.Equal(want) {
				t.Errorf("listIndexes %s: %v, want %v", o.Key, got, o.Value)
			}
		}
		return
	}
	t.Errorf("listIndexes: no loc_2d in %v", ixs)
}

func bsonInt32(v int32) []byte {
	_, b, _ := bson.MarshalValue(v)
	return b
}

func bsonDouble(v float64) []byte {
	_, b, _ := bson.MarshalValue(v)
	return b
}

// checkGrid2DQueries runs $geoWithin ($box, $polygon, $center), $near and
// $geoNear over the index and compares them with brute force.
func checkGrid2DQueries(t *testing.T, coll *mongo.Collection, c grid2DCase, pts map[string][2]float64) {
	t.Helper()
	ctx := testenv.Ctx(t)
	w := c.max - c.min
	at := func(fx, fy float64) [2]float64 { return [2]float64{c.min + fx*w, c.min + fy*w} }
	filter := func(pred func(p [2]float64) bool) []string {
		out := []string{}
		for n, p := range pts {
			if pred(p) {
				out = append(out, n)
			}
		}
		sort.Strings(out)
		return out
	}
	b0, b1 := at(0.1, 0.2), at(0.55, 0.7)
	poly := [][2]float64{at(0.05, 0.1), at(0.9, 0.15), at(0.6, 0.95), at(0.3, 0.5)}
	cc, r := at(0.45, 0.55), 0.3*w
	var polyA bson.A
	for _, p := range poly {
		polyA = append(polyA, bson.A{p[0], p[1]})
	}
	within := []struct {
		name  string
		shape bson.D
		want  []string
	}{
		{"box", bson.D{{Key: "$box", Value: bson.A{bson.A{b0[0], b0[1]}, bson.A{b1[0], b1[1]}}}},
			filter(func(p [2]float64) bool { return p[0] >= b0[0] && p[0] <= b1[0] && p[1] >= b0[1] && p[1] <= b1[1] })},
		// The whole range, corners included.
		{"box-all", bson.D{{Key: "$box", Value: bson.A{bson.A{c.min, c.min}, bson.A{c.max, c.max}}}},
			filter(func(p [2]float64) bool { return true })},
		// Beyond the range: nothing can be there.
		{"box-beyond", bson.D{{Key: "$box", Value: bson.A{bson.A{c.max + w, c.max + w}, bson.A{c.max + 2*w, c.max + 2*w}}}}, []string{}},
		{"polygon", bson.D{{Key: "$polygon", Value: polyA}}, filter(func(p [2]float64) bool { return pointInPolygon(p, poly) })},
		{"center", bson.D{{Key: "$center", Value: bson.A{bson.A{cc[0], cc[1]}, r}}},
			filter(func(p [2]float64) bool { return math.Hypot(p[0]-cc[0], p[1]-cc[1]) <= r })},
	}
	for _, q := range within {
		got := sorted(names(t, coll, bson.D{{Key: "loc", Value: bson.D{{Key: "$geoWithin", Value: q.shape}}}}))
		if !equal(got, q.want) {
			t.Errorf("$geoWithin %s: %d docs %v, want %d %v", q.name, len(got), got, len(q.want), q.want)
		}
	}

	// $near: planar distance, nearest first, within $maxDistance.
	for _, nq := range []struct {
		at  [2]float64
		max float64
	}{{at(0.3, 0.6), 0.15 * w}, {at(0, 0), 0.2 * w}, {at(1, 0.5), 0.05 * w}} {
		got := names(t, coll, bson.D{{Key: "loc", Value: bson.D{{Key: "$near", Value: bson.A{nq.at[0], nq.at[1]}}, {Key: "$maxDistance", Value: nq.max}}}})
		want, ds := rank(pts, func(p [2]float64) float64 { return math.Hypot(p[0]-nq.at[0], p[1]-nq.at[1]) }, nq.max)
		if !sameRanking(got, want, ds) {
			t.Errorf("$near %v max %v: %v, want %v", nq.at, nq.max, got, want)
		}
	}

	// $geoNear: the 10 nearest with their distances.
	q := at(0.7, 0.2)
	cur, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$geoNear", Value: bson.D{
		{Key: "near", Value: bson.A{q[0], q[1]}}, {Key: "distanceField", Value: "d"}, {Key: "key", Value: "loc"}}}}, {{Key: "$limit", Value: 10}}})
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	want, ds := rank(pts, func(p [2]float64) float64 { return math.Hypot(p[0]-q[0], p[1]-q[1]) }, math.Inf(1))
	if len(docs) != 10 {
		t.Fatalf("$geoNear: %d docs", len(docs))
	}
	for i, d := range docs {
		n := d.Lookup("name").StringValue()
		if math.Abs(d.Lookup("d").Double()-ds[want[i]]) > 1e-9*w || math.Abs(ds[n]-ds[want[i]]) > 1e-9*w {
			t.Errorf("$geoNear result %d: %s d=%v, want %s at %v", i, n, d.Lookup("d"), want[i], ds[want[i]])
		}
	}
}

// checkGrid2DExplain: the queries use the 2d index.
func checkGrid2DExplain(t *testing.T, coll *mongo.Collection, c grid2DCase) {
	t.Helper()
	mid := (c.min + c.max) / 2
	w := c.max - c.min
	for _, f := range []struct {
		filter bson.D
		stage  string
	}{
		{bson.D{{Key: "loc", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$box", Value: bson.A{bson.A{c.min, c.min}, bson.A{mid, mid}}}}}}}}, "IXSCAN"},
		{bson.D{{Key: "loc", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$center", Value: bson.A{bson.A{mid, mid}, w / 10}}}}}}}, "IXSCAN"},
		{bson.D{{Key: "loc", Value: bson.D{{Key: "$near", Value: bson.A{mid, mid}}}}}, "GEO_NEAR_2D"},
	} {
		res := testenv.Explain(t, coll.Database(), bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: f.filter}}, "executionStats")
		plan := testenv.WinningPlan(res)
		st := testenv.FindStage(plan, f.stage)
		if st == nil {
			t.Errorf("explain %v: no %s in %v", f.filter, f.stage, plan)
			continue
		}
		if f.stage == "IXSCAN" {
			if name := st.Lookup("indexName").StringValue(); name != "loc_2d" {
				t.Errorf("explain %v: index %q", f.filter, name)
			}
		}
	}
}

// Invalid options are refused as mongod 7.0's GeoHashConverter does
// (InvalidOptions, 72), after mongod's jstest geo_invalid_2d_params.
func TestGrid2DInvalidOptions(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	cases := []struct {
		name string
		opts bson.D
		msg  string
	}{
		{"bits33", bson.D{{Key: "bits", Value: 33}}, "bits for hash must be > 0 and <= 32, but 33 bits were specified"},
		{"bits-1", bson.D{{Key: "bits", Value: -1}}, "bits for hash must be > 0 and <= 32, but -1 bits were specified"},
		{"empty-range", bson.D{{Key: "min", Value: -1}, {Key: "max", Value: -1}}, "region for hash must be valid and have positive area, but [-1, -1] was specified"},
		{"reversed", bson.D{{Key: "min", Value: 10}, {Key: "max", Value: 9}}, "region for hash must be valid and have positive area, but [10, 9] was specified"},
		{"bits-string", bson.D{{Key: "bits", Value: "x"}}, "wrong type for 'bits' field, expected number, found bits: \"x\""},
		{"max-inf", bson.D{{Key: "max", Value: math.Inf(1)}}, "region for hash must be valid and have positive area, but [-180, inf] was specified"},
	}
	for _, c := range cases {
		spec := append(bson.D{{Key: "key", Value: bson.D{{Key: "loc", Value: "2d"}}}, {Key: "name", Value: "loc_2d"}}, c.opts...)
		_, err := testenv.RunCmd(t, db, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{spec}}})
		if code, msg := errInfo(err); code != 72 || msg != c.msg {
			t.Errorf("%s: %d %q, want 72 %q", c.name, code, msg, c.msg)
		}
	}
	// The jstest's valid one.
	spec := bson.D{{Key: "key", Value: bson.D{{Key: "loc", Value: "2d"}}}, {Key: "name", Value: "loc_2d"},
		{Key: "bits", Value: 1}, {Key: "min", Value: -1}, {Key: "max", Value: 1}}
	if _, err := testenv.RunCmd(t, db, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{spec}}}); err != nil {
		t.Errorf("{bits: 1, min: -1, max: 1}: %v", err)
	}
}

// Building a 2d index over existing documents keys them on the index's
// grid: a point outside [min, max] fails the build with 13027, and one
// inside the custom range but outside mongod's default one is indexed.
func TestGrid2DBuildOverData(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("c")
	insert(t, coll,
		bson.D{{Key: "_id", Value: 1}, {Key: "name", Value: "in"}, {Key: "loc", Value: bson.A{400, -400}}},
		bson.D{{Key: "_id", Value: 2}, {Key: "name", Value: "edge"}, {Key: "loc", Value: bson.A{500, 500}}})
	create := func(min, max int32) error {
		spec := bson.D{{Key: "key", Value: bson.D{{Key: "loc", Value: "2d"}}}, {Key: "name", Value: "loc_2d"},
			{Key: "min", Value: min}, {Key: "max", Value: max}}
		_, err := testenv.RunCmd(t, db, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{spec}}})
		return err
	}
	if code, msg := errInfo(create(-450, 450)); code != 13027 || !strings.HasPrefix(msg, "point not in interval of [ -450, 450 ]") {
		t.Errorf("build over an out-of-range point: %d %q, want 13027", code, msg)
	}
	if err := create(-500, 500); err != nil {
		t.Fatalf("build over in-range points: %v", err)
	}
	got := sorted(names(t, coll, bson.D{{Key: "loc", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$box", Value: bson.A{bson.A{300, -500}, bson.A{500, 500}}}}}}}}))
	if !equal(got, []string{"edge", "in"}) {
		t.Errorf("$box over the built index: %v, want [edge in]", got)
	}
	got = names(t, coll, bson.D{{Key: "loc", Value: bson.D{{Key: "$near", Value: bson.A{450, 450}}}}})
	if !equal(got, []string{"edge", "in"}) {
		t.Errorf("$near over the built index: %v, want [edge in]", got)
	}
}

// The options are part of the index's identity beyond its key: the same
// specification again is a no-op, other options under the same key an
// equivalent index with different options (IndexOptionsConflict, 85).
func TestGrid2DSameKeyOtherOptions(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	create := func(bits int32) (bson.Raw, error) {
		spec := bson.D{{Key: "key", Value: bson.D{{Key: "loc", Value: "2d"}}}, {Key: "name", Value: "loc_2d"}, {Key: "bits", Value: bits}}
		return testenv.RunCmd(t, db, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{spec}}})
	}
	if _, err := create(20); err != nil {
		t.Fatal(err)
	}
	r, err := create(20)
	if err != nil || r.Lookup("note").StringValue() != "all indexes already exist" {
		t.Errorf("same options again: %v %v", r, err)
	}
	if code, _ := errInfo(func() error { _, err := create(21); return err }()); code != 85 {
		t.Errorf("other bits under the same name: %d, want 85", code)
	}
}
