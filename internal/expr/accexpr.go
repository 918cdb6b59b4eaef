package expr

import (
	"math"

	"github.com/lodedb/lode/internal/collation"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(map[string]opParser{
		"$sum": accExpr("sum"), "$avg": accExpr("avg"), "$min": accExpr("min"),
		"$max": accExpr("max"), "$stdDevPop": accExpr("pop"), "$stdDevSamp": accExpr("samp"),
	})
}

// accExpr implements the accumulator-named expression operators used in
// $project/$addFields: one array argument folds its elements, several
// arguments fold the arguments.
func accExpr(kind string) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		es, err := parseArgs(args, pc)
		if err != nil {
			return nil, err
		}
		coll := pc.Collator
		return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
			vs, err := evalAll(es, doc, vars)
			if err != nil {
				return Missing, err
			}
			if len(vs) == 1 && vs[0].Type == bsoncore.TypeArray {
				vs = values(vs[0])
			}
			return foldValues(coll, kind, vs), nil
		}), nil
	}
}

func foldValues(coll *collation.Collator, kind string, vs []bsoncore.Value) bsoncore.Value {
	switch kind {
	case "min", "max":
		var best bsoncore.Value
		for _, v := range vs {
			if IsNullish(v) {
				continue
			}
			c := CompareWith(coll, v, best)
			if best.Type == 0 || (kind == "min" && c < 0) || (kind == "max" && c > 0) {
				best = v
			}
		}
		if best.Type == 0 {
			return Null
		}
		return best
	case "sum", "avg":
		// The accumulator's own total (mongod's expression $sum is its
		// accumulator): Kahan-compensated doubles, exact integers.
		var acc Sum
		for _, v := range vs {
			acc.Add(v)
		}
		if kind == "sum" {
			return acc.Total()
		}
		return acc.Avg()
	}
	var nums []float64
	for _, v := range vs {
		if isNum(v) {
			nums = append(nums, asF(v))
		}
	}
	if len(nums) == 0 || (kind == "samp" && len(nums) == 1) {
		return Null
	}
	mean := 0.0
	for _, x := range nums {
		mean += x
	}
	mean /= float64(len(nums))
	ss := 0.0
	for _, x := range nums {
		ss += (x - mean) * (x - mean)
	}
	div := float64(len(nums))
	if kind == "samp" {
		div--
	}
	return Double(math.Sqrt(ss / div))
}
