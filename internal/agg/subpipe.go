package agg

import (
	"fmt"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// The registry entries of the stages in this file (stagedef.go).
func init() {
	{
		w := anywhere
		w.inFacet = no
		w.ownsTextMeta = yes
		w.dropsTextScore = yes
		registerStage("$facet", stageDef{parse: parseFacet, access: facetAccess, sources: facetSources, where: w, explain: explainNone, shape: shapeArgs})
	}
	{
		w := anywhere
		w.inView = no
		w.first = yes
		w.inFacet = no
		w.dbLevel = yes
		registerStage("$documents", stageDef{parse: parseDocuments, access: noAccess, sources: noSources, initial: true, where: w, explain: explainNone, shape: shapeExpr})
	}
	{
		w := anywhere
		w.ownsTextMeta = yes
		registerStage("$unionWith", stageDef{parse: parseUnionWith, access: unionWithAccess, sources: unionWithSources, where: w, explain: explainNone, shape: shapeArgs})
	}
}

// parseSubPipeline reads an array of stage documents and parses it.
func parseSubPipeline(stageName string, v bsoncore.Value, pc *ParseContext) (*Pipeline, error) {
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, errs.New(errs.TypeMismatch, "%s 'pipeline' must be an array, got %s", stageName, bsonutil.TypeName(v.Type))
	}
	vals, _ := arr.Values()
	docs := make([]bsoncore.Document, 0, len(vals))
	for _, x := range vals {
		d, ok := x.DocumentOK()
		if !ok {
			return nil, errs.New(errs.TypeMismatch, "%s: each element of the 'pipeline' array must be an object", stageName)
		}
		docs = append(docs, d)
	}
	return Parse(docs, pc)
}

// documentsStage is $documents.
type documentsStage struct {
	raw bsoncore.Value
	e   expr.Expr
}

func parseDocuments(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	e, err := expr.Parse(v, pc.Expr)
	if err != nil {
		return nil, err
	}
	return []stage{&documentsStage{raw: v, e: e}}, nil
}

func (d *documentsStage) name() string            { return "$documents" }
func (d *documentsStage) spec() bsoncore.Document { return specDoc("$documents", d.raw) }
func (d *documentsStage) source()                 {}

func (d *documentsStage) open(rc *runCtx, _ Iterator) (Iterator, error) {
	v, err := d.e.Eval(emptyDoc, rc.vars)
	if err != nil {
		return nil, err
	}
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, errs.New(errs.Location5858203, "error during $documents: an array is expected")
	}
	vals, _ := arr.Values()
	docs := make([]bsoncore.Document, 0, len(vals))
	for _, x := range vals {
		doc, ok := x.DocumentOK()
		if !ok {
			return nil, errs.New(errs.Location40228, "'newRoot' expression must evaluate to an object, but resulting value was: %s. Type of resulting value: '%s'.", x.String(), bsonutil.TypeName(x.Type))
		}
		docs = append(docs, doc)
	}
	return &sliceIter{docs: docs}, nil
}

// unionWithStage is $unionWith.
type unionWithStage struct {
	raw  bsoncore.Value
	coll string
	sub  *Pipeline
}

func parseUnionWith(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	u := &unionWithStage{raw: v}
	var pipe bsoncore.Value
	switch v.Type {
	case bsoncore.TypeString:
		u.coll = v.StringValue()
	case bsoncore.TypeEmbeddedDocument:
		elems, _ := v.Document().Elements()
		for _, el := range elems {
			switch el.Key() {
			case "coll":
				s, ok := el.Value().StringValueOK()
				if !ok {
					return nil, errs.New(errs.TypeMismatch, "BSON field '$unionWith.coll' is the wrong type '%s', expected type 'string'", bsonutil.TypeName(el.Value().Type))
				}
				u.coll = s
			case "pipeline":
				pipe = el.Value()
			default:
				return nil, errs.New(errs.Location40415, "BSON field '$unionWith.%s' is an unknown field.", el.Key())
			}
		}
	default:
		return nil, errs.New(errs.FailedToParse, "the $unionWith stage specification must be an object or string, but found %s", bsonutil.TypeName(v.Type))
	}
	sub := pc.sub(pc.DB, u.coll)
	sub.inUnion = true
	var err error
	if pipe.Type != 0 {
		u.sub, err = parseSubPipeline("$unionWith", pipe, sub)
	} else {
		if u.coll == "" {
			return nil, errs.New(errs.Location40414, "BSON field '$unionWith.coll' is missing but a required field")
		}
		u.sub, err = Parse(nil, sub)
	}
	if err != nil {
		return nil, err
	}
	if u.coll == "" && (len(u.sub.stages) == 0 || u.sub.stages[0].name() != "$documents") {
		return nil, errs.New(errs.Location40414, "BSON field '$unionWith.coll' is missing but a required field")
	}
	return []stage{u}, nil
}

func (u *unionWithStage) name() string            { return "$unionWith" }
func (u *unionWithStage) spec() bsoncore.Document { return specDoc("$unionWith", u.raw) }

func (u *unionWithStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	var other Iterator
	inDone := false
	return &funcIter{
		next: func() (bsoncore.Document, error) {
			if !inDone {
				d, err := in.Next()
				if err != nil || d != nil {
					return d, err
				}
				inDone = true
				if other, err = u.sub.run(rc); err != nil {
					return nil, err
				}
			}
			return other.Next()
		},
		close: func() error {
			if other != nil {
				other.Close()
			}
			return in.Close()
		},
	}, nil
}

