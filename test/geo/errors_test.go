package geo_test

import (
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// errInfo extracts the code and message of a command or write error.
func errInfo(err error) (int32, string) {
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return ce.Code, ce.Message
	}
	var we mongo.WriteException
	if errors.As(err, &we) && len(we.WriteErrors) > 0 {
		return int32(we.WriteErrors[0].Code), we.WriteErrors[0].Message
	}
	var se mongo.ServerError
	if errors.As(err, &se) {
		return 0, se.Error()
	}
	return 0, ""
}

// Geometries a 2dsphere index cannot key fail the write with 16755, the
// reason being the GeoJSON parser's (mongod's geoparser messages).
func TestGeoIndexKeyErrors(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("c")
	testenv.CreateIndex(t, coll, bson.D{{Key: "geo", Value: "2dsphere"}})
	cases := []struct {
		name string
		geo  any
		msg  string
	}{
		{"lng-out-of-range", point(200, 0), "longitude/latitude is out of bounds, lng: 200 lat: 0"},
		{"loop-not-closed", bson.D{{Key: "type", Value: "Polygon"}, {Key: "coordinates", Value: bson.A{bson.A{bson.A{0, 0}, bson.A{1, 1}, bson.A{1, 0}}}}}, "Loop is not closed"},
		{"loop-too-few", bson.D{{Key: "type", Value: "Polygon"}, {Key: "coordinates", Value: bson.A{bson.A{bson.A{0, 0}, bson.A{1, 1}, bson.A{0, 0}}}}}, "Loop must have at least 3 different vertices"},
		{"unknown-type", bson.D{{Key: "type", Value: "Bogus"}, {Key: "coordinates", Value: bson.A{1, 2}}}, "unknown GeoJSON type"},
		{"point-non-numeric", bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: bson.A{"a", 2}}}, "Point must only contain numeric elements"},
		{"point-missing-coords", bson.D{{Key: "type", Value: "Point"}}, "Point must be an array or object"},
		{"linestring-one-vertex", line([2]float64{1, 1}), "GeoJSON LineString must have at least 2 vertices"},
		{"hole-outside-shell", polygon(square, [][2]float64{{20, 20}, {21, 20}, {21, 21}, {20, 21}, {20, 20}}), "Secondary loops not contained by first exterior loop - secondary loops must be holes"},
		{"self-crossing", polygon([][2]float64{{0, 0}, {2, 2}, {2, 0}, {0, 2}, {0, 0}}), "Loop is not valid: [ [ 0.0, 0.0 ], [ 2.0, 2.0 ], [ 2.0, 0.0 ], [ 0.0, 2.0 ], [ 0.0, 0.0 ] ] Edges 0 and 2 cross"},
		{"duplicate-vertex", polygon([][2]float64{{0, 0}, {2, 0}, {1, 1}, {2, 2}, {0, 2}, {1, 1}, {0, 0}}), "Duplicate vertices"},
		{"legacy-out-of-range", bson.A{500, 500}, "longitude/latitude is out of bounds"},
		{"string", "x", `geo element must be an array or object: geo: "x"`},
	}
	for _, c := range cases {
		_, err := coll.InsertOne(testenv.Ctx(t), bson.D{{Key: "geo", Value: c.geo}})
		code, msg := errInfo(err)
		if code != 16755 || !strings.HasPrefix(msg, "Can't extract geo keys: ") || !strings.Contains(msg, c.msg) {
			t.Errorf("%s: got %d %q, want 16755 with %q", c.name, code, msg, c.msg)
		}
	}
	// Sparse on the geo field: documents without it (or with null) are
	// accepted and not indexed.
	if _, err := coll.InsertMany(testenv.Ctx(t), []any{bson.D{{Key: "x", Value: 1}}, bson.D{{Key: "geo", Value: nil}}}); err != nil {
		t.Fatalf("documents without a geometry: %v", err)
	}
	if n := testenv.Count(t, coll, bson.D{}); n != 2 {
		t.Fatalf("count %d, want 2 (failed inserts left nothing)", n)
	}
	// Building the index over an invalid document fails the same way.
	other := db.Collection("d")
	insert(t, other, bson.D{{Key: "geo", Value: point(0, 100)}})
	_, err := other.Indexes().CreateOne(testenv.Ctx(t), mongo.IndexModel{Keys: bson.D{{Key: "geo", Value: "2dsphere"}}})
	if code, msg := errInfo(err); code != 16755 || !strings.Contains(msg, "longitude/latitude is out of bounds") {
		t.Errorf("index build over a bad geometry: %d %q", code, msg)
	}
}

