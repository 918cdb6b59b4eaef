package agg

import (
	"github.com/lodedb/lode/internal/query"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/membudget"
)

// The registry entry of the stage in this file (stagedef.go).
func init() {
	registerStage("$graphLookup", stageDef{parse: parseGraphLookup, access: graphLookupAccess, sources: graphLookupSources, where: anywhere, explain: lookupExplain, shape: shapeArgs})
}

// graphLookupStage is $graphLookup: for each input document, a
// breadth-first search of the foreign collection from the values of
// startWith, following connectFromField to connectToField, whose results
// (each foreign document once, by _id) become the array field as. Each
// round is one query {$and: [restrictSearchWithMatch, {connectToField:
// {$in: frontier}}]} through the catalog, so it uses an index on
// connectToField when there is one and reads views through their
// pipelines. A $unwind of the as field that follows is absorbed, as
// mongod does (explain shows it as "unwinding").
type graphLookupStage struct {
	// coll and collation are the pipeline's collation (nil: simple):
	// connectFromField values, _ids and the $in queries compare under it.
	coll           *collation.Collator
	collation      bsoncore.Document
	from, fromDB   string
	as             []string
	asStr          string
	connectFrom    []string
	connectTo      string
	connectToParts []string
	startWith      expr.Expr
	startRaw       bsoncore.Value
	depthField     []string
	depthStr       string
	maxDepth       int64
	hasMaxDepth    bool
	restrict       bsoncore.Document
	// restrictRaw is restrictSearchWithMatch as given, for explain.
	restrictRaw bsoncore.Document
	// residual, when set, checks each document the query returns: the
	// $expr clauses of restrictSearchWithMatch that use variables.
	residual *matchStage
	// unwind is an absorbed $unwind of the as field.
	unwind *unwindStage
}

// absorb takes a $unwind of the as field, as mongod does (coalesce).
func (s *graphLookupStage) absorb(next stage) bool {
	u, ok := next.(*unwindStage)
	if !ok || s.unwind != nil || strings.Join(u.path, ".") != s.asStr {
		return false
	}
	s.unwind = u
	return true
}

