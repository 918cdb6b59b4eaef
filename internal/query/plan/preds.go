package plan

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/query"
)

// pred is one predicate of the filter that can bound an index field.
type pred struct {
	path string
	oil  OIL
	// exact is set when the bounds select exactly the values the
	// predicate matches (no FETCH needed to re-check it on a non-multikey
	// index).
	exact bool
	// ctx is the $elemMatch object the predicate sits in (nil at top
	// level); ctxPath is that $elemMatch's path.
	ctx     query.Node
	ctxPath string
	// top is set for top-level conjuncts (not under $elemMatch or $all).
	top bool
	// node is the leaf predicate (nil for $elemMatch values).
	node query.Node
	// strs is set when the predicate's outcome depends on how strings
	// compare: an index whose collation differs from the query's cannot
	// bound it.
	strs bool
	// geo is the index type ("2dsphere", "2d") whose fields the bounds of
	// a $geoWithin/$geoIntersects are for (geo.go); empty otherwise.
	geo string
}

// stringFree drops the predicates that compare strings.
func stringFree(preds []pred) []pred {
	out := make([]pred, 0, len(preds))
	for _, p := range preds {
		if !p.strs {
			out = append(out, p)
		}
	}
	return out
}

// collectPreds gathers the predicates of n that can produce bounds.
// Predicates under $or, $nor and $not are left to the filter.
func collectPreds(n query.Node, prefix string, ctx query.Node, ctxPath string, top bool, out *[]pred, scope predScope) {
	switch t := n.(type) {
	case *query.AndNode:
		for _, c := range t.Children {
			collectPreds(c, prefix, ctx, ctxPath, top, out, scope)
		}
	case *query.ElemMatchObjectNode:
		p, _ := query.NodePath(t)
		full := join(prefix, p)
		collectPreds(t.Sub, full, t, full, false, out, scope)
	case *query.ElemMatchValueNode:
		p, _ := query.NodePath(t)
		if !scope.wants(join(prefix, p)) {
			return
		}
		oil := FullOIL()
		any := false
		strs := false
		for _, c := range t.Preds {
			strs = strs || query.NodeComparesStrings(c)
			if o, _, ok := predOIL(c); ok {
				oil = intersect(oil, o)
				any = true
			}
		}
		if any {
			*out = append(*out, pred{path: join(prefix, p), oil: oil, ctx: t, ctxPath: join(prefix, p), strs: strs})
		}
	case *query.AllNode:
		if len(t.Nodes) == 0 {
			return
		}
		// All elements must match, so the first one's bounds select a
		// superset of the matches; the rest stays in the filter.
		collectPreds(t.Nodes[0], prefix, ctx, ctxPath, false, out, scope)
	default:
		p, ok := query.NodePath(n)
		if !ok || !scope.wants(join(prefix, p)) {
			return
		}
		if oil, exact, ok := predOIL(n); ok {
			*out = append(*out, pred{path: join(prefix, p), oil: oil, exact: exact && top, ctx: ctx, ctxPath: ctxPath, top: top, node: n,
				strs: query.NodeComparesStrings(n)})
		}
		if oil, ok := geoOIL(n); ok {
			*out = append(*out, pred{path: join(prefix, p), oil: oil, ctx: ctx, ctxPath: ctxPath, top: top, node: n, geo: "2dsphere"})
		}
		if oil, ok := geo2DOIL(n); ok {
			*out = append(*out, pred{path: join(prefix, p), oil: oil, ctx: ctx, ctxPath: ctxPath, top: top, node: n, geo: "2d"})
		}
	}
}

// predScope says which predicates collectPreds keeps: only those on a
// path some index of the scope has (building the interval list of a
// 1M-element $in on an unindexed field cost most of such a query). With a
// partial index every predicate is kept: the partial filter's fields need
// not be indexed. It allocates nothing, as planning runs per statement.
type predScope struct {
	indexes []*Index
	one     *Index // a single index (AND_SORTED), instead of indexes
	all     bool
}

// scopeOf is the scope of a planner with these indexes.
func scopeOf(indexes []*Index) predScope {
	for _, ix := range indexes {
		if ix.Partial != nil {
			return predScope{all: true}
		}
	}
	return predScope{indexes: indexes}
}

// scopeOfIndex is the scope of one index.
func scopeOfIndex(ix *Index) predScope {
	if ix.Partial != nil {
		return predScope{all: true}
	}
	return predScope{one: ix}
}

func (s predScope) wants(path string) bool {
	if s.all {
		return true
	}
	if s.one != nil {
		return s.one.hasPath(path)
	}
	for _, ix := range s.indexes {
		if ix.hasPath(path) {
			return true
		}
	}
	return false
}

func (ix *Index) hasPath(path string) bool {
	for _, f := range ix.Fields {
		if f.Path == path {
			return true
		}
	}
	return false
}

