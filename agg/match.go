package agg

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/errs"
	"github.com/lodedb/lode/expr"
	"github.com/lodedb/lode/query"
)

// matchStage is $match: a find filter, plus top-level $expr clauses that
// reference let variables and are therefore evaluated here rather than by
// package query.
type matchStage struct {
	raw bsoncore.Document
	// filterDoc is the part given to query.Parse (and pushable).
	filterDoc bsoncore.Document
	filter    *query.Filter
	exprs     []expr.Expr
}

func parseMatch(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.Code(15959), "the match filter must be an expression in an object")
	}
	m := &matchStage{raw: d}
	filterDoc := d
	if pc.Expr.NumSlots() > 0 {
		// Variables are in scope: evaluate top-level $expr ourselves.
		elems, _ := d.Elements()
		b := bsoncore.NewDocumentBuilder()
		split := false
		for _, el := range elems {
			if el.Key() == "$expr" {
				e, err := expr.Parse(el.Value(), pc.Expr)
				if err != nil {
					return nil, err
				}
				m.exprs = append(m.exprs, e)
				split = true
				continue
			}
			b.AppendValue(el.Key(), el.Value())
		}
		if split {
			filterDoc = b.Build()
		}
	}
	f, err := query.Parse(filterDoc)
	if err != nil {
		return nil, err
	}
	m.filterDoc, m.filter = filterDoc, f
	return []stage{m}, nil
}

func (m *matchStage) name() string { return "$match" }

func (m *matchStage) spec() bsoncore.Document { return specDoc("$match", docValue(m.raw)) }

// pushable reports whether the whole filter can run in the catalog.
func (m *matchStage) pushable() bool { return len(m.exprs) == 0 }

func (m *matchStage) matches(d bsoncore.Document, rc *runCtx) (bool, error) {
	if !m.filter.Match(d) {
		return false, nil
	}
	for _, e := range m.exprs {
		v, err := e.Eval(d, rc.vars)
		if err != nil {
			return false, err
		}
		if !expr.Truthy(v) {
			return false, nil
		}
	}
	return true, nil
}

func (m *matchStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	return mapIter(in, func(d bsoncore.Document) (bsoncore.Document, error) {
		ok, err := m.matches(d, rc)
		if err != nil || !ok {
			return nil, err
		}
		return d, nil
	}), nil
}
