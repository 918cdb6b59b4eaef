package engine

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/query/plan"
)

// renderResidual fills the explain form of a FETCH's residual filter
// (mongod's parsed form of the filter without the conjuncts the index
// bounds guarantee). When the filter has no such rendering the FETCH
// falls back to the whole filter, so explain never shows a filter other
// than the one applied.
func renderResidual(filter bsoncore.Document, n *plan.Node) {
	if n.Stage != plan.StageFetch || len(n.Dropped) == 0 {
		return
	}
	if doc, ok := residualQuery(filter, n.Dropped); ok {
		n.ResidualDoc = doc
		return
	}
	n.Dropped, n.Residual, n.Filter = nil, nil, true
}

// residualQuery returns parsedQuery(filter) without the top-level
// conjuncts dropped; ok is false when one of them cannot be found in the
// rendering.
func residualQuery(filter bsoncore.Document, dropped []query.Node) (bsoncore.Document, bool) {
	root, err := parseMatchDoc(filter)
	if err != nil {
		return nil, false
	}
	root = normalizeMatch(root)
	kids := []*mnode{root}
	if root.kind == mAnd {
		kids = append([]*mnode(nil), root.kids...)
	}
	for _, d := range dropped {
		found := false
		for i, k := range kids {
			if sameLeaf(k, d) {
				kids = append(kids[:i], kids[i+1:]...)
				found = true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	b := bsoncore.NewDocumentBuilder()
	switch len(kids) {
	case 0:
		return emptyDoc, true
	case 1:
		appendMatch(b, kids[0])
	default:
		appendMatch(b, &mnode{kind: mAnd, kids: kids})
	}
	return b.Build(), true
}

// sameLeaf reports whether the rendered leaf k is the predicate d.
func sameLeaf(k *mnode, d query.Node) bool {
	switch t := d.(type) {
	case *query.CompareNode:
		kind := map[query.Op]int{query.OpEQ: mEQ, query.OpLT: mLT, query.OpLTE: mLTE, query.OpGT: mGT, query.OpGTE: mGTE}[t.Op]
		return k.kind == kind && k.path == t.Path && k.val.Type == t.Value.Type && bsonutil.Compare(k.val, t.Value) == 0
	case *query.InNode:
		if k.path != t.Path {
			return false
		}
		switch k.kind {
		case mEQ:
			return len(t.Values) == 1 && k.val.Type == t.Values[0].Type && bsonutil.Compare(k.val, t.Values[0]) == 0
		case mIn:
			if len(k.vals) != len(t.Values) {
				return false
			}
			for i, v := range k.vals {
				if v.Type != t.Values[i].Type || bsonutil.Compare(v, t.Values[i]) != 0 {
					return false
				}
			}
			return true
		}
	}
	return false
}
