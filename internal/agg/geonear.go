package agg

import (
	"context"
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/geo"
	"github.com/lodedb/lode/internal/query"
)

// The registry entry of the stage in this file (stagedef.go).
func init() {
	{
		w := anywhere
		w.first = yes
		w.inFacet = no
		registerStage("$geoNear", stageDef{parse: parseGeoNear, access: noAccess, sources: noSources, where: w, explain: explainNone, shape: shapeArgs})
	}
}

// geoNearStage is $geoNear: the documents nearest a point, nearest first,
// each with its distance (and optionally the location that was nearest).
// As mongod does, it runs as a query: its `query` plus {key: {$near or
// $nearSphere: near, $minDistance, $maxDistance}}, which the planner
// answers with GEO_NEAR_2DSPHERE; the stage then adds the distance,
// scaled by distanceMultiplier, in meters for a GeoJSON point and in
// radians for a legacy pair.
type geoNearStage struct {
	raw      bsoncore.Value
	db, coll string
	hint     bsoncore.Value
	// collation is the aggregate command's (nil: the collection's
	// default); the query runs under it, as the $match it stands for
	// would.
	collation bsoncore.Document
	near      bsoncore.Value
	// nearExpr, when set, is a 'near' given as an expression ("$$pt",
	// bound by the command's let or a $lookup's let); it is constant in
	// each run and evaluated when the stage opens (mongod 5.1+).
	nearExpr      expr.Expr
	distanceField []string
	includeLocs   []string
	query         bsoncore.Document
	// residual holds the query's $expr clauses that use variables (the
	// command's let, a $lookup's let): they run here, over the documents
	// the near query returns, as a $match's do.
	residual    *conjunction
	key         string
	spherical   bool
	minDistance *float64
	maxDistance *float64
	multiplier  float64
}

func parseGeoNear(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.Location10065, "$geoNear must take an object, got %s", bsonutil.TypeName(v.Type))
	}
	s := &geoNearStage{raw: v, db: pc.DB, coll: pc.Coll, hint: pc.Hint, collation: pc.Collation, multiplier: 1}
	if _, err := d.LookupErr("collation"); err == nil {
		return nil, errs.New(errs.Code(40227), "$geoNear does not accept the 'collation' parameter. Instead, specify a collation for the entire aggregation command.")
	}
	for _, f := range []struct {
		name string
		code errs.Code
		msg  string
	}{
		{"limit", 50858, "$geoNear no longer supports the 'limit' parameter. Use a $limit stage instead."},
		{"num", 50857, "$geoNear no longer supports the 'num' parameter. Use a $limit stage instead."},
		{"start", 50856, "$geoNear no longer supports the 'start' argument."},
	} {
		if _, err := d.LookupErr(f.name); err == nil {
			return nil, errs.New(f.code, "%s", f.msg)
		}
	}
	near, err := d.LookupErr("near")
	if err != nil {
		return nil, errs.New(errs.Code(5860400), "$geoNear requires a 'near' argument")
	}
	if isNearExpression(near) {
		e, err := expr.Parse(near, pc.Expr)
		if err != nil {
			return nil, err
		}
		if c, ok := expr.IsConst(e); ok {
			near = c
		} else {
			s.nearExpr = e
		}
	}
	if s.nearExpr == nil && near.Type != bsoncore.TypeEmbeddedDocument && near.Type != bsoncore.TypeArray {
		return nil, errNearType()
	}
	s.near = near
	df, err := d.LookupErr("distanceField")
	if err != nil || df.Type != bsoncore.TypeString {
		return nil, errs.New(errs.Code(16606), "$geoNear requires a 'distanceField' option as a String")
	}
	s.distanceField = strings.Split(df.StringValue(), ".")
	num := func(name string) (*float64, error) {
		x, err := d.LookupErr(name)
		if err != nil {
			return nil, nil
		}
		if !bsonutil.IsNumber(x.Type) {
			return nil, errs.New(errs.TypeMismatch, "%s must be a number", name)
		}
		f := bsonutil.AsFloat64(x)
		if !(f >= 0) {
			return nil, errs.New(errs.BadValue, "%s must be nonnegative", name)
		}
		return &f, nil
	}
	if s.maxDistance, err = num("maxDistance"); err != nil {
		return nil, err
	}
	if s.minDistance, err = num("minDistance"); err != nil {
		return nil, err
	}
	m, err := num("distanceMultiplier")
	if err != nil {
		return nil, err
	}
	if m != nil {
		s.multiplier = *m
	}
	if q, err := d.LookupErr("query"); err == nil {
		if q.Type != bsoncore.TypeEmbeddedDocument {
			return nil, errs.New(errs.TypeMismatch, "query must be an object")
		}
		s.query = q.Document()
		if pc.Expr.NumSlots() > 0 {
			plain, exprs, logic, err := splitFilter(s.query, pc)
			if err != nil {
				return nil, err
			}
			if len(exprs) > 0 || len(logic) > 0 {
				all, err := query.Parse(emptyDoc)
				if err != nil {
					return nil, err
				}
				s.query, s.residual = plain, &conjunction{filter: all, exprs: exprs, logic: logic}
			}
		}
		qf, err := query.Parse(s.query)
		if err != nil {
			return nil, err
		}
		if qf.HasNear() {
			return nil, errs.New(errs.BadValue, "$geoNear, $near, and $nearSphere are not allowed in this context")
		}
	}
	if sp, err := d.LookupErr("spherical"); err == nil {
		s.spherical = truthy(sp)
	}
	if il, err := d.LookupErr("includeLocs"); err == nil {
		if il.Type != bsoncore.TypeString {
			return nil, errs.New(errs.Code(16607), "$geoNear requires that 'includeLocs' option is a String")
		}
		s.includeLocs = strings.Split(il.StringValue(), ".")
	}
	if k, err := d.LookupErr("key"); err == nil {
		if k.Type != bsoncore.TypeString {
			return nil, errs.New(errs.TypeMismatch, "$geoNear parameter 'key' must be of type string but found type: %s", bsonutil.TypeName(k.Type))
		}
		if k.StringValue() == "" {
			return nil, errs.New(errs.BadValue, "$geoNear parameter 'key' cannot be the empty string")
		}
		s.key = k.StringValue()
	}
	return []stage{s}, nil
}