// facetStage is $facet.
type facetStage struct {
	raw   bsoncore.Value
	names []string
	subs  []*Pipeline
}

func parseFacet(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.Location15947, "the $facet specification must be a non-empty object, but found: %s", v.String())
	}
	f := &facetStage{raw: v}
	elems, _ := d.Elements()
	if len(elems) == 0 {
		return nil, errs.New(errs.Location40169, "the $facet specification must be a non-empty object")
	}
	for _, el := range elems {
		name := el.Key()
		if _, err := expr.ParseFieldPath(name); err != nil || len(name) > 0 && name[0] == '$' {
			return nil, errs.New(errs.Location40168, "$facet pipeline names must not be empty, start with '$' or contain '.': %s", name)
		}
		if el.Value().Type != bsoncore.TypeArray {
			return nil, errs.New(errs.Location40170, "arguments to $facet must be arrays, %s is type %s", name, bsonutil.TypeName(el.Value().Type))
		}
		sub := pc.sub(pc.DB, "")
		sub.inFacet = true
		p, err := parseSubPipeline("$facet", el.Value(), sub)
		if err != nil {
			return nil, err
		}
		f.names = append(f.names, name)
		f.subs = append(f.subs, p)
	}
	return []stage{f}, nil
}

func (f *facetStage) name() string            { return "$facet" }
func (f *facetStage) spec() bsoncore.Document { return specDoc("$facet", f.raw) }

func (f *facetStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	done := false
	sp := rc.pc.newSpiller()
	return &funcIter{
		next: func() (bsoncore.Document, error) {
			if done {
				return nil, nil
			}
			done = true
			docs, err := f.buffer(rc, in, sp)
			if err != nil {
				return nil, err
			}
			idx, out := bsoncore.AppendDocumentStart(nil)
			for i, p := range f.subs {
				// Each sub-pipeline reads the runs, then the buffer, in
				// arrival order (the merge is stable and compares nothing).
				m, err := sp.merge(append([][]byte(nil), docs...), func(a, b []byte) int { return 0 })
				if err != nil {
					return nil, fmt.Errorf("$facet: %w", err)
				}
				it, err := p.runOnInput(rc, &funcIter{next: func() (bsoncore.Document, error) { return m.next() }})
				if err != nil {
					return nil, err
				}
				res, err := drain(it)
				if err != nil {
					return nil, err
				}
				aidx, a := bsoncore.AppendArrayElementStart(out, f.names[i])
				for j, r := range res {
					a = bsoncore.AppendDocumentElement(a, itoa(j), r)
				}
				out, _ = bsoncore.AppendArrayEnd(a, aidx)
			}
			out, _ = bsoncore.AppendDocumentEnd(out, idx)
			if len(out) > 16*1024*1024 {
				return nil, errs.New(errs.BSONObjectTooLarge, "document constructed by $facet is %d bytes, which exceeds the limit of 16777216 bytes", len(out))
			}
			return out, nil
		},
		close: func() error { sp.close(); return in.Close() },
	}, nil
}

// buffer reads the whole input of $facet. Up to the memory limit the
// documents stay in memory; past it they are written to runs on disk when
// disk use is allowed, or the stage fails with 292.
func (f *facetStage) buffer(rc *runCtx, in Iterator, sp *spiller) ([][]byte, error) {
	limit := rc.pc.memLimit()
	var docs [][]byte
	var mem int64
	for {
		d, err := in.Next()
		if err != nil {
			return nil, err
		}
		if d == nil {
			return docs, nil
		}
		docs = append(docs, d)
		mem += int64(len(d)) + docOverhead
		if mem > limit {
			if !rc.pc.AllowDiskUse {
				return nil, memoryError("$facet", limit)
			}
			if err := sp.writeRun(docs); err != nil {
				return nil, fmt.Errorf("$facet spill: %w", err)
			}
			docs, mem = nil, 0
		}
	}
}

// unionWithSources: coll, a collection of the aggregate's database, and
// the sub-pipeline run on it.
func unionWithSources(spec bsoncore.Value, ns Namespace) ([]Source, error) {
	if s, ok := spec.StringValueOK(); ok {
		return []Source{{From: Namespace{DB: ns.DB, Coll: s}, Foreign: true, Named: true}}, nil
	}
	d, ok := spec.DocumentOK()
	if !ok {
		return nil, nil
	}
	coll, named := d.Lookup("coll").StringValueOK()
	return []Source{{From: Namespace{DB: ns.DB, Coll: coll}, Foreign: true, Named: named, Pipeline: pipelineDocs(d.Lookup("pipeline"))}}, nil
}

// unionWithAccess: find on coll (unless the sub-pipeline opens with
// $documents), and what the sub-pipeline needs.
func unionWithAccess(spec bsoncore.Value, ns Namespace) ([]Access, error) {
	if s, ok := spec.StringValueOK(); ok {
		return []Access{findOn(ns.DB, s)}, nil
	}
	return sourcesAccess(unionWithSources)(spec, ns)
}

// facetSources: each facet's pipeline, run on the stage's input.
func facetSources(spec bsoncore.Value, ns Namespace) ([]Source, error) {
	d, ok := spec.DocumentOK()
	if !ok {
		return nil, nil
	}
	els, _ := d.Elements()
	out := make([]Source, 0, len(els))
	for _, f := range els {
		out = append(out, Source{From: ns, Pipeline: pipelineDocs(f.Value())})
	}
	return out, nil
}

// facetAccess: what each facet's pipeline needs (they run on the input
// documents, so no find of their own).
var facetAccess = sourcesAccess(facetSources)