func parseGraphLookup(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	// The checks mongod's LiteParsed form makes before the stage is parsed.
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.FailedToParse, "the $graphLookup stage specification must be an object, but found %s", bsonutil.TypeName(v.Type))
	}
	fromV, err := d.LookupErr("from")
	if err != nil {
		return nil, errs.New(errs.FailedToParse, "missing 'from' option to $graphLookup stage specification: %s", bsonutil.FormatDoc(d, bsonutil.Style{}))
	}
	g := &graphLookupStage{fromDB: pc.DB, coll: pc.Collator}
	if pc.Collator != nil {
		// The queries run under the pipeline's collation, not the
		// foreign collection's default.
		g.collation = pc.Collator.Spec().Document()
	}
	switch fromV.Type {
	case bsoncore.TypeString:
		g.from = fromV.StringValue()
		if g.from == "" || strings.HasPrefix(g.from, ".") || strings.ContainsRune(g.from, 0) {
			return nil, errs.New(errs.InvalidNamespace, "invalid $graphLookup namespace: %s.%s", pc.DB, g.from)
		}
	case bsoncore.TypeEmbeddedDocument:
		db, _ := fromV.Document().Lookup("db").StringValueOK()
		coll, _ := fromV.Document().Lookup("coll").StringValueOK()
		return nil, errs.New(errs.FailedToParse, "$graphLookup with syntax {from: {db:<>, coll:<>},..} is not supported for db: %s and coll: %s", db, coll)
	default:
		return nil, errs.New(errs.FailedToParse, "$graphLookup 'from' field must be a string, but found %s", bsonutil.TypeName(fromV.Type))
	}

	var connectFrom, connectTo, as string
	hasStart := false
	elems, _ := d.Elements()
	for _, el := range elems {
		ev := el.Value()
		name := el.Key()
		switch name {
		case "startWith":
			e, err := expr.Parse(ev, pc.Expr)
			if err != nil {
				return nil, err
			}
			g.startWith, g.startRaw, hasStart = e, ev, true
			continue
		case "maxDepth":
			if !bsonutil.IsNumber(ev.Type) {
				return nil, errs.New(errs.Location40100, "maxDepth must be numeric, found type: %s", bsonutil.TypeName(ev.Type))
			}
			n := safeNumberLong(ev)
			if n < 0 {
				return nil, errs.New(errs.Location40101, "maxDepth requires a nonnegative argument, found: %d", n)
			}
			if bsonutil.CompareNumbers(expr.Int64(n), ev) != 0 {
				return nil, errs.New(errs.Location40102, "maxDepth could not be represented as a long long: %d", n)
			}
			g.maxDepth, g.hasMaxDepth = n, true
			continue
		case "restrictSearchWithMatch":
			rd, ok := ev.DocumentOK()
			if !ok {
				return nil, errs.New(errs.Location40185, "restrictSearchWithMatch must be an object, found %s", bsonutil.TypeName(ev.Type))
			}
			if query.TopOperator(rd, "$text") != "" {
				// Refused at parse, as mongod parses it, whether or not
				// the collection exists.
				return nil, errs.New(errs.BadValue, "Failed to parse 'restrictSearchWithMatch' option to $graphLookup :: caused by :: $text is not allowed in this context")
			}
			m, err := parseMatch(ev, pc)
			if err != nil {
				e := errs.As(err)
				return nil, errs.New(e.Code, "Failed to parse 'restrictSearchWithMatch' option to $graphLookup :: caused by :: %s", e.Msg)
			}
			g.restrict, g.restrictRaw = rd, rd
			if ms := m[0].(*matchStage); !ms.pushable() {
				// $expr clauses using variables: the query gets the
				// rest, and each document found is checked here.
				g.restrict, g.residual = ms.filterDoc, ms
			}
			continue
		case "from", "as", "connectFromField", "depthField", "connectToField":
			if ev.Type != bsoncore.TypeString && ev.Type != bsoncore.TypeEmbeddedDocument {
				return nil, errs.New(errs.Location40103, "expected string as argument for %s, found: %s", name, bsonutil.TypeName(ev.Type))
			}
		}
		s, _ := ev.StringValueOK()
		switch name {
		case "from":
		case "as":
			as = s
		case "connectFromField":
			connectFrom = s
		case "connectToField":
			connectTo = s
		case "depthField":
			parts, err := fieldPathArg(s)
			if err != nil {
				return nil, err
			}
			g.depthField, g.depthStr = parts, s
		default:
			return nil, errs.New(errs.Location40104, "Unknown argument to $graphLookup: %s", name)
		}
	}
	if as == "" || !hasStart || connectFrom == "" || connectTo == "" {
		return nil, errs.New(errs.Location40105, "$graphLookup requires 'from', 'as', 'startWith', 'connectFromField', and 'connectToField' to be specified.")
	}
	if g.as, err = fieldPathArg(as); err != nil {
		return nil, err
	}
	if g.connectFrom, err = fieldPathArg(connectFrom); err != nil {
		return nil, err
	}
	if g.connectToParts, err = fieldPathArg(connectTo); err != nil {
		return nil, err
	}
	g.asStr, g.connectTo = as, connectTo
	return []stage{g}, nil
}

// fieldPathArg validates a field path given as a stage argument (mongod's
// FieldPath constructor).
func fieldPathArg(s string) ([]string, error) {
	return expr.ParseFieldPath(s)
}

// safeNumberLong converts a number to int64 as mongod's safeNumberLong
// does: NaN is 0 and out-of-range values saturate.
func safeNumberLong(v bsoncore.Value) int64 {
	switch v.Type {
	case bsoncore.TypeInt32:
		return int64(v.Int32())
	case bsoncore.TypeInt64:
		return v.Int64()
	}
	f := bsonutil.AsFloat64(v)
	switch {
	case f != f:
		return 0
	case f >= 9.223372036854775807e18:
		return 1<<63 - 1
	case f <= -9.223372036854775808e18:
		return -1 << 63
	}
	return int64(f)
}

func (g *graphLookupStage) name() string { return "$graphLookup" }