// Query errors, with mongod's codes.
func TestGeoQueryErrors(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("c")
	insert(t, coll, bson.D{{Key: "geo", Value: point(1, 1)}})
	indexed := db.Collection("i")
	testenv.CreateIndex(t, indexed, bson.D{{Key: "geo", Value: "2dsphere"}})
	insert(t, indexed, bson.D{{Key: "geo", Value: point(1, 1)}})
	nearGeo := bson.D{{Key: "$near", Value: bson.D{{Key: "$geometry", Value: point(0, 0)}}}}
	cases := []struct {
		name   string
		coll   *mongo.Collection
		filter bson.D
		code   int32
		msg    string
	}{
		{"near-without-index", coll, bson.D{{Key: "geo", Value: nearGeo}}, 291, "unable to find index for $geoNear query"},
		{"near-legacy-needs-2d", indexed, bson.D{{Key: "geo", Value: bson.D{{Key: "$near", Value: bson.A{0, 0}}}}}, 291, "unable to find index for $geoNear query"},
		{"near-in-or", indexed, bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "geo", Value: nearGeo}}, bson.D{{Key: "x", Value: 1}}}}}, 2, "$geoNear, $near, and $nearSphere are not allowed in this context"},
		{"within-point", coll, within(point(0, 0)), 2, "$geoWithin not supported with provided geometry"},
		{"min-negative", indexed, bson.D{{Key: "geo", Value: bson.D{{Key: "$near", Value: bson.D{{Key: "$geometry", Value: point(0, 0)}, {Key: "$minDistance", Value: -1}}}}}}, 2, "$minDistance must be non-negative"},
		{"max-not-number", indexed, bson.D{{Key: "geo", Value: bson.D{{Key: "$near", Value: bson.D{{Key: "$geometry", Value: point(0, 0)}, {Key: "$maxDistance", Value: "x"}}}}}}, 2, "$maxDistance must be a number"},
		{"legacy-max-negative", indexed, bson.D{{Key: "geo", Value: bson.D{{Key: "$nearSphere", Value: bson.A{0, 0}}, {Key: "$maxDistance", Value: -1}}}}, 16896, "$maxDistance must be non-negative"},
		{"near-no-geometry", indexed, bson.D{{Key: "geo", Value: bson.D{{Key: "$near", Value: bson.D{{Key: "$maxDistance", Value: 1}}}}}}, 2, "$geometry is required for geo near query"},
		{"bad-query-point", indexed, bson.D{{Key: "geo", Value: bson.D{{Key: "$near", Value: bson.D{{Key: "$geometry", Value: point(0, 95)}}}}}}, 2, "longitude/latitude is out of bounds"},
		{"centerSphere-negative", coll, bson.D{{Key: "geo", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$centerSphere", Value: bson.A{bson.A{0, 0}, -1}}}}}}}, 2, "radius must be a non-negative number"},
		{"polygon-too-few", coll, bson.D{{Key: "geo", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$polygon", Value: bson.A{bson.A{0, 0}, bson.A{1, 1}}}}}}}}, 2, "Polygon must have at least 3 points"},
		{"big-polygon-crs", coll, within(append(polygon(square), bson.E{Key: "crs", Value: bson.D{{Key: "type", Value: "name"}, {Key: "properties", Value: bson.D{{Key: "name", Value: "urn:x-mongodb:crs:strictwinding:EPSG:4326"}}}}})), 238, "big polygons"},
	}
	for _, c := range cases {
		cur, err := c.coll.Find(testenv.Ctx(t), c.filter)
		if err == nil {
			err = cur.Err()
			var docs []bson.M
			if err == nil {
				err = cur.All(testenv.Ctx(t), &docs)
			}
		}
		code, msg := errInfo(err)
		if code != c.code || !strings.Contains(msg, c.msg) {
			t.Errorf("%s: got %d %q, want %d with %q", c.name, code, msg, c.code, c.msg)
		}
	}
}

// Index DDL: 2d indexes with mongod's default bits/min/max, 2dsphere
// version 3 at the default levels; other values are refused with 238,
// invalid ones with mongod's codes; the default name is mongod's.
func TestGeoIndexDDL(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("c")
	ctx := testenv.Ctx(t)
	name, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "loc", Value: "2dsphere"}, {Key: "category", Value: 1}}})
	if err != nil || name != "loc_2dsphere_category_1" {
		t.Fatalf("compound 2dsphere index: %q %v", name, err)
	}
	cases := []struct {
		name string
		spec bson.D
		code int32
	}{
		{"2d", bson.D{{Key: "key", Value: bson.D{{Key: "p", Value: "2d"}}}, {Key: "name", Value: "p_2d"}}, 0},
		{"2d-bits-out-of-range", bson.D{{Key: "key", Value: bson.D{{Key: "q", Value: "2d"}}}, {Key: "name", Value: "q"}, {Key: "bits", Value: 40}}, 72},
		{"2d-defaults", bson.D{{Key: "key", Value: bson.D{{Key: "q", Value: "2d"}}}, {Key: "name", Value: "q"}, {Key: "bits", Value: 26}, {Key: "min", Value: -180}, {Key: "max", Value: 180}}, 0},
		{"2d-not-first", bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: 1}, {Key: "r", Value: "2d"}}}, {Key: "name", Value: "r"}}, 16801},
		{"2d-two-geo", bson.D{{Key: "key", Value: bson.D{{Key: "r", Value: "2d"}, {Key: "s", Value: "2dsphere"}}}, {Key: "name", Value: "r"}}, 16800},
		{"version-2", bson.D{{Key: "key", Value: bson.D{{Key: "p", Value: "2dsphere"}}}, {Key: "name", Value: "p"}, {Key: "2dsphereIndexVersion", Value: 2}}, 238},
		{"finest-level", bson.D{{Key: "key", Value: bson.D{{Key: "p", Value: "2dsphere"}}}, {Key: "name", Value: "p"}, {Key: "finestIndexedLevel", Value: 20}}, 238},
		{"version-3", bson.D{{Key: "key", Value: bson.D{{Key: "p", Value: "2dsphere"}}}, {Key: "name", Value: "p"}, {Key: "2dsphereIndexVersion", Value: 3}}, 0},
	}
	for _, c := range cases {
		_, err := testenv.RunCmd(t, db, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{c.spec}}})
		code, _ := errInfo(err)
		if code != c.code {
			t.Errorf("%s: code %d (%v), want %d", c.name, code, err, c.code)
		}
	}
}