func errNearType() error {
	return errs.New(errs.Code(5860401), "$geoNear requires near argument to be a GeoJSON object or a legacy point(array)")
}

// resolveNear evaluates an expression 'near' with the run's variables
// (it cannot depend on the input document: it is evaluated over an empty
// one) and returns a copy of the stage with the point in place.
func (s *geoNearStage) resolveNear(vars *expr.Vars) (*geoNearStage, error) {
	if s.nearExpr == nil {
		return s, nil
	}
	v, err := s.nearExpr.Eval(bsoncore.NewDocumentBuilder().Build(), vars)
	if err != nil {
		return nil, err
	}
	if v.Type != bsoncore.TypeEmbeddedDocument && v.Type != bsoncore.TypeArray {
		return nil, errNearType()
	}
	c := *s
	c.near, c.nearExpr = v, nil
	return &c, nil
}

// isNearExpression reports whether a 'near' is an expression rather than
// a literal point: a "$" string (a variable or field path) or an operator
// anywhere in it, as in {type: "Point", coordinates: "$$pt"}.
func isNearExpression(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeString:
		return strings.HasPrefix(v.StringValue(), "$")
	case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
		elems, _ := bsoncore.Document(v.Data).Elements()
		for _, e := range elems {
			if v.Type == bsoncore.TypeEmbeddedDocument && strings.HasPrefix(e.Key(), "$") {
				return true
			}
			if isNearExpression(e.Value()) {
				return true
			}
		}
	}
	return false
}

func truthy(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeBoolean:
		return v.Boolean()
	case bsoncore.TypeNull, bsoncore.TypeUndefined:
		return false
	}
	if bsonutil.IsNumber(v.Type) {
		return bsonutil.AsFloat64(v) != 0
	}
	return true
}

func (s *geoNearStage) name() string            { return "$geoNear" }
func (s *geoNearStage) spec() bsoncore.Document { return specDoc("$geoNear", s.raw) }
func (s *geoNearStage) source()                 {}

// nearField returns the key, or the field of the collection's only 2d
// index, else of its only 2dsphere index, as mongod chooses.
func (s *geoNearStage) nearField(rc *runCtx) (string, error) {
	if s.key != "" {
		return s.key, nil
	}
	ixs, err := rc.cat.Indexes(rc.ctx, s.db, s.coll)
	if err != nil {
		return "", err
	}
	byType := func(typ string) []string {
		var fields []string
		for _, ix := range ixs {
			elems, _ := ix.Key.Elements()
			for _, e := range elems {
				if v := e.Value(); v.Type == bsoncore.TypeString && v.StringValue() == typ {
					fields = append(fields, e.Key())
				}
			}
		}
		return fields
	}
	for _, typ := range []string{"2d", "2dsphere"} {
		fields := byType(typ)
		switch len(fields) {
		case 0:
			continue
		case 1:
			return fields[0], nil
		}
		return "", errs.New(errs.IndexNotFound, "There is more than one %s index on %s.%s; unsure which to use for $geoNear", typ, s.db, s.coll)
	}
	return "", errs.New(errs.IndexNotFound, "$geoNear requires a 2d or 2dsphere index, but none were found")
}