// spec renders the stage as mongod 7.0's explain does: the options in a
// fixed order, maxDepth as a long, and an absorbed $unwind as unwinding.
func (g *graphLookupStage) spec() bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().
		AppendString("from", g.from).
		AppendString("as", g.asStr).
		AppendString("connectToField", g.connectTo).
		AppendString("connectFromField", strings.Join(g.connectFrom, ".")).
		AppendValue("startWith", g.startRaw)
	if g.depthField != nil {
		b.AppendString("depthField", g.depthStr)
	}
	if g.hasMaxDepth {
		b.AppendInt64("maxDepth", g.maxDepth)
	}
	if g.restrictRaw != nil {
		b.AppendDocument("restrictSearchWithMatch", g.restrictRaw)
	}
	if g.unwind != nil {
		ub := bsoncore.NewDocumentBuilder().AppendBoolean("preserveNullAndEmptyArrays", g.unwind.preserve)
		if g.unwind.index != nil {
			ub.AppendString("includeArrayIndex", strings.Join(g.unwind.index, "."))
		}
		b.AppendDocument("unwinding", ub.Build())
	}
	return bsoncore.NewDocumentBuilder().AppendDocument("$graphLookup", b.Build()).Build()
}

func (g *graphLookupStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	cache := newGraphCache()
	if g.unwind != nil {
		return g.openUnwound(rc, in, cache), nil
	}
	return mapIter(in, func(d bsoncore.Document) (bsoncore.Document, error) {
		res, err := g.search(rc, d, cache)
		if err != nil {
			return nil, err
		}
		ab := expr.NewArrayBuilder()
		for _, r := range res {
			ab.Append(docValue(r))
		}
		out := setPath(d, g.as, ab.Value())
		if len(out) > maxBSONSize {
			return nil, errs.New(errs.BSONObjectTooLarge, "BSONObj size: %d (0x%X) is invalid. Size must be between 0 and 16793600(16MB)", len(out), uint32(len(out)))
		}
		return out, nil
	}), nil
}

// maxBSONSize is mongod's largest document held in memory (16 MB plus
// 16 KB, BSONObjMaxInternalSize).
const maxBSONSize = 16*1024*1024 + 16*1024

// openUnwound runs the stage with its absorbed $unwind, as mongod does:
// one output per document found, without building the array, the index
// in includeArrayIndex, and with preserveNullAndEmptyArrays the input
// without the as field (index null) when nothing is found.
func (g *graphLookupStage) openUnwound(rc *runCtx, in Iterator, cache *graphCache) Iterator {
	u := g.unwind
	var cur bsoncore.Document
	var res []bsoncore.Document
	var i int
	return &funcIter{
		next: func() (bsoncore.Document, error) {
			for {
				if i < len(res) {
					r := res[i]
					res[i] = nil
					i++
					out := setPath(cur, g.as, docValue(r))
					if u.index != nil {
						out = setPath(out, u.index, expr.Int64(int64(i-1)))
					}
					return out, nil
				}
				d, err := in.Next()
				if err != nil || d == nil {
					return nil, err
				}
				if res, err = g.search(rc, d, cache); err != nil {
					return nil, err
				}
				cur, i = d, 0
				if len(res) == 0 && u.preserve {
					out := setPath(d, g.as, bsoncore.Value{})
					if u.index != nil {
						out = setPath(out, u.index, expr.Null)
					}
					return out, nil
				}
			}
		},
		close: in.Close,
	}
}

// frontierSet holds distinct values (MongoDB's equality: 1 and 1.0 are
// one value) in insertion order.
type frontierSet struct {
	coll  *collation.Collator // values equal under it are one
	seen  map[string]struct{}
	vals  []bsoncore.Value
	keys  []string // the keystrings of vals
	bytes int64
}

func newFrontier(c *collation.Collator) *frontierSet {
	return &frontierSet{coll: c, seen: map[string]struct{}{}}
}

func (f *frontierSet) add(v bsoncore.Value, skip map[string]struct{}) {
	k := string(keystring.AppendValue(nil, f.coll.Transform(v), false))
	if _, ok := f.seen[k]; ok {
		return
	}
	if _, ok := skip[k]; ok {
		return
	}
	f.seen[k] = struct{}{}
	f.vals = append(f.vals, v)
	f.keys = append(f.keys, k)
	f.bytes += int64(len(v.Data)) + 16
}

