package geo

import (
	"encoding/binary"
	"math"
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// 2d indexes key legacy coordinate pairs by geohash, as mongod does: each
// coordinate is scaled from [min, max) to 32 bits (scaling 2^32 / (max -
// min)), the top `bits` bits of x and y are interleaved (x first), and the
// hash, left-aligned in 64 bits, is stored as BinData of subtype 128
// (8 bytes, big-endian), so that byte order is hash order. Lode builds 2d
// indexes with mongod's defaults only: 26 bits over [-180, 180).

// Hash2DBits, Hash2DMin and Hash2DMax are the 2d index parameters.
const (
	Hash2DBits = 26
	Hash2DMin  = -180.0
	Hash2DMax  = 180.0
)

const scaling2D = (1024 * 1024 * 1024 * 4.0) / (Hash2DMax - Hash2DMin)

// InRange2D reports whether p lies in [min, max) on both axes.
func InRange2D(p FlatPoint) bool {
	return p.X >= Hash2DMin && p.X < Hash2DMax && p.Y >= Hash2DMin && p.Y < Hash2DMax
}

// cell2D converts a coordinate to its cell index at `bits` bits.
func cell2D(v float64, bits int) uint32 {
	if v < Hash2DMin {
		v = Hash2DMin
	}
	u := (v - Hash2DMin) * scaling2D
	if u >= 4294967295 {
		u = 4294967295
	}
	return uint32(u) >> (32 - bits)
}

// interleave merges the cell indexes of x and y at `bits` bits into a
// left-aligned 64-bit hash.
func interleave(x, y uint32, bits int) uint64 {
	var h uint64
	for i := bits - 1; i >= 0; i-- {
		h = h<<1 | uint64(x>>i&1)
		h = h<<1 | uint64(y>>i&1)
	}
	return h << (64 - 2*bits)
}

// Hash2D returns the geohash of p at the index's precision.
func Hash2D(p FlatPoint) uint64 {
	return interleave(cell2D(p.X, Hash2DBits), cell2D(p.Y, Hash2DBits), Hash2DBits)
}

// HashValue renders a hash as the key value: BinData(128, 8 bytes).
func HashValue(h uint64) bsoncore.Value {
	b := binary.BigEndian.AppendUint64(nil, h)
	return bsoncore.Value{Type: bsoncore.TypeBinary, Data: bsoncore.AppendBinary(nil, 128, b)}
}

// HashRange is an interval of hashes [Lo, Hi].
type HashRange struct{ Lo, Hi uint64 }

// BoxRanges returns hash intervals covering the flat box [x0, x1] x
// [y0, y1]: the cells of the finest level at which at most 64 cells cover
// it, each a contiguous run of hashes, merged.
func BoxRanges(x0, y0, x1, y1 float64) []HashRange {
	if x1 < Hash2DMin || y1 < Hash2DMin || x0 >= Hash2DMax || y0 >= Hash2DMax {
		return nil
	}
	level := Hash2DBits
	for ; level > 1; level-- {
		nx := int64(cell2D(x1, level)) - int64(cell2D(x0, level)) + 1
		ny := int64(cell2D(y1, level)) - int64(cell2D(y0, level)) + 1
		if nx*ny <= 64 {
			break
		}
	}
	var rs []HashRange
	for cx := cell2D(x0, level); cx <= cell2D(x1, level); cx++ {
		for cy := cell2D(y0, level); cy <= cell2D(y1, level); cy++ {
			lo := interleave(cx, cy, level)
			hi := lo | (math.MaxUint64 >> (2 * level))
			rs = append(rs, HashRange{lo, hi})
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Lo < rs[j].Lo })
	var out []HashRange
	for _, r := range rs {
		if n := len(out); n > 0 && r.Lo <= out[n-1].Hi+1 {
			if r.Hi > out[n-1].Hi {
				out[n-1].Hi = r.Hi
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// FlatBounds returns the flat bounding box of a $geoWithin region for a
// 2d index scan, and false when the region has none in the plane (GeoJSON
// $geometry, which 2d indexes do not answer).
func (r *Region) FlatBounds() (x0, y0, x1, y1 float64, ok bool) {
	switch r.Kind {
	case RegionBox:
		return r.Box[0].X, r.Box[0].Y, r.Box[1].X, r.Box[1].Y, true
	case RegionCircle:
		return r.Center.X - r.Radius, r.Center.Y - r.Radius, r.Center.X + r.Radius, r.Center.Y + r.Radius, true
	case RegionFlatPolygon:
		x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, p := range r.FlatPoly {
			x0, y0, x1, y1 = math.Min(x0, p.X), math.Min(y0, p.Y), math.Max(x1, p.X), math.Max(y1, p.Y)
		}
		return x0, y0, x1, y1, true
	case RegionCap:
		x0, y0, x1, y1 = SphereBox(r.Center, r.Radius)
		return x0, y0, x1, y1, true
	}
	return 0, 0, 0, 0, false
}

// SphereBox is a longitude/latitude box holding every point within
// radius (radians) of c on the sphere; near a pole, or when the circle
// crosses the antimeridian, it spans every longitude.
func SphereBox(c FlatPoint, radius float64) (x0, y0, x1, y1 float64) {
	deg := radius * 180 / math.Pi
	y0, y1 = c.Y-deg, c.Y+deg
	if y0 <= -90 || y1 >= 90 || deg >= 90 {
		return Hash2DMin, math.Max(y0, -90), Hash2DMax, math.Min(y1, 90)
	}
	dl := math.Asin(math.Min(1, math.Sin(radius)/math.Cos(c.Y*math.Pi/180))) * 180 / math.Pi
	x0, x1 = c.X-dl, c.X+dl
	if x0 < -180 || x1 > 180 {
		return Hash2DMin, y0, Hash2DMax, y1
	}
	return x0, y0, x1, y1
}
