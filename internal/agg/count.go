package agg

import (
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// The registry entries of the stages in this file (stagedef.go).
func init() {
	registerStage("$count", stageDef{parse: parseCount, access: noAccess, sources: noSources, where: anywhere, explain: explainNone, shape: shapeVerbatim})
	registerStage("$sortByCount", stageDef{parse: parseSortByCount, access: noAccess, sources: noSources, where: anywhere, explain: explainNone, shape: shapeExpr})
}

// countStage is $count.
type countStage struct{ field string }

// countPlan answers $count from the catalog's count.
func (s *countStage) countPlan() *countPlan { return &countPlan{st: s, field: s.field} }

func parseCount(v bsoncore.Value, _ *ParseContext) ([]stage, error) {
	s, ok := v.StringValueOK()
	if !ok {
		return nil, errs.New(errs.Location40156, "the count field must be a non-empty string")
	}
	if s == "" {
		return nil, errs.New(errs.Code(40157), "the count field must be a non-empty string")
	}
	if strings.IndexByte(s, 0) >= 0 {
		return nil, errs.New(errs.Code(40159), "the count field cannot contain a null byte")
	}
	if strings.HasPrefix(s, "$") {
		return nil, errs.New(errs.Location40158, "the count field cannot be a $-prefixed path")
	}
	if strings.Contains(s, ".") {
		return nil, errs.New(errs.Location40160, "the count field cannot contain '.'")
	}
	return []stage{&countStage{field: s}}, nil
}

func (c *countStage) name() string { return "$count" }
func (c *countStage) spec() bsoncore.Document {
	return specDoc("$count", expr.String(c.field))
}

// intValue renders n as int32 when it fits, else int64 (as $sum does).
func intValue(n int64) bsoncore.Value {
	if n >= math.MinInt32 && n <= math.MaxInt32 {
		return expr.Int32(int32(n))
	}
	return expr.Int64(n)
}

func (c *countStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	done := false
	return &funcIter{
		next: func() (bsoncore.Document, error) {
			if done {
				return nil, nil
			}
			done = true
			var n int64
			for {
				d, err := in.Next()
				if err != nil {
					return nil, err
				}
				if d == nil {
					break
				}
				n++
				if n&4095 == 0 {
					if err := rc.ctx.Err(); err != nil {
						return nil, err
					}
				}
			}
			if n == 0 {
				return nil, nil
			}
			return bsoncore.NewDocumentBuilder().AppendValue(c.field, intValue(n)).Build(), nil
		},
		close: in.Close,
	}, nil
}

// parseSortByCount expands {$sortByCount: expr} into
// {$group: {_id: expr, count: {$sum: 1}}}, {$sort: {count: -1}}.
func parseSortByCount(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	switch {
	case v.Type == bsoncore.TypeString:
		if !strings.HasPrefix(v.StringValue(), "$") {
			return nil, errs.New(errs.Location40148, "the sortBy field must be defined as a $-prefixed path or an expression")
		}
	case isOperatorDoc(v):
	default:
		return nil, errs.New(errs.Location40149, "the sortBy field must be defined as a $-prefixed path or an expression")
	}
	gspec := bsoncore.NewDocumentBuilder().
		AppendValue("_id", v).
		AppendDocument("count", bsoncore.NewDocumentBuilder().AppendInt32("$sum", 1).Build()).
		Build()
	g, err := newGroup(docValue(gspec), pc)
	if err != nil {
		return nil, err
	}
	s, err := parseSort(docValue(bsoncore.NewDocumentBuilder().AppendInt32("count", -1).Build()), pc)
	if err != nil {
		return nil, err
	}
	return append([]stage{g}, s...), nil
}
