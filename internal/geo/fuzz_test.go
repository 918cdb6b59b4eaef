package geo

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// FuzzParse feeds arbitrary documents to the parsers, predicates and
// coverings: they may refuse a value but must not panic.
func FuzzParse(f *testing.F) {
	seeds := []any{
		bson.D{{Key: "g", Value: bson.D{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: bson.A{1, 2}}}}},
		bson.D{{Key: "g", Value: bson.D{{Key: "type", Value: "Polygon"}, {Key: "coordinates", Value: bson.A{bson.A{bson.A{0, 0}, bson.A{1, 0}, bson.A{1, 1}, bson.A{0, 0}}}}}}},
		bson.D{{Key: "g", Value: bson.D{{Key: "type", Value: "GeometryCollection"}, {Key: "geometries", Value: bson.A{bson.D{{Key: "type", Value: "LineString"}, {Key: "coordinates", Value: bson.A{bson.A{0, 0}, bson.A{1, 1}}}}}}}}},
		bson.D{{Key: "g", Value: bson.A{1.5, -2}}},
		bson.D{{Key: "g", Value: bson.D{{Key: "$box", Value: bson.A{bson.A{0, 0}, bson.A{1, 1}}}}}},
		bson.D{{Key: "g", Value: bson.D{{Key: "$centerSphere", Value: bson.A{bson.A{0, 0}, 0.1}}}}},
	}
	for _, s := range seeds {
		b, _ := bson.Marshal(s)
		f.Add(b)
	}
	probe, _ := ParseStored(bsoncore.Value{Type: bsoncore.TypeArray, Data: bsoncore.NewArrayBuilder().AppendDouble(1).AppendDouble(1).Build()})
	f.Fuzz(func(t *testing.T, data []byte) {
		// Round-trip through the driver so that only valid BSON (what the
		// wire layer lets through) reaches the parsers.
		var d bson.D
		if bson.Unmarshal(data, &d) != nil {
			return
		}
		clean, err := bson.Marshal(d)
		if err != nil {
			return
		}
		doc := bsoncore.Document(clean)
		v, err := doc.LookupErr("g")
		if err != nil {
			return
		}
		if g, err := ParseStored(v); err == nil {
			IndexCells(g)
			if probe != nil {
				Intersects(g, probe)
				Intersects(probe, g)
			}
		}
		if r, err := ParseWithin(v); err == nil {
			r.Contains(probe)
			if r.Spherical() {
				QueryRanges(r.RegionOfWithin())
			} else if x0, y0, x1, y1, ok := r.FlatBounds(); ok {
				DefaultGrid2D.BoxRanges(x0, y0, x1, y1)
			}
		}
		if g, err := ParseIntersects(v); err == nil {
			QueryRanges(RegionOf(g))
		}
	})
}
