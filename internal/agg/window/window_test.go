package window

import (
	"math"
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/lodedb/lode/internal/agg/accum"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// TestRemovableMatchesRecompute slides each removable function over
// random values through random documents windows and checks every result
// against the group accumulator folded over the same window from scratch.
func TestRemovableMatchesRecompute(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	value := func() bsoncore.Value {
		switch rng.Intn(8) {
		case 0:
			return expr.Null
		case 1:
			return bsoncore.Value{}
		case 2:
			return expr.String([]string{"a", "b", "c"}[rng.Intn(3)])
		case 3:
			return expr.Double(float64(rng.Intn(200)-100) / 4)
		case 4:
			return expr.Int64(int64(rng.Intn(1000)))
		}
		return expr.Int32(int32(rng.Intn(50) - 25))
	}
	for _, name := range []string{"$sum", "$avg", "$min", "$max", "$first", "$last", "$push", "$addToSet", "$stdDevPop", "$stdDevSamp"} {
		f, err := accum.New(name, expr.String("$v"), expr.NewParseContext())
		if err != nil {
			t.Fatal(err)
		}
		for trial := 0; trial < 30; trial++ {
			n := 1 + rng.Intn(60)
			docs := make([]bsoncore.Document, n)
			for i := range docs {
				b := bsoncore.NewDocumentBuilder()
				if v := value(); v.Type != 0 {
					b.AppendValue("v", v)
				}
				docs[i] = b.Build()
			}
			lo := int64(rng.Intn(7) - 5)
			hi := lo + int64(rng.Intn(6))
			b := Bounds{Lo: lo, Hi: hi}
			vars := expr.NewVars(timeZero)
			fn, err := removable(name, f, b)(vars)
			if err != nil {
				t.Fatal(err)
			}
			var ws, we int64
			for i := int64(0); i < int64(n); i++ {
				s := min(max(i+lo, 0), int64(n))
				e := max(min(i+hi+1, int64(n)), s)
				e, s = max(e, we), max(s, ws)
				for ; we < e; we++ {
					if err := fn.Add(docs[we]); err != nil {
						t.Fatal(err)
					}
				}
				for ; ws < s; ws++ {
					if err := fn.Remove(); err != nil {
						t.Fatal(err)
					}
				}
				got, err := fn.Result(i)
				if err != nil {
					t.Fatal(err)
				}
				a, _ := f.NewAccumulator(emptyDoc, vars)
				for j := s; j < e; j++ {
					v, _ := f.Input(docs[j], vars)
					a.Add(v)
				}
				want, _ := a.Result()
				if name == "$addToSet" {
					want = sortedArray(want)
				}
				if name == "$first" || name == "$last" {
					if s == e {
						want = expr.Null
					}
				}
				if !close(got, want) {
					t.Fatalf("%s window [%d, %d] at %d: got %s, want %s", name, lo, hi, i,
						bsonutil.FormatValue(got, bsonutil.Style{}), bsonutil.FormatValue(want, bsonutil.Style{}))
				}
			}
		}
	}
}

func sortedArray(v bsoncore.Value) bsoncore.Value {
	vals := expr.ArrayValues(v)
	sort.Slice(vals, func(i, j int) bool { return bsonutil.Compare(vals[i], vals[j]) < 0 })
	return expr.Array(vals...)
}

func close(a, b bsoncore.Value) bool {
	if bsonutil.IsNumber(a.Type) && bsonutil.IsNumber(b.Type) {
		x, y := bsonutil.AsFloat64(a), bsonutil.AsFloat64(b)
		return x == y || math.Abs(x-y) <= 1e-9*math.Max(1, math.Max(math.Abs(x), math.Abs(y)))
	}
	return a.Type == b.Type && bsonutil.Compare(a, b) == 0
}

var timeZero = time.Time{}