// search runs the breadth-first search for one input document and returns
// the documents found, in the order found. cache holds, across the input
// documents, the foreign documents found for values already searched
// for, as mongod's $graphLookup keeps them: a value in it is not searched
// again.
func (g *graphLookupStage) search(rc *runCtx, d bsoncore.Document, cache *graphCache) ([]bsoncore.Document, error) {
	limit := rc.pc.params().GraphLookupMaxBytes.Load()
	start, err := g.startWith.Eval(d, rc.vars)
	if err != nil {
		return nil, err
	}
	frontier := newFrontier(g.coll)
	if start.Type == bsoncore.TypeArray {
		for _, v := range expr.ArrayValues(start) {
			frontier.add(copyValue(v), nil)
		}
	} else if start.Type != 0 {
		frontier.add(copyValue(start), nil)
	}
	// queried holds the values already searched for: searching again
	// would only find documents already visited.
	queried := map[string]struct{}{}
	visited := map[string]struct{}{}
	var found []bsoncore.Document
	var visitedBytes int64
	// The search's share of the instance's memory budget: it cannot
	// spill, so a refusal fails it as its own limit does.
	res := membudget.For(rc.pc.budget())
	defer res.Release()
	for depth := int64(0); len(frontier.vals) > 0 && (!g.hasMaxDepth || depth <= g.maxDepth); depth++ {
		if err := rc.ctx.Err(); err != nil {
			return nil, err
		}
		next := newFrontier(g.coll)
		// visit adds a document found in this round unless it was
		// visited already.
		visit := func(doc bsoncore.Document) error {
			id, ok := bsonutil.LookupField(doc, "_id")
			if !ok {
				return errs.New(errs.Location40271, "Documents in the '%s.%s' namespace must contain an _id for de-duplication in $graphLookup", g.fromDB, g.from)
			}
			idKey := string(keystring.AppendValue(nil, g.coll.Transform(id), false))
			if _, ok := visited[idKey]; ok {
				return nil
			}
			visited[idKey] = struct{}{}
			if g.depthField != nil {
				doc = setPath(doc, g.depthField, expr.Int64(depth))
			}
			visitPath(doc, g.connectFrom, func(v bsoncore.Value) { next.add(v, queried) })
			found = append(found, doc)
			visitedBytes += int64(len(doc)) + int64(len(id.Data)) + 2*docOverhead
			mem := visitedBytes + next.bytes
			if mem >= limit {
				return errs.New(errs.Location40099, "$graphLookup reached maximum memory consumption")
			}
			if mem > membudget.Floor && !res.Grow(mem) {
				b := res.Budget()
				return errs.New(errs.Location40099, "$graphLookup reached maximum memory consumption: the server's memory budget is exhausted (%d bytes in use of %d)", b.Used(), b.Limit())
			}
			return nil
		}
		var search []bsoncore.Value
		pending := map[string][]bsoncore.Document{}
		for i, v := range frontier.vals {
			k := frontier.keys[i]
			queried[k] = struct{}{}
			if docs, ok := cache.m[k]; ok {
				for _, doc := range docs {
					if err := visit(doc); err != nil {
						return nil, err
					}
				}
				continue
			}
			search = append(search, v)
			// A regular expression or an array in $in matches documents
			// that do not hold the value itself: not cached.
			if v.Type != bsoncore.TypeRegex && v.Type != bsoncore.TypeArray {
				pending[k] = nil
			}
		}
		if len(search) > 0 {
			it, err := rc.cat.Find(rc.ctx, g.fromDB, g.from, FindSpec{Filter: g.filter(search), Collation: g.collation})
			if err != nil {
				return nil, err
			}
			for {
				doc, err := it.Next()
				if err == nil && doc != nil && g.residual != nil {
					var ok bool
					if ok, err = g.residual.matches(doc, rc); err == nil && !ok {
						continue
					}
				}
				if err == nil && doc != nil {
					doc = append(bsoncore.Document(nil), doc...)
					g.toCache(doc, pending)
					err = visit(doc)
				}
				if err != nil {
					it.Close()
					return nil, err
				}
				if doc == nil {
					break
				}
			}
			if err := it.Close(); err != nil {
				return nil, err
			}
			cache.put(pending, limit-visitedBytes-next.bytes)
		}
		frontier = next
	}
	return found, nil
}