func join(prefix, p string) string {
	switch {
	case prefix == "":
		return p
	case p == "":
		return prefix
	}
	return prefix + "." + p
}

// nullOIL is the bounds of an equality to null: [undefined, undefined],
// [null, null], as MongoDB 7.0 builds them. {a: null} matches null,
// undefined and a missing field, and a missing field is indexed as null.
// The bounds are inexact, so FETCH keeps the filter.
func nullOIL() OIL { return OIL{point(undefV), point(nullV)} }

// predOIL returns the bounds of one leaf predicate.
func predOIL(n query.Node) (OIL, bool, bool) {
	switch t := n.(type) {
	case *query.CompareNode:
		return compareOIL(t.Op, t.Value)
	case *query.InNode:
		var ivs []Interval
		exact := true
		for _, v := range t.Values {
			switch v.Type {
			case bsoncore.TypeArray:
				return nil, false, false
			case bsoncore.TypeNull:
				ivs = append(ivs, nullOIL()...)
				exact = false
			default:
				ivs = append(ivs, point(v))
			}
		}
		for _, r := range t.Regexes {
			ivs = append(ivs, regexOIL(r)...)
			exact = false
		}
		return normalize(ivs), exact, true
	case *query.RegexNode:
		return regexOIL(t), false, true
	}
	return nil, false, false
}

func compareOIL(op query.Op, v bsoncore.Value) (OIL, bool, bool) {
	switch v.Type {
	case bsoncore.TypeArray, bsoncore.TypeUndefined:
		return nil, false, false
	case bsoncore.TypeNull:
		if op == query.OpEQ || op == query.OpGTE || op == query.OpLTE {
			return nullOIL(), false, true
		}
		return nil, false, false
	case bsoncore.TypeMinKey, bsoncore.TypeMaxKey:
		if op == query.OpEQ {
			return OIL{point(v)}, true, true
		}
		return nil, false, false
	}
	if op == query.OpEQ {
		return OIL{point(v)}, true, true
	}
	if isNaN(v) {
		if op == query.OpGTE || op == query.OpLTE {
			return OIL{point(v)}, true, true
		}
		return OIL{}, true, true
	}
	lo, hi, loInc, hiInc, ok := bracket(v)
	if !ok {
		return nil, false, false
	}
	var iv Interval
	switch op {
	case query.OpGT:
		iv = Interval{Lo: v, Hi: hi, LoInc: false, HiInc: hiInc}
	case query.OpGTE:
		iv = Interval{Lo: v, Hi: hi, LoInc: true, HiInc: hiInc}
	case query.OpLT:
		iv = Interval{Lo: lo, Hi: v, LoInc: loInc, HiInc: false}
	case query.OpLTE:
		iv = Interval{Lo: lo, Hi: v, LoInc: loInc, HiInc: true}
	}
	return normalize([]Interval{iv}), true, true
}

// regexOIL bounds a regex: the strings starting with its literal prefix
// when anchored (all strings otherwise), plus the regex value itself.
func regexOIL(r *query.RegexNode) OIL {
	ivs := []Interval{point(regexValue(r.Pattern, r.Options))}
	prefix, ok := r.Prefix()
	if ok && prefix != "" {
		ivs = append(ivs, Interval{Lo: stringValue(prefix), Hi: stringValue(prefixSuccessor(prefix)), LoInc: true, HiInc: false})
	} else {
		ivs = append(ivs, Interval{Lo: emptyStr, Hi: emptyObj, LoInc: true, HiInc: false})
	}
	return normalize(ivs)
}

// prefixSuccessor returns the smallest string greater than every string
// starting with p ("123_" -> "123`").
func prefixSuccessor(p string) string {
	b := []byte(p)
	for len(b) > 0 {
		if b[len(b)-1] < 0xff {
			b[len(b)-1]++
			return string(b)
		}
		b = b[:len(b)-1]
	}
	return ""
}

// excludesNull reports whether o matches neither null nor undefined (so a
// document missing the field cannot match).
func excludesNull(o OIL) bool {
	for _, iv := range o {
		for _, v := range []bsoncore.Value{nullV, undefV} {
			lc := bsonutil.Compare(iv.Lo, v)
			hc := bsonutil.Compare(v, iv.Hi)
			if (lc < 0 || (lc == 0 && iv.LoInc)) && (hc < 0 || (hc == 0 && iv.HiInc)) {
				return false
			}
		}
	}
	return true
}

// subsetOf reports whether every value of a is in b.
func subsetOf(a, b OIL) bool {
	x := intersect(a, b)
	if len(x) != len(a) {
		return false
	}
	for i := range x {
		if cmpLo(x[i], a[i]) != 0 || bsonutil.Compare(x[i].Hi, a[i].Hi) != 0 || x[i].HiInc != a[i].HiInc {
			return false
		}
	}
	return true
}
