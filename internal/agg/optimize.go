package agg

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/expr"
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

// pushStep is a stage's place in the query of the collection scan, in
// the order the scan applies its parts.
type pushStep uint8

const (
	pushFilter     pushStep = iota // $match
	pushSort                       // $sort (with a coalesced $limit)
	pushSkip                       // $skip
	pushLimit                      // $limit
	pushProjection                 // an inclusion-only $project
)

// pushable is a stage that can go down into the FindSpec of the
// collection scan when the stages before it did: $match, $sort, $skip,
// $limit, an inclusion-only $project. Each says so beside its type.
type pushable interface {
	// pushStep is the stage's place in the scan's query: a stage goes
	// down only after stages of earlier steps.
	pushStep() pushStep
	// pushInto moves the stage into spec, the scan's query of pipeline
	// p; ok is false when it cannot go down. rest, when not nil, is what
	// stays in the pipeline in its place (it went down in part), and
	// nothing after it goes down.
	pushInto(p *Pipeline, spec *FindSpec) (rest stage, ok bool)
}

// pushdown moves the leading stages that can go down (pushable, in their
// steps' order) into the FindSpec of the collection scan, then lets the
// next one answer the pipeline from the catalog's count (counter).
func (p *Pipeline) pushdown() {
	pc := p.pc
	if pc.Coll == "" || (len(p.stages) > 0 && isSource(p.stages[0])) {
		return
	}
	spec := &FindSpec{Hint: pc.Hint, AllowDiskUse: pc.AllowDiskUse, Collation: pc.Collation}
	p.push = spec
	st := p.stages
	i := 0
	done := false
	for next := pushFilter; i < len(st); {
		ps, ok := st[i].(pushable)
		if !ok || ps.pushStep() < next {
			break
		}
		rest, ok := ps.pushInto(p, spec)
		if !ok {
			break
		}
		if rest != nil {
			st[i] = rest
			done = true
			break
		}
		p.pushedStages = append(p.pushedStages, st[i].spec())
		next = ps.pushStep() + 1
		i++
	}
	p.stages = st[i:]
	if !done && len(p.stages) > 0 && pc.Collation == nil {
		// (The catalog's count applies the collection's default
		// collation: not when the pipeline gives another.)
		if c, ok := p.stages[0].(counter); ok {
			p.countOnly = c.countPlan()
		}
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

// counter is a stage that may answer the pipeline from the catalog's count
// when it follows what went down into the scan ($count, a $group that
// counts). Each says so beside its type.
type counter interface {
	// countPlan is its count plan, or nil when the stage needs the
	// documents.
	countPlan() *countPlan
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