// toCache files doc under each value searched for that its connectToField
// holds (a document found for one value may hold others that were not
// searched for, and is not filed under those).
func (g *graphLookupStage) toCache(doc bsoncore.Document, pending map[string][]bsoncore.Document) {
	visitPath(doc, g.connectToParts, func(v bsoncore.Value) {
		k := string(keystring.AppendValue(nil, g.coll.Transform(v), false))
		docs, ok := pending[k]
		if !ok || (len(docs) > 0 && &docs[len(docs)-1][0] == &doc[0]) {
			return
		}
		pending[k] = append(docs, doc)
	})
}

// filter builds one round's query, as mongod does: restrictSearchWithMatch
// and connectToField in the frontier; when the frontier holds null or
// undefined, documents lacking connectToField are excluded, and so are
// those holding whichever of null and undefined the frontier lacks
// (a $in of null alone would match all three).
func (g *graphLookupStage) filter(frontier []bsoncore.Value) bsoncore.Document {
	and := bsoncore.NewArrayBuilder()
	if len(g.restrict) > 5 {
		and.AppendDocument(g.restrict)
	}
	in := bsoncore.NewArrayBuilder()
	matchNull, matchUndefined := false, false
	for _, v := range frontier {
		switch v.Type {
		case bsoncore.TypeNull:
			matchNull = true
		case bsoncore.TypeUndefined:
			matchUndefined = true
		}
		in.AppendValue(v)
	}
	cond := bsoncore.NewDocumentBuilder().AppendArray("$in", in.Build()).Build()
	and.AppendDocument(bsoncore.NewDocumentBuilder().AppendDocument(g.connectTo, cond).Build())
	if matchNull || matchUndefined {
		exists := bsoncore.NewDocumentBuilder().AppendBoolean("$exists", true).Build()
		and.AppendDocument(bsoncore.NewDocumentBuilder().AppendDocument(g.connectTo, exists).Build())
		other := ""
		if !matchUndefined {
			other = "undefined"
		} else if !matchNull {
			other = "null"
		}
		if other != "" {
			not := bsoncore.NewDocumentBuilder().AppendDocument("$not",
				bsoncore.NewDocumentBuilder().AppendString("$type", other).Build()).Build()
			and.AppendDocument(bsoncore.NewDocumentBuilder().AppendDocument(g.connectTo, not).Build())
		}
	}
	return bsoncore.NewDocumentBuilder().AppendArray("$and", and.Build()).Build()
}

// visitPath calls fn with every value at path in d, as mongod's
// visitAllValuesAtPath: arrays met on the way are walked through their
// documents, and an array at the end yields each of its elements.
func visitPath(d bsoncore.Document, path []string, fn func(bsoncore.Value)) {
	v, ok := bsonutil.LookupField(d, path[0])
	if !ok {
		return
	}
	visitValue(v, path[1:], fn)
}

func visitValue(v bsoncore.Value, rest []string, fn func(bsoncore.Value)) {
	if len(rest) == 0 {
		if v.Type == bsoncore.TypeArray {
			for _, x := range expr.ArrayValues(v) {
				fn(copyValue(x))
			}
			return
		}
		fn(copyValue(v))
		return
	}
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument:
		visitPath(v.Document(), rest, fn)
	case bsoncore.TypeArray:
		for _, x := range expr.ArrayValues(v) {
			if x.Type == bsoncore.TypeEmbeddedDocument {
				visitPath(x.Document(), rest, fn)
			}
		}
	}
}

// graphLookupSources: from, a collection of the aggregate's database, with
// no sub-pipeline.
func graphLookupSources(spec bsoncore.Value, ns Namespace) ([]Source, error) {
	d, ok := spec.DocumentOK()
	if !ok {
		return nil, nil
	}
	if from, ok := d.Lookup("from").StringValueOK(); ok {
		return []Source{{From: Namespace{DB: ns.DB, Coll: from}, Foreign: true, Named: true}}, nil
	}
	return nil, nil
}

// graphLookupAccess: find on from, a collection of the aggregate's
// database (the {db, coll} form is refused when parsed).
func graphLookupAccess(spec bsoncore.Value, ns Namespace) ([]Access, error) {
	d, ok := spec.DocumentOK()
	if !ok {
		return nil, nil
	}
	if from, ok := d.Lookup("from").StringValueOK(); ok {
		return []Access{findOn(ns.DB, from)}, nil
	}
	return nil, nil
}
