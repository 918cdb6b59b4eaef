package accum

import (
	"math"
	"sort"
)

// tdigest is the t-digest sketch (Dunning and Ertl) that mongod 7.0's
// "approximate" $percentile and $median accumulators use, with the same
// parameters and steps, so that results agree with mongod's:
//
//   - scaling function k2 (sqrt-shaped near both ends), compression
//     delta = 1000 (internalQueryTdigestDelta's default);
//   - inputs are buffered, and every 5·delta inputs the buffer is sorted
//     and merged into the centroids in one pass that joins a neighbour
//     into the current centroid while the cumulative weight stays within
//     n·k2limit(q);
//   - NaN is dropped, infinities are counted apart, and a percentile is
//     read at rank max(0, ceil(p·n) - 1): a centroid of weight 1 answers
//     with its exact value, a heavier one by interpolating between
//     neighbouring means.
//
// As long as no centroid has absorbed another (groups of up to roughly a
// thousand values), every centroid has weight 1 and the answer is the
// exact discrete percentile, which is what the reference pages' examples
// show.
type tdigest struct {
	centroids []centroid
	buf       []float64
	n         int64 // weight held by centroids
	negInf    int64
	posInf    int64
	min, max  float64 // of the values merged into centroids
}

type centroid struct{ w, m float64 }

const (
	tdigestDelta  = 1000
	tdigestBuffer = 5 * tdigestDelta
)

func newTDigest() *tdigest {
	return &tdigest{min: math.Inf(1), max: math.Inf(-1)}
}

// addValue folds one input in (a point of weight 1).
func (c *centroid) addValue(v float64) {
	c.w++
	c.m += (v - c.m) / c.w
}

// addCentroid folds another centroid in, interpolating from the heavier
// side so the mean stays between the two means.
func (c *centroid) addCentroid(o centroid) {
	if o.w < c.w {
		c.w += o.w
		c.m += (o.m - c.m) * (o.w / c.w)
		return
	}
	w := c.w + o.w
	c.m = o.m + (c.m-o.m)*(c.w/w)
	c.w = w
}

func k2(q float64) float64 {
	if q <= 0.5 {
		return tdigestDelta * math.Sqrt(q) / math.Sqrt2
	}
	return tdigestDelta - tdigestDelta*math.Sqrt(1-q)/math.Sqrt2
}

func k2Inverse(s float64) float64 {
	r := s / tdigestDelta
	if r <= 0.5 {
		return 2 * r * r
	}
	b := 1 - r
	return 1 - 2*b*b
}

// k2Limit is the largest quantile a centroid starting at quantile q may
// reach.
func k2Limit(q float64) float64 { return k2Inverse(1 + k2(q)) }

func (t *tdigest) add(v float64) {
	switch {
	case math.IsNaN(v):
		return
	case math.IsInf(v, -1):
		t.negInf++
		return
	case math.IsInf(v, 1):
		t.posInf++
		return
	}
	t.buf = append(t.buf, v)
	if len(t.buf) >= tdigestBuffer {
		t.flush()
	}
}

func (t *tdigest) empty() bool {
	return len(t.centroids) == 0 && len(t.buf) == 0 && t.negInf == 0 && t.posInf == 0
}

// flush sorts the buffer and merges it into the centroids.
func (t *tdigest) flush() {
	if len(t.buf) == 0 {
		return
	}
	sort.Float64s(t.buf)
	t.mergeSorted(t.buf)
	t.buf = t.buf[:0]
}

// compactor builds the merged centroid list: it extends the current
// centroid while the cumulative weight stays within the limit computed
// when the centroid was started.
type compactor struct {
	out   []centroid
	n     float64
	w     float64 // weight before the current centroid
	cur   centroid
	limit float64
	open  bool
}

func (c *compactor) start(x centroid) {
	c.cur, c.open = x, true
	c.limit = c.n * k2Limit(c.w/c.n)
}

func (c *compactor) fits(x centroid) bool { return c.w+c.cur.w+x.w <= c.limit }

func (c *compactor) close() {
	if c.open {
		c.out = append(c.out, c.cur)
		c.w += c.cur.w
		c.open = false
	}
}

