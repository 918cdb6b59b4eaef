package agg

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/query"
)

// absorber is a stage that can take the stage following it into itself:
// $sort a $limit (top-k), $limit a $limit, $skip a $skip, $graphLookup
// a $unwind of its as field. Each says so beside its type.
type absorber interface {
	// absorb reports whether the stage took next in.
	absorb(next stage) bool
}

// coalesce merges adjacent stages where the first absorbs the second.
func coalesce(in []stage) []stage {
	var out []stage
	for _, s := range in {
		if n := len(out); n > 0 {
			if a, ok := out[n-1].(absorber); ok && a.absorb(s) {
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// pushdown moves the leading $match, $sort, $skip, $limit and
// inclusion-only $project into the FindSpec of the collection scan.
func (p *Pipeline) pushdown() {
	pc := p.pc
	if pc.Coll == "" || (len(p.stages) > 0 && isSource(p.stages[0])) {
		return
	}
	spec := &FindSpec{Hint: pc.Hint, AllowDiskUse: pc.AllowDiskUse, Collation: pc.Collation}
	p.push = spec
	st := p.stages
	i := 0
	take := func() {
		p.pushedStages = append(p.pushedStages, st[i].spec())
		i++
	}
	done := false
	if i < len(st) {
		if m, ok := st[i].(*matchStage); ok {
			spec.Filter = m.filterDoc
			spec.TextScore = pc.textScore
			if m.pushable() {
				take()
			} else {
				// Keep the $expr clauses that use variables as a residual.
				p.pushedStages = append(p.pushedStages, specDoc("$match", docValue(m.filterDoc)))
				all, _ := query.Parse(emptyDoc)
				st[i] = &matchStage{raw: m.raw, filterDoc: emptyDoc, filter: all, exprs: m.exprs, logic: m.logic, pushedText: pc.textScore}
				done = true
			}
		}
	}
	if !done && i < len(st) {
		if s, ok := st[i].(*sortStage); ok {
			spec.Sort = s.raw
			spec.Limit = s.limit
			take()
		}
	}
	if !done && spec.Limit == 0 && i < len(st) {
		if s, ok := st[i].(*skipStage); ok {
			spec.Skip = s.n
			take()
		}
	}
	if !done && spec.Limit == 0 && i < len(st) {
		if l, ok := st[i].(*limitStage); ok {
			spec.Limit = l.n
			take()
		}
	}
	if !done && i < len(st) {
		if pr, ok := st[i].(*projectStage); ok && pr.stageName == "$project" && !pr.exclusion && !pr.passThrough && pr.tree.onlyIncludes() {
			spec.Projection = pr.raw.Document()
			take()
		}
	}
	p.stages = st[i:]
	if !done && len(p.stages) > 0 && pc.Collation == nil {
		// (The catalog's count applies the collection's default
		// collation: not when the pipeline gives another.)
		p.countOnly = newCountPlan(p.stages[0])
		if p.countOnly != nil {
			p.stages = p.stages[1:]
		}
	}
}

// countPlan answers a $group with a constant _id and only constant $sum
// (or $count) accumulators, or a $count stage, from the catalog's Count:
// countDocuments' pipeline reads no documents when an index answers its
// filter.
type countPlan struct {
	st     stage
	field  string // $count stage field, or "" for a $group
	id     bsoncore.Value
	fields []string
	mults  []bsoncore.Value // nil entry = $count accumulator
}

func newCountPlan(s stage) *countPlan {
	switch s := s.(type) {
	case *countStage:
		return &countPlan{st: s, field: s.field}
	case *groupStage:
		if !s.idConst {
			return nil
		}
		cp := &countPlan{st: s, id: s.idValue, fields: s.fields}
		for i, op := range s.ops {
			a := s.args[i]
			switch {
			case op == "$count":
				cp.mults = append(cp.mults, bsoncore.Value{})
			case op == "$sum" && (a.Type == bsoncore.TypeInt32 || a.Type == bsoncore.TypeInt64 || a.Type == bsoncore.TypeDouble):
				cp.mults = append(cp.mults, a)
			default:
				return nil
			}
		}
		return cp
	}
	return nil
}

// sumTimes returns the $sum of n copies of c with $sum's typing.
func sumTimes(n int64, c bsoncore.Value) bsoncore.Value {
	switch c.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		var x int64
		if c.Type == bsoncore.TypeInt32 {
			x = int64(c.Int32())
		} else {
			x = c.Int64()
		}
		if x != 0 && (n > math.MaxInt64/abs64(x)) {
			return expr.Double(float64(n) * float64(x))
		}
		if c.Type == bsoncore.TypeInt32 {
			return intValue(n * x)
		}
		return expr.Int64(n * x)
	case bsoncore.TypeDouble:
		return expr.Double(float64(n) * c.Double())
	}
	return intValue(n)
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func (cp *countPlan) run(rc *runCtx, p *Pipeline) (Iterator, error) {
	spec := p.push
	n, err := rc.cat.Count(rc.ctx, p.pc.DB, p.pc.Coll, spec.Filter, spec.Skip, spec.Limit, spec.Hint)
	if err != nil {
		return nil, err
	}
	var docs []bsoncore.Document
	if n > 0 {
		if cp.field != "" {
			docs = append(docs, bsoncore.NewDocumentBuilder().AppendValue(cp.field, intValue(n)).Build())
		} else {
			idx, out := bsoncore.AppendDocumentStart(nil)
			out = bsoncore.AppendValueElement(out, "_id", cp.id)
			for i, f := range cp.fields {
				out = bsoncore.AppendValueElement(out, f, sumTimes(n, cp.mults[i]))
			}
			out, _ = bsoncore.AppendDocumentEnd(out, idx)
			docs = append(docs, out)
		}
	}
	return p.runOnInput(rc, &sliceIter{docs: docs})
}
