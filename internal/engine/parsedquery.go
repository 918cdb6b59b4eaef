package engine

import (
	"errors"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/expr"
)

// Match node kinds, in the order of MongoDB 7.0's MatchExpression::MatchType
// (which orders the children of $and, $or and $elemMatch after parsing).
const (
	mAnd = iota
	mOr
	mElemMatchObject
	mElemMatchValue
	mSize
	mEQ
	mLTE
	mLT
	mGT
	mGTE
	mRegex
	mMod
	mExists
	mIn
	mNot = iota + 4 // after the four $bits* kinds
	mNor
)

// mnode is a filter node as mongod's parsed and normalised MatchExpression
// tree, used only to render explain's parsedQuery.
type mnode struct {
	kind int
	path string
	val  bsoncore.Value   // comparison operand; regex pattern/options
	vals []bsoncore.Value // $in values (sorted, without duplicates)
	kids []*mnode
}

var errNotRendered = errors.New("filter form not rendered")

// parsedQuery returns the filter as mongod 7.0 prints parsedQuery: every
// predicate spelled with its operator ({a: {$eq: 5}}), conjunctions as
// $and (flattened, one child unwrapped), children sorted by kind then
// path, $in values sorted, a one-value $in as $eq, $ne and $nin under
// $not. Filters using operators this rendering does not know are shown
// as given.
func parsedQuery(filter bsoncore.Document) bsoncore.Document {
	n, err := parseMatchDoc(filter)
	if err != nil {
		return filter
	}
	n = normalizeMatch(n)
	if n.kind == mAnd && len(n.kids) == 0 {
		return emptyDoc
	}
	b := bsoncore.NewDocumentBuilder()
	appendMatch(b, n)
	return b.Build()
}

func parseMatchDoc(d bsoncore.Document) (*mnode, error) {
	elems, err := d.Elements()
	if err != nil {
		return nil, err
	}
	and := &mnode{kind: mAnd}
	for _, e := range elems {
		k, v := e.Key(), e.Value()
		switch k {
		case "$and", "$or", "$nor":
			arr, ok := v.ArrayOK()
			if !ok {
				return nil, errNotRendered
			}
			vals, _ := arr.Values()
			kind := map[string]int{"$and": mAnd, "$or": mOr, "$nor": mNor}[k]
			n := &mnode{kind: kind}
			for _, x := range vals {
				sub, ok := x.DocumentOK()
				if !ok {
					return nil, errNotRendered
				}
				c, err := parseMatchDoc(sub)
				if err != nil {
					return nil, err
				}
				n.kids = append(n.kids, c)
			}
			and.kids = append(and.kids, n)
		default:
			if strings.HasPrefix(k, "$") {
				return nil, errNotRendered
			}
			kids, err := parseMatchField(k, v)
			if err != nil {
				return nil, err
			}
			and.kids = append(and.kids, kids...)
		}
	}
	return and, nil
}

// isOperatorDoc reports whether v is {$op: ...} (not a literal document).
func isOperatorDoc(v bsoncore.Value) bool {
	d, ok := v.DocumentOK()
	if !ok {
		return false
	}
	elems, _ := d.Elements()
	return len(elems) > 0 && strings.HasPrefix(elems[0].Key(), "$")
}