// mergeSorted merges sorted finite values into the centroids.
func (t *tdigest) mergeSorted(sorted []float64) {
	t.n += int64(len(sorted))
	t.min = math.Min(t.min, sorted[0])
	t.max = math.Max(t.max, sorted[len(sorted)-1])
	c := &compactor{n: float64(t.n)}
	i, j := 0, 0 // next centroid, next value
	// While both lists have items, take the smaller (a centroid on ties).
	for i < len(t.centroids) && j < len(sorted) {
		if t.centroids[i].m > sorted[j] {
			c.start(centroid{1, sorted[j]})
			j++
		} else {
			c.start(t.centroids[i])
			i++
		}
		for i < len(t.centroids) && j < len(sorted) {
			if t.centroids[i].m > sorted[j] {
				if !c.fits(centroid{w: 1}) {
					break
				}
				c.cur.addValue(sorted[j])
				j++
			} else {
				if !c.fits(t.centroids[i]) {
					break
				}
				c.cur.addCentroid(t.centroids[i])
				i++
			}
		}
		c.close()
	}
	for i < len(t.centroids) {
		c.start(t.centroids[i])
		i++
		for i < len(t.centroids) && c.fits(t.centroids[i]) {
			c.cur.addCentroid(t.centroids[i])
			i++
		}
		c.close()
	}
	for j < len(sorted) {
		c.start(centroid{1, sorted[j]})
		j++
		for j < len(sorted) && c.fits(centroid{w: 1}) {
			c.cur.addValue(sorted[j])
			j++
		}
		c.close()
	}
	t.centroids = c.out
}

// mergeDigest merges another digest's centroids (both buffers flushed).
func (t *tdigest) mergeDigest(o *tdigest) {
	t.flush()
	o.flush()
	t.negInf += o.negInf
	t.posInf += o.posInf
	if len(o.centroids) == 0 {
		return
	}
	t.n += o.n
	t.min = math.Min(t.min, o.min)
	t.max = math.Max(t.max, o.max)
	a, b := t.centroids, o.centroids
	c := &compactor{n: float64(t.n)}
	i, j := 0, 0
	next := func() centroid {
		if j < len(b) && (i >= len(a) || b[j].m < a[i].m) {
			j++
			return b[j-1]
		}
		i++
		return a[i-1]
	}
	for i < len(a) && j < len(b) {
		if a[i].m > b[j].m {
			c.start(b[j])
			j++
		} else {
			c.start(a[i])
			i++
		}
		for i < len(a) && j < len(b) {
			x := a[i]
			if b[j].m < a[i].m {
				x = b[j]
			}
			if !c.fits(x) {
				break
			}
			c.cur.addCentroid(next())
		}
		c.close()
	}
	for i < len(a) || j < len(b) {
		c.start(next())
		for (i < len(a) || j < len(b)) && c.fits(peekCentroid(a, b, i, j)) {
			c.cur.addCentroid(next())
		}
		c.close()
	}
	t.centroids = c.out
}

// peekCentroid is the centroid next() would return.
func peekCentroid(a, b []centroid, i, j int) centroid {
	if j < len(b) && (i >= len(a) || b[j].m < a[i].m) {
		return b[j]
	}
	return a[i]
}

// percentile returns the estimate for p in [0, 1]; false when the digest
// holds no value.
func (t *tdigest) percentile(p float64) (float64, bool) {
	t.flush()
	if len(t.centroids) == 0 && t.negInf == 0 && t.posInf == 0 {
		return 0, false
	}
	lo, hi := t.min, t.max
	if t.negInf > 0 {
		lo = math.Inf(-1)
	}
	if t.posInf > 0 {
		hi = math.Inf(1)
	}
	if p >= 1 {
		return hi, true
	}
	if p <= 0 {
		return lo, true
	}
	total := t.n + t.negInf + t.posInf
	rank := int64(discreteRank(total, p))
	if rank < t.negInf {
		return math.Inf(-1), true
	}
	if rank >= t.n+t.negInf {
		return math.Inf(1), true
	}
	r := float64(rank - t.negInf)
	i, cum := 0, 0.0
	for ; i < len(t.centroids); i++ {
		cum += t.centroids[i].w
		if cum > r {
			break
		}
	}
	cur := t.centroids[i]
	if cur.w == 1 {
		return cur.m, true
	}
	// Points are taken as spread evenly inside each centroid: interpolate
	// between this mean and the neighbour on the rank's side (the extreme
	// value past the last centroid; never an infinity).
	var left, right, wl, wr, doubled float64
	if cum-r >= cur.w/2 {
		left, right, wr = t.min, cur.m, cur.w
		if i > 0 {
			left, wl = t.centroids[i-1].m, t.centroids[i-1].w
		}
		doubled = wl + 2*wr - 2*(cum-1-r)
	} else {
		left, right, wl = cur.m, t.max, cur.w
		if i < len(t.centroids)-1 {
			right, wr = t.centroids[i+1].m, t.centroids[i+1].w
		}
		doubled = wl - 2*(cum-1-r)
	}
	res := left + (right-left)*(doubled/(wl+wr))
	return math.Min(res, right), true
}

// discreteRank is expr.PercentileRank for int64 counts.
func discreteRank(n int64, p float64) int64 {
	if p >= 1 {
		return n - 1
	}
	r := int64(math.Ceil(float64(n)*p)) - 1
	if r < 0 {
		return 0
	}
	return r
}

func (t *tdigest) memUsage() int {
	return 96 + 16*cap(t.centroids) + 8*cap(t.buf)
}
