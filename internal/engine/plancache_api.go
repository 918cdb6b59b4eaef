package engine

import (
	"fmt"
	"hash/maphash"
	"slices"
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/queryshape"
)

// clearShape hashes a query, sort and projection as planCacheClear
// selects entries: the filter's and projection's structure and the sort's
// fields and directions.
func clearShape(filter, sortDoc, proj bsoncore.Document) uint64 {
	var h maphash.Hash
	h.SetSeed(planCacheSeed)
	writeFilterShape(&h, filter)
	h.WriteByte(1)
	if els, err := sortDoc.Elements(); err == nil {
		for _, el := range els {
			h.WriteString(el.Key())
			v := el.Value()
			switch f, ok := v.AsFloat64OK(); {
			case ok && f < 0:
				h.WriteByte('-')
			case ok:
				h.WriteByte('+')
			default:
				h.WriteByte('m') // {$meta: ...}
			}
		}
	}
	h.WriteByte(2)
	queryshape.WriteStructure(&h, proj)
	return h.Sum64()
}

// PlanCacheClear empties db.coll's plan cache, or, when query is set,
// removes the entries of that query shape (with sort and projection), as
// planCacheClear does. A missing collection has nothing to clear.
func (e *Engine) PlanCacheClear(db, coll string, query, sortDoc, proj bsoncore.Document) error {
	if err := e.checkOpen(); err != nil {
		return err
	}
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return nil
	}
	if query == nil {
		c.state.plans.clear(nil)
		return nil
	}
	want := clearShape(query, sortDoc, proj)
	c.state.plans.clear(func(en *planCacheEntry) bool { return en.qshape == want })
	return nil
}

// PlanCacheStats returns one document per entry of db.coll's plan cache,
// as $planCacheStats shows them (mongod 7.0's classic engine form), in
// order of creation.
func (e *Engine) PlanCacheStats(db, coll string) ([]bsoncore.Document, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return nil, nil
	}
	pc := &c.state.plans
	pc.mu.Lock()
	var ents []planCacheEntry
	if slices.Equal(pc.indexes, c.Indexes) {
		for _, en := range pc.entries {
			ents = append(ents, *en)
		}
	}
	pc.mu.Unlock()
	sort.Slice(ents, func(i, j int) bool { return ents[i].created.Before(ents[j].created) })
	out := make([]bsoncore.Document, 0, len(ents))
	for i := range ents {
		out = append(out, planCacheEntryDoc(&ents[i]))
	}
	return out, nil
}

func planCacheEntryDoc(en *planCacheEntry) bsoncore.Document {
	from := bsoncore.NewDocumentBuilder().AppendDocument("query", orEmpty(en.filter)).
		AppendDocument("sort", orEmpty(en.sort)).AppendDocument("projection", orEmpty(en.proj)).Build()
	scores := bsoncore.NewArrayBuilder()
	for _, s := range en.scores {
		scores.AppendDouble(s)
	}
	return bsoncore.NewDocumentBuilder().
		AppendString("version", "1").
		AppendString("queryHash", queryHashOf(en.shape)).
		AppendString("planCacheKey", fmt.Sprintf("%08X", en.key)).
		AppendBoolean("isActive", en.active).
		AppendInt64("works", en.works).
		AppendDateTime("timeOfCreation", en.created.UnixMilli()).
		AppendDocument("createdFromQuery", from).
		AppendDocument("cachedPlan", solutionDoc(en.sol.Root)).
		AppendArray("creationExecStats", bsoncore.NewArrayBuilder().Build()).
		AppendArray("candidatePlanScores", scores.Build()).
		AppendBoolean("indexFilterSet", en.filterSet).
		AppendInt64("estimatedSizeBytes", int64(len(en.filter)+len(en.sort)+len(en.proj)+256)).
		AppendString("planSummary", en.summary).
		Build()
}

func orEmpty(d bsoncore.Document) bsoncore.Document {
	if len(d) == 0 {
		return bsoncore.Document{5, 0, 0, 0, 0}
	}
	return d
}

// solutionDoc renders a solution's stages, indexes and directions (the
// bounds are the creating query's and are left out).
func solutionDoc(n *plan.Node) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().AppendString("stage", n.Stage)
	if n.Index != nil {
		b.AppendDocument("keyPattern", n.Index.KeyPattern).AppendString("indexName", n.Index.Name)
		dir := "forward"
		if n.Direction < 0 {
			dir = "backward"
		}
		b.AppendString("direction", dir)
	}
	switch len(n.Children) {
	case 0:
	case 1:
		b.AppendDocument("inputStage", solutionDoc(n.Children[0]))
	default:
		arr := bsoncore.NewArrayBuilder()
		for _, c := range n.Children {
			arr.AppendDocument(solutionDoc(c))
		}
		b.AppendArray("inputStages", arr.Build())
	}
	return b.Build()
}
