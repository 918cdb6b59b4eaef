package geo

import "testing"

// BoxRanges stays bounded at every precision, the whole grid included
// (at 32 bits a cell count product overflowed int64 once).
func TestBoxRangesBounded(t *testing.T) {
	for _, bits := range []int{1, 2, 16, 26, 31, 32} {
		g, err := NewGrid2D(bits, -500, 500)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range [][4]float64{{-500, -500, 500, 500}, {-1000, -1000, 1000, 1000}, {0, 0, 0, 0}, {499, 499, 500, 500}, {-10, 3, 12, 3.5}} {
			rs := g.BoxRanges(b[0], b[1], b[2], b[3])
			if len(rs) == 0 || len(rs) > 64 {
				t.Errorf("bits %d box %v: %d ranges", bits, b, len(rs))
			}
			// Every corner's hash lies in some range.
			for _, p := range []FlatPoint{{X: b[0], Y: b[1]}, {X: b[2], Y: b[3]}} {
				if !g.InRange(p) {
					continue
				}
				h, in := g.Hash(p), false
				for _, r := range rs {
					in = in || (h >= r.Lo && h <= r.Hi)
				}
				if !in {
					t.Errorf("bits %d box %v: %v (hash %x) not covered by %v", bits, b, p, h, rs)
				}
			}
		}
	}
}
