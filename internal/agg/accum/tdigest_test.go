package accum

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// TestTDigestSmallIsExact: until centroids start absorbing one another,
// every answer is the discrete percentile, rank max(0, ceil(p·n) - 1).
func TestTDigestSmallIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 10, 100} {
		td := newTDigest()
		var xs []float64
		for i := 0; i < n; i++ {
			x := r.NormFloat64() * 100
			xs = append(xs, x)
			td.add(x)
		}
		sort.Float64s(xs)
		for _, p := range []float64{0, 0.01, 0.25, 0.5, 0.75, 0.9, 0.99, 1} {
			got, ok := td.percentile(p)
			want := xs[expr.PercentileRank(n, p)]
			if !ok || got != want {
				t.Fatalf("n=%d p=%v: got %v, want %v", n, p, got, want)
			}
		}
	}
}

// TestTDigestLarge checks a digest of many values: bounded size, exact
// extremes, and percentiles close in rank to the true ones (t-digest's
// error is smallest near the ends), alone and merged from parts through
// the partial states $group spills.
func TestTDigestLarge(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 50_000
	}
	r := rand.New(rand.NewPCG(3, 4))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i)
	}
	r.Shuffle(n, func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })

	whole := newTDigest()
	for _, x := range xs {
		whole.add(x)
	}
	f, err := New("$percentile", valOf(t, `{"input": "$x", "p": [0.5], "method": "approximate"}`), expr.NewParseContext())
	if err != nil {
		t.Fatal(err)
	}
	merged := newPercentileAcc(f).(*percentileAcc)
	for part := 0; part < 4; part++ {
		a := newPercentileAcc(f).(*percentileAcc)
		for _, x := range xs[part*n/4 : (part+1)*n/4] {
			a.td.add(x)
		}
		p, err := a.Partial()
		if err != nil {
			t.Fatal(err)
		}
		if err := merged.Merge(p); err != nil {
			t.Fatal(err)
		}
	}
	for name, td := range map[string]*tdigest{"whole": whole, "merged": merged.td} {
		td.flush()
		if len(td.centroids) > 2*tdigestDelta {
			t.Errorf("%s: %d centroids, want at most %d", name, len(td.centroids), 2*tdigestDelta)
		}
		if lo, _ := td.percentile(0); lo != 0 {
			t.Errorf("%s: p=0 gives %v, want 0", name, lo)
		}
		if hi, _ := td.percentile(1); hi != float64(n-1) {
			t.Errorf("%s: p=1 gives %v, want %v", name, hi, n-1)
		}
		for _, p := range []float64{0.001, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999} {
			got, _ := td.percentile(p)
			if d := math.Abs(got - p*float64(n)); d > 0.005*float64(n) {
				t.Errorf("%s: p=%v gives %v, %v ranks from the true value", name, p, got, d)
			}
		}
	}
}

// BenchmarkPercentileAccumulator measures the $percentile accumulator's
// cost per input (t-digest buffering and merging) on shuffled doubles.
func BenchmarkPercentileAccumulator(b *testing.B) {
	f, err := New("$percentile", valOfB(b, `{"input": "$x", "p": [0.5, 0.99], "method": "approximate"}`), expr.NewParseContext())
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	vals := make([]float64, 1<<16)
	for i := range vals {
		vals[i] = r.ExpFloat64()
	}
	a := newPercentileAcc(f)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := a.Add(expr.Double(vals[i&(len(vals)-1)])); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := a.Result(); err != nil {
		b.Fatal(err)
	}
}

func valOfB(b *testing.B, s string) bsoncore.Value {
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(`{"v": `+s+`}`), false, &d); err != nil {
		b.Fatal(err)
	}
	raw, _ := bson.Marshal(d)
	return bsoncore.Document(raw).Lookup("v")
}