// nearQuery is mongod's asNearQuery: the query's conditions and the near
// predicate on field.
func (s *geoNearStage) nearQuery(field string) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	if s.query != nil {
		elems, _ := s.query.Elements()
		for _, e := range elems {
			b.AppendValue(e.Key(), e.Value())
		}
	}
	op := "$near"
	if s.spherical {
		op = "$nearSphere"
	}
	nb := bsoncore.NewDocumentBuilder().AppendValue(op, s.near)
	if s.minDistance != nil {
		nb.AppendDouble("$minDistance", *s.minDistance)
	}
	if s.maxDistance != nil {
		nb.AppendDouble("$maxDistance", *s.maxDistance)
	}
	b.AppendDocument(field, nb.Build())
	return b.Build()
}

func (s *geoNearStage) open(rc *runCtx, _ Iterator) (Iterator, error) {
	s, err := s.resolveNear(rc.vars)
	if err != nil {
		return nil, err
	}
	field, err := s.nearField(rc)
	if err != nil {
		return nil, err
	}
	filter := s.nearQuery(field)
	f, err := query.Parse(filter)
	if err != nil {
		return nil, err
	}
	near := query.FindNear(f.Root())
	if near == nil {
		return nil, errs.New(errs.InternalError, "$geoNear: no near predicate in %s", bsonutil.FormatDoc(filter, bsonutil.Style{}))
	}
	scale := s.multiplier
	if near.Spherical && !near.Radians {
		scale *= geo.EarthRadiusMeters
	}
	nearest := func(doc bsoncore.Document) (float64, bsoncore.Value) {
		if !near.Spherical {
			return query.NearestFlat(near.Flat, doc, field)
		}
		return query.NearestGeometry(near.Center, doc, field)
	}
	in, err := rc.cat.Find(rc.ctx, s.db, s.coll, FindSpec{Filter: filter, Hint: s.hint, Collation: s.collation})
	if err != nil {
		return nil, err
	}
	return mapIter(in, func(doc bsoncore.Document) (bsoncore.Document, error) {
		if s.residual != nil {
			if ok, err := s.residual.matches(doc, rc.vars); err != nil || !ok {
				return nil, err
			}
		}
		d, loc := nearest(doc)
		if math.IsInf(d, 0) {
			return doc, nil
		}
		out := setPath(doc, s.distanceField, bsoncore.Value{Type: bsoncore.TypeDouble, Data: bsoncore.AppendDouble(nil, d*scale)})
		if s.includeLocs != nil {
			out = setPath(out, s.includeLocs, loc)
		}
		return out, nil
	}), nil
}

// errGeoNearInMatch is mongod's refusal of $near and $nearSphere in a
// $match (and so in countDocuments), verbatim (its "operationfor" too).
func errGeoNearInMatch() error {
	return errs.New(errs.Location5626500, "$geoNear, $near, and $nearSphere are not allowed in this context, as these operators require sorting geospatial data. If you do not need sort, consider using $geoWithin instead. Check out https://dochub.mongodb.org/core/near-sort-operation and https://dochub.mongodb.org/core/nearSphere-sort-operationfor more details.")
}

// explainSpec renders the stage in explain as mongod does, as
// $geoNearCursor holding the plan of its query (GEO_NEAR_2DSPHERE or
// GEO_NEAR_2D); without a planner it is the stage's spec.
func (s *geoNearStage) explainSpec(ctx context.Context, cat Catalog) bsoncore.Document {
	if s.nearExpr != nil {
		return s.spec()
	}
	field, err := s.nearField(&runCtx{ctx: ctx, cat: cat})
	if err != nil {
		return s.spec()
	}
	qp, err := cat.ExplainFind(ctx, s.db, s.coll, FindSpec{Filter: s.nearQuery(field), Hint: s.hint, Collation: s.collation})
	if err != nil || qp == nil {
		return s.spec()
	}
	cursor := bsoncore.NewDocumentBuilder().AppendDocument("queryPlanner", qp).Build()
	return bsoncore.NewDocumentBuilder().AppendDocument("$geoNearCursor", cursor).Build()
}
