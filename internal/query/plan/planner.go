package plan

import (
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
)

// Plan returns the candidate solutions of a query, best first by the
// static ranking (equality, then sort, then range). A hint yields exactly
// one solution. With no usable index the only solution is a COLLSCAN.
func Plan(p Params) ([]*Solution, error) {
	sols, err := plan(p)
	if err != nil {
		return nil, err
	}
	return clusterSolutions(p, sols), nil
}

func plan(p Params) ([]*Solution, error) {
	root := p.Filter.Root()
	tn, err := query.TextOf(p.Filter)
	if err != nil {
		if or, i, tn := query.TextOrBranch(p.Filter); tn != nil && errs.Is(err, errs.NotImplemented) {
			return textOrSolution(p, or, i, tn)
		}
		return nil, textUnderOrError(p, err)
	}
	if tn != nil {
		s, err := textSolution(p, tn)
		if err != nil {
			return nil, err
		}
		return []*Solution{s}, nil
	}
	if b, ok := root.(*query.BoolNode); ok && !b.Value {
		return []*Solution{{Root: &Node{Stage: StageEOF}}}, nil
	}
	if near := query.FindNear(root); near != nil {
		return nearSolutions(p, near)
	}
	var preds []pred
	collectPreds(root, "", nil, "", true, &preds, scopeOf(p.Indexes))
	conjuncts, leafOnly := countConjuncts(root)

	if p.Hint.Type != 0 {
		ix, natural, err := resolveHint(p)
		if err != nil {
			return nil, err
		}
		if natural != 0 {
			return []*Solution{naturalScan(p, natural, preds, conjuncts, leafOnly)}, nil
		}
		s := indexSolution(p, ix, preds, conjuncts, leafOnly, true)
		return []*Solution{s}, nil
	}
	if p.NaturalDir < 0 {
		return []*Solution{naturalScan(p, -1, preds, conjuncts, leafOnly)}, nil
	}
	var sols []*Solution
	for _, ix := range p.Indexes {
		if s := indexSolution(p, ix, preds, conjuncts, leafOnly, false); s != nil {
			sols = append(sols, s)
			if a := andSortedSolution(ix, root); a != nil {
				sols = append(sols, a)
			}
		}
	}
	if len(sols) == 0 {
		if or := orSolution(p, root); or != nil {
			return []*Solution{or}, nil
		}
		return []*Solution{collScan(1, p.Sort != nil)}, nil
	}
	sort.SliceStable(sols, func(i, j int) bool { return sols[i].rank < sols[j].rank })
	return sols, nil
}

// countConjuncts returns the number of top-level conjuncts and whether
// they are all leaf predicates.
func countConjuncts(root query.Node) (int, bool) {
	a, ok := root.(*query.AndNode)
	if !ok {
		return 1, isLeaf(root)
	}
	for _, c := range a.Children {
		if !isLeaf(c) {
			return len(a.Children), false
		}
	}
	return len(a.Children), true
}

func isLeaf(n query.Node) bool {
	switch n.(type) {
	case *query.CompareNode, *query.InNode, *query.RegexNode:
		return true
	}
	return false
}

func collScan(dir int, sorted bool) *Solution {
	return &Solution{Root: &Node{Stage: StageCollScan, Direction: dir, Filter: true}, BlockingSort: sorted, rank: 1 << 30}
}

// hintError is MongoDB's error for a hint that names no index.
func hintError(p Params) error {
	return errs.New(errs.BadValue, "error processing query: ns=%sTree: %s\nSort: %s\nProj: {}\n planner returned error :: caused by :: hint provided does not correspond to an existing index",
		p.NS, docString(p.FilterDoc), docString(p.SortDoc))
}

func docString(d bsoncore.Document) string {
	if len(d) == 0 {
		return "{}"
	}
	return d.String()
}

// ResolveHint finds the index p.Hint names among p.Indexes; natural is
// ±1 for {$natural: ±1}. A hint that names no index is mongod's BadValue.
func ResolveHint(p Params) (*Index, int, error) { return resolveHint(p) }

// resolveHint finds the hinted index; natural is ±1 for {$natural: ±1}.
func resolveHint(p Params) (*Index, int, error) {
	switch p.Hint.Type {
	case bsoncore.TypeString:
		name := p.Hint.StringValue()
		for _, ix := range p.Indexes {
			if ix.Name == name {
				return ix, 0, nil
			}
		}
	case bsoncore.TypeEmbeddedDocument:
		d := p.Hint.Document()
		if v, err := d.LookupErr("$natural"); err == nil {
			if bsonutil.IsNumber(v.Type) && bsonutil.AsFloat64(v) < 0 {
				return nil, -1, nil
			}
			return nil, 1, nil
		}
		for _, ix := range p.Indexes {
			if sameKey(ix.KeyPattern, d) {
				return ix, 0, nil
			}
		}
	}
	return nil, 0, hintError(p)
}