// $geoNear stage errors (mongod's DocumentSourceGeoNear).
func TestGeoNearStageErrors(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("c")
	insert(t, coll, bson.D{{Key: "geo", Value: point(1, 1)}})
	two := db.Collection("two")
	testenv.CreateIndex(t, two, bson.D{{Key: "a", Value: "2dsphere"}})
	testenv.CreateIndex(t, two, bson.D{{Key: "b", Value: "2dsphere"}})
	gn := func(extra ...bson.E) bson.D {
		return bson.D{{Key: "$geoNear", Value: append(bson.D{{Key: "near", Value: point(0, 0)}, {Key: "distanceField", Value: "d"}}, extra...)}}
	}
	cases := []struct {
		name     string
		coll     *mongo.Collection
		pipeline mongo.Pipeline
		code     int32
		msg      string
	}{
		{"no-index", coll, mongo.Pipeline{gn()}, 27, "$geoNear requires a 2d or 2dsphere index, but none were found"},
		{"two-indexes", two, mongo.Pipeline{gn()}, 27, "There is more than one 2dsphere index on test.two; unsure which to use for $geoNear"},
		{"not-first", coll, mongo.Pipeline{{{Key: "$match", Value: bson.D{}}}, gn()}, 40602, "$geoNear is only valid as the first stage in a pipeline"},
		{"no-distanceField", coll, mongo.Pipeline{{{Key: "$geoNear", Value: bson.D{{Key: "near", Value: point(0, 0)}}}}}, 16606, "$geoNear requires a 'distanceField' option as a String"},
		{"no-near", coll, mongo.Pipeline{{{Key: "$geoNear", Value: bson.D{{Key: "distanceField", Value: "d"}}}}}, 5860400, "$geoNear requires a 'near' argument"},
		{"limit", coll, mongo.Pipeline{gn(bson.E{Key: "limit", Value: 1})}, 50858, "$geoNear no longer supports the 'limit' parameter. Use a $limit stage instead."},
		{"negative-multiplier", coll, mongo.Pipeline{gn(bson.E{Key: "distanceMultiplier", Value: -1})}, 2, "distanceMultiplier must be nonnegative"},
		{"key-empty", coll, mongo.Pipeline{gn(bson.E{Key: "key", Value: ""})}, 2, "$geoNear parameter 'key' cannot be the empty string"},
		{"near-in-match", indexedColl(t, db), mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "geo", Value: bson.D{{Key: "$near", Value: bson.D{{Key: "$geometry", Value: point(0, 0)}}}}}}}}}, 5626500,
			"$geoNear, $near, and $nearSphere are not allowed in this context, as these operators require sorting geospatial data. If you do not need sort, consider using $geoWithin instead."},
		{"includeLocs-number", coll, mongo.Pipeline{gn(bson.E{Key: "includeLocs", Value: 1})}, 16607, "$geoNear requires that 'includeLocs' option is a String"},
	}
	for _, c := range cases {
		cur, err := c.coll.Aggregate(testenv.Ctx(t), c.pipeline)
		if err == nil {
			var docs []bson.M
			err = cur.All(testenv.Ctx(t), &docs)
		}
		code, msg := errInfo(err)
		if code != c.code || msg != c.msg && !strings.Contains(msg, c.msg) {
			t.Errorf("%s: got %d %q, want %d %q", c.name, code, msg, c.code, c.msg)
		}
	}
}

