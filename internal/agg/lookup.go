package agg

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// The registry entry of the stage in this file (stagedef.go).
func init() {
	w := anywhere
	w.ownsTextMeta = yes
	registerStage("$lookup", stageDef{parse: parseLookup, access: lookupAccess, sources: lookupSources, where: w, explain: lookupExplain, shape: shapeArgs})
}

// lookupExplain appends the execution figures of $lookup and
// $graphLookup: what their queries on the foreign collection examined.
// $graphLookup's figures are Lode's: mongod 7.0 reports none.
func lookupExplain(b *bsoncore.DocumentBuilder, st *stageStats, _ int64) {
	ab := bsoncore.NewArrayBuilder()
	for _, ix := range st.indexes {
		ab.AppendString(ix)
	}
	b.AppendInt64("totalDocsExamined", st.docs).
		AppendInt64("totalKeysExamined", st.keys).
		AppendInt64("collectionScans", st.collScans).
		AppendArray("indexesUsed", ab.Build())
}

// lookupStage is $lookup: the equality form (localField/foreignField),
// the pipeline form with let, or both combined.
type lookupStage struct {
	raw          bsoncore.Value
	from         string
	as           []string
	localField   []string
	foreignField string
	letNames     []string
	letExprs     []expr.Expr
	letSlots     []int
	sub          *Pipeline
	// cache holds the result of an uncorrelated sub-pipeline.
	cache  []bsoncore.Document
	cached bool
}

func parseLookup(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.FailedToParse, "the $lookup specification must be an Object, but found %s", bsonutil.TypeName(v.Type))
	}
	l := &lookupStage{raw: v}
	var pipe, let bsoncore.Value
	var local, as string
	hasLocal, hasForeign := false, false
	fromDB := pc.DB
	elems, _ := d.Elements()
	for _, el := range elems {
		ev := el.Value()
		str := func() (string, error) {
			s, ok := ev.StringValueOK()
			if !ok {
				return "", errs.New(errs.FailedToParse, "$lookup argument '%s: %s' must be a string, is type %s", el.Key(), ev.String(), bsonutil.TypeName(ev.Type))
			}
			return s, nil
		}
		var err error
		switch el.Key() {
		case "from":
			// A string names a collection of the aggregate's database;
			// {db, coll} only mongod's internal namespaces (access.go).
			fromDB, l.from, err = LookupFrom(ev, pc.DB)
			if err == nil && ev.Type == bsoncore.TypeString && l.from == "" {
				err = errs.New(errs.InvalidNamespace, "invalid $lookup namespace: %s.", pc.DB)
			}
		case "as":
			as, err = str()
		case "localField":
			local, err = str()
			hasLocal = true
		case "foreignField":
			l.foreignField, err = str()
			hasForeign = true
		case "let":
			if ev.Type != bsoncore.TypeEmbeddedDocument {
				return nil, errs.New(errs.FailedToParse, "$lookup argument 'let' must be an object, is type %s", bsonutil.TypeName(ev.Type))
			}
			let = ev
		case "pipeline":
			pipe = ev
		default:
			return nil, errs.New(errs.FailedToParse, "unknown argument to $lookup: %s", el.Key())
		}
		if err != nil {
			return nil, err
		}
	}
	if as == "" {
		return nil, errs.New(errs.FailedToParse, "must specify 'as' field for a $lookup")
	}
	if strings.HasPrefix(as, "$") {
		return nil, errs.New(errs.Location16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
	}
	l.as = strings.Split(as, ".")
	if hasLocal != hasForeign {
		return nil, errs.New(errs.FailedToParse, "$lookup requires both or neither of 'localField' and 'foreignField' to be specified")
	}
	if hasLocal {
		parts, err := expr.ParseFieldPath(local)
		if err != nil {
			return nil, err
		}
		l.localField = parts
		if _, err := expr.ParseFieldPath(l.foreignField); err != nil {
			return nil, err
		}
	}
	if pipe.Type == 0 {
		if !hasLocal {
			return nil, errs.New(errs.FailedToParse, "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified")
		}
		if let.Type != 0 {
			return nil, errs.New(errs.FailedToParse, "$lookup with 'let' must also specify 'pipeline'")
		}
	}
	if let.Type != 0 {
		// Every let expression sees only the outer scope: a later one
		// cannot use an earlier one's name (17276, as in mongod).
		lels, _ := let.Document().Elements()
		for _, el := range lels {
			e, err := expr.Parse(el.Value(), pc.Expr)
			if err != nil {
				return nil, err
			}
			l.letNames = append(l.letNames, el.Key())
			l.letExprs = append(l.letExprs, e)
		}
		for _, name := range l.letNames {
			l.letSlots = append(l.letSlots, pc.Expr.Define(name))
		}
	}
	sub := pc.sub(fromDB, l.from)
	sub.inLookup = true
	var err error
	if pipe.Type != 0 {
		l.sub, err = parseSubPipeline("$lookup", pipe, sub)
	} else {
		l.sub, err = Parse(nil, sub)
	}
	if err != nil {
		return nil, err
	}
	if l.from == "" && (len(l.sub.stages) == 0 || l.sub.stages[0].name() != "$documents") {
		return nil, errs.New(errs.FailedToParse, "must specify 'from' field for a $lookup")
	}
	return []stage{l}, nil
}