func parseMatchField(path string, v bsoncore.Value) ([]*mnode, error) {
	if v.Type == bsoncore.TypeRegex {
		return []*mnode{{kind: mRegex, path: path, val: v}}, nil
	}
	if !isOperatorDoc(v) {
		return []*mnode{{kind: mEQ, path: path, val: v}}, nil
	}
	elems, _ := v.Document().Elements()
	var out []*mnode
	if re, err := v.Document().LookupErr("$regex"); err == nil {
		// {$regex: "p", $options: "i"} is one predicate.
		pattern, ok := re.StringValueOK()
		if !ok {
			if re.Type != bsoncore.TypeRegex {
				return nil, errNotRendered
			}
			pattern, _ = re.Regex()
		}
		opts := ""
		if o, err := v.Document().LookupErr("$options"); err == nil {
			if opts, ok = o.StringValueOK(); !ok {
				return nil, errNotRendered
			}
		}
		out = append(out, &mnode{kind: mRegex, path: path, val: bsoncore.Value{Type: bsoncore.TypeRegex, Data: bsoncore.AppendRegex(nil, pattern, opts)}})
	}
	for _, e := range elems {
		op, x := e.Key(), e.Value()
		switch op {
		case "$regex", "$options":
		case "$eq", "$lt", "$lte", "$gt", "$gte":
			kind := map[string]int{"$eq": mEQ, "$lt": mLT, "$lte": mLTE, "$gt": mGT, "$gte": mGTE}[op]
			out = append(out, &mnode{kind: kind, path: path, val: x})
		case "$ne":
			out = append(out, &mnode{kind: mNot, kids: []*mnode{{kind: mEQ, path: path, val: x}}})
		case "$in", "$nin":
			in, err := inNode(path, x)
			if err != nil {
				return nil, err
			}
			if op == "$nin" {
				in = &mnode{kind: mNot, kids: []*mnode{in}}
			}
			out = append(out, in)
		case "$exists":
			ex := &mnode{kind: mExists, path: path}
			if !expr.Truthy(x) {
				ex = &mnode{kind: mNot, kids: []*mnode{ex}}
			}
			out = append(out, ex)
		case "$elemMatch":
			n, err := elemMatchNode(path, x)
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		case "$all":
			arr, ok := x.ArrayOK()
			if !ok {
				return nil, errNotRendered
			}
			vals, _ := arr.Values()
			if len(vals) == 0 {
				return nil, errNotRendered
			}
			for _, a := range vals {
				if isOperatorDoc(a) {
					d := a.Document()
					em, err := d.LookupErr("$elemMatch")
					if err != nil {
						return nil, errNotRendered
					}
					n, err := elemMatchNode(path, em)
					if err != nil {
						return nil, err
					}
					out = append(out, n)
					continue
				}
				if a.Type == bsoncore.TypeRegex || a.Type == bsoncore.TypeArray {
					return nil, errNotRendered
				}
				out = append(out, &mnode{kind: mEQ, path: path, val: a})
			}
		default:
			return nil, errNotRendered
		}
	}
	return out, nil
}

func inNode(path string, x bsoncore.Value) (*mnode, error) {
	arr, ok := x.ArrayOK()
	if !ok {
		return nil, errNotRendered
	}
	vals, _ := arr.Values()
	n := &mnode{kind: mIn, path: path}
	for _, v := range vals {
		if v.Type == bsoncore.TypeRegex || isOperatorDoc(v) {
			return nil, errNotRendered
		}
		n.vals = append(n.vals, v)
	}
	sort.SliceStable(n.vals, func(i, j int) bool { return bsonutil.Compare(n.vals[i], n.vals[j]) < 0 })
	w := 0
	for i, v := range n.vals {
		if i > 0 && bsonutil.Compare(v, n.vals[w-1]) == 0 {
			continue
		}
		n.vals[w] = v
		w++
	}
	n.vals = n.vals[:w]
	return n, nil
}

func elemMatchNode(path string, x bsoncore.Value) (*mnode, error) {
	d, ok := x.DocumentOK()
	if !ok {
		return nil, errNotRendered
	}
	if isOperatorDoc(x) {
		kids, err := parseMatchField("", x)
		if err != nil {
			return nil, err
		}
		for _, k := range kids {
			if k.kind < mEQ || k.kind > mIn {
				return nil, errNotRendered
			}
		}
		return &mnode{kind: mElemMatchValue, path: path, kids: kids}, nil
	}
	sub, err := parseMatchDoc(d)
	if err != nil {
		return nil, err
	}
	return &mnode{kind: mElemMatchObject, path: path, kids: []*mnode{sub}}, nil
}