func indexedColl(t *testing.T, db *mongo.Database) *mongo.Collection {
	c := db.Collection("withindex")
	testenv.CreateIndex(t, c, bson.D{{Key: "geo", Value: "2dsphere"}})
	return c
}

// countDocuments runs an aggregate $match, where $near is refused.
func TestCountDocumentsNear(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	c := indexedColl(t, db)
	insert(t, c, bson.D{{Key: "geo", Value: point(0, 0)}})
	_, err := c.CountDocuments(testenv.Ctx(t), bson.D{{Key: "geo", Value: bson.D{{Key: "$near", Value: bson.D{{Key: "$geometry", Value: point(0, 0)}}}}}})
	if code, _ := errInfo(err); code != 5626500 {
		t.Fatalf("countDocuments with $near: %v, want 5626500", err)
	}
	n, err := c.CountDocuments(testenv.Ctx(t), bson.D{{Key: "geo", Value: bson.D{{Key: "$geoWithin", Value: bson.D{{Key: "$centerSphere", Value: bson.A{bson.A{0, 0}, 0.1}}}}}}})
	if err != nil || n != 1 {
		t.Fatalf("countDocuments with $geoWithin: %d %v", n, err)
	}
}

// $geoNear's key chooses among several geo indexes.
func TestGeoNearKey(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("two")
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: "2dsphere"}})
	testenv.CreateIndex(t, coll, bson.D{{Key: "b", Value: "2dsphere"}})
	insert(t, coll,
		bson.D{{Key: "name", Value: "x"}, {Key: "a", Value: point(0, 0)}, {Key: "b", Value: point(10, 0)}},
		bson.D{{Key: "name", Value: "y"}, {Key: "a", Value: point(10, 0)}, {Key: "b", Value: point(0, 0)}})
	for key, want := range map[string][]string{"a": {"x", "y"}, "b": {"y", "x"}} {
		cur, err := coll.Aggregate(testenv.Ctx(t), mongo.Pipeline{{{Key: "$geoNear", Value: bson.D{
			{Key: "near", Value: point(0, 0)}, {Key: "distanceField", Value: "d"}, {Key: "key", Value: key}}}}})
		if err != nil {
			t.Fatal(err)
		}
		var docs []bson.Raw
		if err := cur.All(testenv.Ctx(t), &docs); err != nil {
			t.Fatal(err)
		}
		if len(docs) != 2 || docs[0].Lookup("name").StringValue() != want[0] || docs[1].Lookup("name").StringValue() != want[1] || docs[0].Lookup("d").Double() != 0 {
			t.Errorf("key %s: %v", key, docs)
		}
	}
}