func (l *lookupStage) name() string            { return "$lookup" }
func (l *lookupStage) spec() bsoncore.Document { return specDoc("$lookup", l.raw) }

// eqFilter builds the foreign-side filter of the equality form for one
// local value: arrays match any element, missing matches null.
func (l *lookupStage) eqFilter(local bsoncore.Value) bsoncore.Document {
	var cond bsoncore.Document
	switch local.Type {
	case bsoncore.TypeArray:
		vals, _ := local.Array().Values()
		ab := bsoncore.NewArrayBuilder()
		if len(vals) == 0 {
			ab.AppendNull()
		}
		for _, v := range vals {
			ab.AppendValue(v)
		}
		cond = bsoncore.NewDocumentBuilder().AppendArray("$in", ab.Build()).Build()
	case 0:
		cond = bsoncore.NewDocumentBuilder().AppendNull("$eq").Build()
	default:
		cond = bsoncore.NewDocumentBuilder().AppendValue("$eq", local).Build()
	}
	return bsoncore.NewDocumentBuilder().AppendDocument(l.foreignField, cond).Build()
}

// withFilter returns a copy of the sub-pipeline whose collection query
// also requires extra.
func (l *lookupStage) withFilter(extra bsoncore.Document) (*Pipeline, error) {
	p := *l.sub
	if p.push != nil {
		spec := *p.push
		if len(spec.Filter) > 5 {
			ab := bsoncore.NewArrayBuilder().AppendDocument(spec.Filter).AppendDocument(extra).Build()
			spec.Filter = bsoncore.NewDocumentBuilder().AppendArray("$and", ab).Build()
		} else {
			spec.Filter = extra
		}
		p.push = &spec
		return &p, nil
	}
	m, err := parseMatch(docValue(extra), &ParseContext{Expr: expr.NewParseContext(), Collator: p.pc.Collator})
	if err != nil {
		return nil, err
	}
	p.stages = append([]stage{p.stages[0], m[0]}, p.stages[1:]...)
	return &p, nil
}

func (l *lookupStage) results(rc *runCtx, d bsoncore.Document) ([]bsoncore.Document, error) {
	if l.cached {
		return l.cache, nil
	}
	for i, e := range l.letExprs {
		v, err := e.Eval(d, rc.vars)
		if err != nil {
			return nil, err
		}
		rc.vars.Set(l.letSlots[i], copyValue(v))
	}
	p := l.sub
	if l.localField != nil {
		var err error
		p, err = l.withFilter(l.eqFilter(expr.GetPath(d, l.localField)))
		if err != nil {
			return nil, err
		}
	}
	it, err := p.run(rc)
	if err != nil {
		return nil, err
	}
	res, err := drain(it)
	if err != nil {
		return nil, err
	}
	if l.localField == nil && len(l.letExprs) == 0 {
		l.cache, l.cached = res, true
	}
	return res, nil
}