// normalizeMatch flattens nested $and/$or, unwraps one-child $and/$or,
// rewrites a one-value $in as $eq, and sorts children as mongod does.
func normalizeMatch(n *mnode) *mnode {
	for i, k := range n.kids {
		n.kids[i] = normalizeMatch(k)
	}
	if n.kind == mAnd || n.kind == mOr {
		var flat []*mnode
		for _, k := range n.kids {
			if k.kind == n.kind {
				flat = append(flat, k.kids...)
			} else {
				flat = append(flat, k)
			}
		}
		n.kids = flat
		if len(n.kids) == 1 {
			return n.kids[0]
		}
	}
	if n.kind == mIn && len(n.vals) == 1 {
		return &mnode{kind: mEQ, path: n.path, val: n.vals[0]}
	}
	if n.kind == mAnd || n.kind == mOr || n.kind == mNor || n.kind == mElemMatchValue {
		sort.SliceStable(n.kids, func(i, j int) bool { return compareMatch(n.kids[i], n.kids[j]) < 0 })
	}
	return n
}

// compareMatch is mongod's matchExpressionComparator: kind, then path,
// then children in turn, then the number of children.
func compareMatch(a, b *mnode) int {
	if a.kind != b.kind {
		if a.kind < b.kind {
			return -1
		}
		return 1
	}
	if c := strings.Compare(a.path, b.path); c != 0 {
		return c
	}
	for i := 0; i < len(a.kids) && i < len(b.kids); i++ {
		if c := compareMatch(a.kids[i], b.kids[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(a.kids) < len(b.kids):
		return -1
	case len(a.kids) > len(b.kids):
		return 1
	}
	return 0
}

// appendMatch appends n's serialization to b.
func appendMatch(b *bsoncore.DocumentBuilder, n *mnode) {
	switch n.kind {
	case mAnd, mOr, mNor:
		ab := bsoncore.NewArrayBuilder()
		for _, k := range n.kids {
			kb := bsoncore.NewDocumentBuilder()
			appendMatch(kb, k)
			ab.AppendDocument(kb.Build())
		}
		b.AppendArray(map[int]string{mAnd: "$and", mOr: "$or", mNor: "$nor"}[n.kind], ab.Build())
	case mNot:
		c := n.kids[0]
		b.AppendDocument(c.path, bsoncore.NewDocumentBuilder().AppendDocument("$not", rhsDoc(c)).Build())
	case mElemMatchObject:
		sb := bsoncore.NewDocumentBuilder()
		appendMatch(sb, n.kids[0])
		b.AppendDocument(n.path, bsoncore.NewDocumentBuilder().AppendDocument("$elemMatch", sb.Build()).Build())
	case mElemMatchValue:
		eb := bsoncore.NewDocumentBuilder()
		for _, k := range n.kids {
			appendRHS(eb, k)
		}
		b.AppendDocument(n.path, bsoncore.NewDocumentBuilder().AppendDocument("$elemMatch", eb.Build()).Build())
	default:
		b.AppendDocument(n.path, rhsDoc(n))
	}
}

// rhsDoc is a leaf's right-hand side, such as {$eq: 5}.
func rhsDoc(n *mnode) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	appendRHS(b, n)
	return b.Build()
}

func appendRHS(b *bsoncore.DocumentBuilder, n *mnode) {
	switch n.kind {
	case mEQ, mLT, mLTE, mGT, mGTE:
		op := map[int]string{mEQ: "$eq", mLT: "$lt", mLTE: "$lte", mGT: "$gt", mGTE: "$gte"}[n.kind]
		b.AppendValue(op, n.val)
	case mIn:
		ab := bsoncore.NewArrayBuilder()
		for _, v := range n.vals {
			ab.AppendValue(v)
		}
		b.AppendArray("$in", ab.Build())
	case mExists:
		b.AppendBoolean("$exists", true)
	case mRegex:
		p, o := n.val.Regex()
		b.AppendString("$regex", p)
		if o != "" {
			b.AppendString("$options", o)
		}
	}
}
