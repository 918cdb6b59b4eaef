package geo

import (
	"encoding/binary"
	"math"
	"sort"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// 2d indexes key legacy coordinate pairs by geohash, as mongod does: each
// coordinate is scaled from [min, max] to 32 bits (scaling 2^32 / (max -
// min); max itself falls in the last cell), the top `bits` bits of x and
// y are interleaved (x first), and the hash, left-aligned in 64 bits, is
// stored as BinData of subtype 128 (8 bytes, big-endian), so that byte
// order is hash order. An index's bits, min and max are its Grid2D.

// Hash2DBits, Hash2DMin and Hash2DMax are mongod's default 2d index
// parameters.
const (
	Hash2DBits = 26
	Hash2DMin  = -180.0
	Hash2DMax  = 180.0
)

// Grid2D is the geohash grid of a 2d index: Bits bits per coordinate over
// [Min, Max] on both axes.
type Grid2D struct {
	Bits     int
	Min, Max float64
	scaling  float64
}

// DefaultGrid2D is the grid of a 2d index created without bits, min or
// max.
var DefaultGrid2D = &Grid2D{Bits: Hash2DBits, Min: Hash2DMin, Max: Hash2DMax, scaling: (1 << 32) / (Hash2DMax - Hash2DMin)}

// NewGrid2D checks a 2d index's parameters as mongod's GeoHashConverter
// does (InvalidOptions, with its messages) and returns their grid.
func NewGrid2D(bits int, min, max float64) (*Grid2D, error) {
	if bits < 1 || bits > 32 {
		return nil, errs.New(errs.InvalidOptions, "bits for hash must be > 0 and <= 32, but %d bits were specified", bits)
	}
	if !(min < max) || math.IsInf(min, 0) || math.IsInf(max, 0) {
		return nil, errs.New(errs.InvalidOptions, "region for hash must be valid and have positive area, but [%s, %s] was specified", FormatNumber2D(min), FormatNumber2D(max))
	}
	scaling := (1 << 32) / (max - min)
	if !(scaling > 0) || math.IsInf(scaling, 0) {
		return nil, errs.New(errs.InvalidOptions, "range [%s, %s] is too small.", FormatNumber2D(min), FormatNumber2D(max))
	}
	return &Grid2D{Bits: bits, Min: min, Max: max, scaling: scaling}, nil
}

// FormatNumber2D renders a bound as mongod's messages do (C's %g).
func FormatNumber2D(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case v != v:
		return "nan"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// IsDefault reports whether g is mongod's default grid.
func (g *Grid2D) IsDefault() bool {
	return g.Bits == Hash2DBits && g.Min == Hash2DMin && g.Max == Hash2DMax
}

// InRange reports whether p lies in [Min, Max] on both axes (mongod's
// 13027 check: the bounds are inclusive).
func (g *Grid2D) InRange(p FlatPoint) bool {
	return p.X >= g.Min && p.X <= g.Max && p.Y >= g.Min && p.Y <= g.Max
}

// CellSize is the edge of one cell at the grid's precision.
func (g *Grid2D) CellSize() float64 {
	return math.Ldexp(g.Max-g.Min, -g.Bits)
}

// cell converts a coordinate to its cell index at `bits` bits, clamped to
// the grid.
func (g *Grid2D) cell(v float64, bits int) uint32 {
	if v < g.Min || v != v {
		v = g.Min
	}
	u := (v - g.Min) * g.scaling
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

// Hash returns the geohash of p at the grid's precision.
func (g *Grid2D) Hash(p FlatPoint) uint64 {
	return interleave(g.cell(p.X, g.Bits), g.cell(p.Y, g.Bits), g.Bits)
}

// HashValue renders a hash as the key value: BinData(128, 8 bytes).
func HashValue(h uint64) bsoncore.Value {
	b := binary.BigEndian.AppendUint64(nil, h)
	return bsoncore.Value{Type: bsoncore.TypeBinary, Data: bsoncore.AppendBinary(nil, 128, b)}
}

// HashRange is an interval of hashes [Lo, Hi].
type HashRange struct{ Lo, Hi uint64 }

// BoxRanges returns hash intervals covering the flat box [x0, x1] x
// [y0, y1] on the grid: the cells of the finest level at which at most 64
// cells cover it, each a contiguous run of hashes, merged.
func (g *Grid2D) BoxRanges(x0, y0, x1, y1 float64) []HashRange {
	if x1 < g.Min || y1 < g.Min || x0 > g.Max || y0 > g.Max {
		return nil
	}
	level := g.Bits
	for ; level > 1; level-- {
		nx := int64(g.cell(x1, level)) - int64(g.cell(x0, level)) + 1
		ny := int64(g.cell(y1, level)) - int64(g.cell(y0, level)) + 1
		if nx <= 64 && ny <= 64 && nx*ny <= 64 { // each up to 2^32: no overflow
			break
		}
	}
	var rs []HashRange
	for cx := g.cell(x0, level); cx <= g.cell(x1, level); cx++ {
		for cy := g.cell(y0, level); cy <= g.cell(y1, level); cy++ {
			lo := interleave(cx, cy, level)
			hi := lo | (math.MaxUint64 >> (2 * level))
			rs = append(rs, HashRange{lo, hi})
			if cy == math.MaxUint32 {
				break
			}
		}
		if cx == math.MaxUint32 {
			break
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Lo < rs[j].Lo })
	var out []HashRange
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1].Hi != math.MaxUint64 && r.Lo <= out[n-1].Hi+1 {
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
		return -180, math.Max(y0, -90), 180, math.Min(y1, 90)
	}
	dl := math.Asin(math.Min(1, math.Sin(radius)/math.Cos(c.Y*math.Pi/180))) * 180 / math.Pi
	x0, x1 = c.X-dl, c.X+dl
	if x0 < -180 || x1 > 180 {
		return -180, y0, 180, y1
	}
	return x0, y0, x1, y1
}