func (l *lookupStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	l.cache, l.cached = nil, false
	return mapIter(in, func(d bsoncore.Document) (bsoncore.Document, error) {
		res, err := l.results(rc, d)
		if err != nil {
			return nil, err
		}
		ab := expr.NewArrayBuilder()
		for _, r := range res {
			ab.Append(docValue(r))
		}
		out := setPath(d, l.as, ab.Value())
		if len(out) > 16*1024*1024 {
			return nil, errs.New(errs.BSONObjectTooLarge, "Total size of documents in %s matching pipeline's $lookup stage exceeds 16793600 bytes", l.from)
		}
		return out, nil
	}), nil
}

// lookupForeignDBAllowed is mongod's rule for $lookup's from: {db, coll}:
// the form reads only internal namespaces (config.cache.chunks.*,
// local.oplog.rs, config.collections, config.chunks and, before 8.0,
// local.tenantMigration.oplogView); a user namespace must be named by a
// string, in the aggregate's own database.
func lookupForeignDBAllowed(db, coll string) bool {
	switch {
	case db == "config" && strings.HasPrefix(coll, "cache.chunks."):
		return true
	case db == "local" && (coll == "oplog.rs" || coll == "tenantMigration.oplogView"):
		return true
	case db == "config" && (coll == "collections" || coll == "chunks"):
		return true
	}
	return false
}

// LookupFrom resolves $lookup's from in database db as mongod's
// parseLookupFromAndResolveNamespace: a string names a collection of db;
// {db, coll} only one of the internal namespaces lookupForeignDBAllowed
// lists, FailedToParse (9) otherwise.
func LookupFrom(v bsoncore.Value, db string) (string, string, error) {
	if s, ok := v.StringValueOK(); ok {
		return db, s, nil
	}
	d, ok := v.DocumentOK()
	if !ok {
		if v.Type == bsoncore.TypeString || v.Type == bsoncore.TypeEmbeddedDocument {
			return "", "", errs.New(errs.InvalidBSON, "$lookup from: malformed %s", bsonutil.TypeName(v.Type))
		}
		return "", "", errs.New(errs.FailedToParse, "$lookup 'from' field must be a string, but found %s", bsonutil.TypeName(v.Type))
	}
	var fdb, fcoll string
	els, err := d.Elements()
	if err != nil {
		return "", "", errs.New(errs.InvalidBSON, "$lookup from: %v", err)
	}
	for _, el := range els {
		s, ok := el.Value().StringValueOK()
		switch el.Key() {
		case "db", "coll":
			if !ok {
				return "", "", errs.New(errs.TypeMismatch, "BSON field 'from.%s' is the wrong type '%s', expected type 'string'", el.Key(), bsonutil.TypeName(el.Value().Type))
			}
			if el.Key() == "db" {
				fdb = s
			} else {
				fcoll = s
			}
		default:
			return "", "", errs.New(errs.Location40415, "BSON field 'from.%s' is an unknown field.", el.Key())
		}
	}
	if !lookupForeignDBAllowed(fdb, fcoll) {
		return "", "", errs.New(errs.FailedToParse, "$lookup with syntax {from: {db:<>, coll:<>},..} is not supported for db: %s and coll: %s", fdb, fcoll)
	}
	return fdb, fcoll, nil
}

// lookupSources: the foreign namespace and the sub-pipeline run on it (a
// from-less $lookup's opens with $documents), as mongod's
// DocumentSourceLookUp::LiteParsed; a from LookupFrom refuses is its
// error, the sub-pipeline still read. Its access (lookupAccess) is find
// on the foreign namespace (unless the sub-pipeline opens with
// $documents) and what the sub-pipeline needs.
func lookupSources(spec bsoncore.Value, ns Namespace) ([]Source, error) {
	d, ok := spec.DocumentOK()
	if !ok {
		return nil, nil
	}
	src := Source{From: Namespace{DB: ns.DB}, Foreign: true, Pipeline: pipelineDocs(d.Lookup("pipeline"))}
	if from, err := d.LookupErr("from"); err == nil {
		db, coll, err := LookupFrom(from, ns.DB)
		if err != nil {
			return []Source{src}, err
		}
		src.From = Namespace{DB: db, Coll: coll}
		_, src.Named = from.StringValueOK()
	}
	return []Source{src}, nil
}

var lookupAccess = sourcesAccess(lookupSources)