func sameKey(a, b bsoncore.Document) bool {
	ea, _ := a.Elements()
	eb, _ := b.Elements()
	if len(ea) != len(eb) {
		return false
	}
	for i := range ea {
		if ea[i].Key() != eb[i].Key() || bsonutil.Compare(ea[i].Value(), eb[i].Value()) != 0 {
			return false
		}
	}
	return true
}

// usable reports whether ix can answer the query at all: a sparse index
// needs a predicate that excludes missing fields, a partial index needs a
// filter that implies its partialFilterExpression.
func usable(ix *Index, preds []pred, b boundsResult) bool {
	if !geoUsable(ix, b) {
		return false
	}
	if ix.Sparse {
		ok := false
		for _, f := range b.fields {
			if !f.OIL.IsFull() && excludesNull(f.OIL) {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	if ix.Partial != nil && !impliesPartial(preds, ix.Partial) {
		return false
	}
	return true
}

// impliesPartial reports whether the top-level predicates imply every
// conjunct of a partial filter expression.
func impliesPartial(preds []pred, partial *query.Filter) bool {
	root := partial.Root()
	var conj []query.Node
	if a, ok := root.(*query.AndNode); ok {
		conj = a.Children
	} else {
		conj = []query.Node{root}
	}
	for _, c := range conj {
		path, ok := query.NodePath(c)
		if !ok {
			return false
		}
		var need OIL
		exists := false
		if _, ok := c.(*query.ExistsNode); ok {
			exists = true
		} else {
			o, _, ok := predOIL(c)
			if !ok {
				return false
			}
			need = o
		}
		found := false
		for _, p := range preds {
			if !p.top || p.path != path {
				continue
			}
			if (exists && excludesNull(p.oil)) || (!exists && subsetOf(p.oil, need)) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// indexSolution builds the plan that scans ix, or nil when ix does not
// help (no predicate on its first field and no sort it provides).
func indexSolution(p Params, ix *Index, preds []pred, conjuncts int, leafOnly, hinted bool) *Solution {
	sortBy := p.Sort
	if ix.CollationMismatch {
		preds = stringFree(preds)
		sortBy = nil
	}
	b := indexBounds(ix, preds, conjuncts, leafOnly)
	if !hinted && !usable(ix, preds, b) {
		return nil
	}
	sa := analyzeSort(ix, b.fields, sortBy)
	leading := !b.fields[0].OIL.IsFull() || geoLeads(ix, b) // geo.go
	distinct := p.DistinctKey != "" && ix.FieldIndex(p.DistinctKey) == 0 && ix.suppliesValue(p.DistinctKey) && !ix.Multikey && !ix.CollationMismatch
	if !hinted && !leading && !sa.provides && !distinct {
		return nil
	}
	dedup := ix.Multikey
	dir := 1
	if sa.provides && sa.reverse {
		dir = -1
	}
	s := &Solution{Index: ix}
	scan := &Node{Stage: StageIxScan, Index: ix, Bounds: b.fields, Direction: dir, Dedup: dedup}
	var core *Node
	if sa.provides && sa.explode > 0 && p.MaxScansToExplode > 0 && sa.scans <= p.MaxScansToExplode && sa.scans > 1 {
		merge := &Node{Stage: StageSortMerge, Sort: p.Sort, Dedup: dedup}
		for _, fb := range explodeBounds(b.fields, sa.explode) {
			merge.Children = append(merge.Children, &Node{Stage: StageIxScan, Index: ix, Bounds: fb, Direction: dir, Dedup: false, MergePrefixFields: sa.firstSort})
		}
		core = merge
	} else {
		if sa.provides && sa.explode > 0 {
			sa.provides = false // too many scans to merge: sort in memory
			s.HitScanLimit = sa.scans > 1
		}
		core = scan
	}
	s.BlockingSort = p.Sort != nil && !sa.provides
	// A covered distinct reads its values from the keys, so the index must
	// hold the distinct field.
	// An index with a collation holds sort keys, not strings: it cannot
	// supply field values (mongod fetches too).
	s.Covered = p.Covered && b.exact && core == scan && (p.DistinctKey == "" || (ix.suppliesValue(p.DistinctKey) && ix.Collation == nil))
	s.CoveredProjection = len(p.ProjFields) > 0 && b.exact && core == scan && !s.BlockingSort && ix.Collation == nil &&
		coversFields(ix, b.fields, p.ProjFields)
	if s.Covered && p.DistinctKey != "" && !sa.provides {
		if pos, ok := distinctScannable(ix, b.fields, p.DistinctKey); ok {
			scan.Stage, scan.DistinctField, scan.Direction = StageDistinctScan, pos, 1
		}
	}
	if s.Covered || s.CoveredProjection {
		s.Root = core
	} else {
		s.Root = residualFetch(p, ix, preds, core)
	}
	// Static rank: leading equality fields first, then a provided sort,
	// then ranges; a blocking sort costs.
	eq := 0
	for _, f := range b.fields {
		if !f.OIL.AllPoints() {
			break
		}
		eq++
	}
	bounded := 0
	for _, f := range b.fields {
		if !f.OIL.IsFull() {
			bounded++
		}
	}
	s.rank = -eq*100 - bounded*10
	if s.BlockingSort {
		s.rank += 50
	}
	if (!s.Covered && p.Covered) || (!s.CoveredProjection && len(p.ProjFields) > 0) {
		s.rank += 5
	}
	return s
}

// distinctScannable reports whether a covered distinct on key can skip
// from one distinct value to the next: key is a field of ix and every
// field before it is bounded to a single point.
func distinctScannable(ix *Index, fields []FieldBounds, key string) (int, bool) {
	pos := ix.FieldIndex(key)
	if pos < 0 || ix.Multikey {
		return 0, false
	}
	for _, f := range fields[:pos] {
		if len(f.OIL) != 1 || !f.OIL[0].IsPoint() {
			return 0, false
		}
	}
	return pos, true
}

// sortAnalysis tells whether an index provides a sort.
type sortAnalysis struct {
	provides bool
	reverse  bool
	// explode is the number of leading fields with several points that
	// precede the sort fields (SORT_MERGE); scans is the product of their
	// point counts; firstSort is the position of the first sort field.
	explode   int
	scans     int
	firstSort int
}

// analyzeSort checks whether scanning ix within bounds returns documents
// in the order of s (equality fields may sit anywhere among the sort
// fields; several-point fields before the sort fields need SORT_MERGE).
func analyzeSort(ix *Index, fields []FieldBounds, s *query.Sort) sortAnalysis {
	var sa sortAnalysis
	if s == nil || len(s.Fields) == 0 {
		return sa
	}
	k := 0
	dirSet := false
	multiPoint := -1
	for i, f := range fields {
		if k == len(s.Fields) {
			break
		}
		sf := s.Fields[k]
		if f.Path == sf.Path {
			if ix.IsMultikeyField(f.Path) || ix.Fields[i].Hashed {
				return sa
			}
			rev := f.Desc != sf.Desc
			if dirSet && rev != sa.reverse {
				return sa
			}
			if k == 0 {
				sa.firstSort = i
			}
			sa.reverse, dirSet = rev, true
			k++
			continue
		}
		if len(f.OIL) == 1 && f.OIL[0].IsPoint() {
			continue
		}
		if k == 0 && f.OIL.AllPoints() {
			multiPoint = i
			continue
		}
		return sa
	}
	if k < len(s.Fields) {
		return sa
	}
	sa.provides = true
	if multiPoint >= 0 {
		sa.explode = sa.firstSort
		sa.scans = 1
		for i := 0; i < sa.firstSort; i++ {
			sa.scans *= len(fields[i].OIL)
		}
	}
	return sa
}

// explodeBounds returns one copy of fields per combination of the points
// of the first n fields.
func explodeBounds(fields []FieldBounds, n int) [][]FieldBounds {
	out := [][]FieldBounds{nil}
	for i := 0; i < n; i++ {
		var next [][]FieldBounds
		for _, pre := range out {
			for _, iv := range fields[i].OIL {
				fb := fields[i]
				fb.OIL = OIL{iv}
				next = append(next, append(append([]FieldBounds(nil), pre...), fb))
			}
		}
		out = next
	}
	for i := range out {
		out[i] = append(out[i], fields[n:]...)
	}
	return out
}

// CollScanSolution is the forward collection scan of a query, sorted in
// memory when it has a sort: the plan a caller substitutes when it finds
// the index candidates too broad to pay off.
func CollScanSolution(sorted bool) *Solution { return collScan(1, sorted) }
