package plan

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/text"
)

// Text plan stages, as mongod 7.0's explain names them.
const (
	StageTextMatch = "TEXT_MATCH"
	StageTextOr    = "TEXT_OR"
)

// TextIndex is the text part of a text index: its spec and the number of
// key fields before the term (_fts).
type TextIndex struct {
	Spec    *text.Spec
	NPrefix int
	Version int32
}

// TextPlan is what TEXT_MATCH and TEXT_OR need: the parsed query, the
// index and the equality values of its prefix fields.
type TextPlan struct {
	Query  *text.Query
	Index  *Index
	Prefix []bsoncore.Value
}

// PrefixDoc renders the prefix values as explain's indexPrefix.
func (t *TextPlan) PrefixDoc() bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	for i, v := range t.Prefix {
		b.AppendValue(t.Index.Fields[i].Path, v)
	}
	return b.Build()
}

// textSolution plans a query with $text as mongod does: TEXT_MATCH (the
// phrases and negations) over TEXT_OR (the union of the terms' scans,
// summing each document's scores, fetching it and applying the rest of
// the filter) over one IXSCAN per term of the text index. The prefix
// fields of a compound text index need an equality predicate each.
func textSolution(p Params, tn *query.TextNode) (*Solution, error) {
	ix := p.TextIndex
	if ix != nil && ix.Partial != nil {
		// A partial text index answers only queries that imply its
		// filter, as any partial index.
		var preds []pred
		collectPreds(p.Filter.Root(), "", nil, "", true, &preds, scopeOfIndex(ix))
		if !impliesPartial(preds, ix.Partial) {
			ix = nil
		}
	}
	if ix == nil {
		return nil, errs.New(errs.IndexNotFound, "text index required for $text query")
	}
	if p.Hint.Type != 0 && !hintsText(p.Hint, ix) {
		return nil, errs.New(errs.NotImplemented, "a hint other than the text index with $text is not supported by Lode")
	}
	lang := ix.Text.Spec.DefaultLanguage
	if tn.Language != "" {
		l, ok := text.LookupLanguage(tn.Language)
		if !ok {
			return nil, errs.New(errs.BadValue, "unsupported language: \"%s\" for text index version %d", tn.Language, ix.Text.Version)
		}
		lang = l
	}
	q := text.ParseQuery(tn.Search, lang, tn.CaseSensitive, tn.DiacriticSensitive)
	tp := &TextPlan{Query: q, Index: ix}
	for i := 0; i < ix.Text.NPrefix; i++ {
		v, ok := equalityOn(p.Filter.Root(), ix.Fields[i].Path)
		if !ok {
			return nil, errs.New(errs.BadValue, "error processing query: planner returned error :: caused by :: failed to use text index to satisfy $text query (if text index is compound, are equality predicates given for all prefix fields?)")
		}
		tp.Prefix = append(tp.Prefix, v)
	}
	or := &Node{Stage: StageTextOr, Text: tp, Filter: true}
	for _, term := range q.BoundsTerms {
		bounds := make([]FieldBounds, len(ix.Fields))
		for i, f := range ix.Fields {
			bounds[i] = FieldBounds{Path: f.Path, Desc: f.Desc, OIL: FullOIL()}
			switch {
			case i < ix.Text.NPrefix:
				bounds[i].OIL = OIL{point(tp.Prefix[i])}
			case i == ix.Text.NPrefix:
				bounds[i].OIL = OIL{point(stringValue(term))}
			}
		}
		or.Children = append(or.Children, &Node{Stage: StageIxScan, Index: ix, Bounds: bounds, Direction: -1})
	}
	root := &Node{Stage: StageTextMatch, Text: tp, Children: []*Node{or}}
	return &Solution{Root: root, BlockingSort: p.Sort != nil && !p.Sort.Empty(), Index: ix}, nil
}

// equalityOn finds a top-level {path: value} equality (not null, not an
// array or regex) in the filter.
func equalityOn(root query.Node, path string) (bsoncore.Value, bool) {
	kids := []query.Node{root}
	if a, ok := root.(*query.AndNode); ok {
		kids = a.Children
	}
	for _, k := range kids {
		c, ok := k.(*query.CompareNode)
		if !ok || c.Op != query.OpEQ || c.Path != path {
			continue
		}
		switch c.Value.Type {
		case bsoncore.TypeNull, bsoncore.TypeArray, bsoncore.TypeRegex, bsoncore.TypeUndefined:
			continue
		}
		return c.Value, true
	}
	return bsoncore.Value{}, false
}

// hintsText reports whether a hint names the text index (by name or by
// its stored key pattern).
func hintsText(h bsoncore.Value, ix *Index) bool {
	switch h.Type {
	case bsoncore.TypeString:
		return h.StringValue() == ix.Name
	case bsoncore.TypeEmbeddedDocument:
		return sameKey(ix.KeyPattern, h.Document())
	}
	return false
}

// textUnderOrError turns TextOf's refusal of a $text directly under a
// top-level $or into mongod's NoQueryExecutionPlans when another branch
// has no index (mongod cannot plan it either); when every branch has
// one, the query is valid in mongod and Lode's refusal (238) stands.
func textUnderOrError(p Params, err error) error {
	or, ok := p.Filter.Root().(*query.OrNode)
	if !ok || !errs.Is(err, errs.NotImplemented) {
		return err
	}
	for _, c := range or.Children {
		if _, isText := c.(*query.TextNode); isText {
			continue
		}
		q := p
		q.Filter = query.NewFilter(c)
		q.TextIndex, q.Hint, q.Sort, q.SortDoc = nil, bsoncore.Value{}, nil, nil
		sols, perr := Plan(q)
		if perr != nil || len(sols) == 0 || sols[0].Root.Stage == StageCollScan {
			return errs.New(errs.NoQueryExecutionPlans, "error processing query: planner returned error :: caused by :: Failed to produce a solution for TEXT under OR - other non-TEXT clauses under OR have to be indexed as well.")
		}
	}
	return err
}
