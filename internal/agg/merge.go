package agg

import (
	"bytes"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// The registry entry of the stage in this file (stagedef.go).
func init() {
	{
		w := anywhere
		w.writes = yes
		w.dropsTextScore = yes
		w.inView = no
		w.last = yes
		w.inFacet = no
		w.inLookup = no
		w.inUnion = no
		registerStage("$merge", stageDef{parse: parseMerge, access: mergeAccess, sources: noSources, where: w, explain: explainNone, shape: shapeArgs})
	}
}

// mergeStage is $merge.
type mergeStage struct {
	raw            bsoncore.Value
	db, coll       string
	on             []string
	whenMatched    string // replace, keepExisting, merge, fail, pipeline
	whenNotMatched string // insert, discard, fail
	// pipe is whenMatched's update pipeline; lets are its let variables,
	// evaluated against each source document.
	pipe *UpdatePipeline
	lets []mergeLet
	// collator and collDoc are the pipeline's collation (nil: simple): the
	// target is searched under it, and the unique index backing 'on' must
	// have the same collation, as mongod's supportsUniqueKey requires.
	// onGiven is set when 'on' was given explicitly.
	collator *collation.Collator
	collDoc  bsoncore.Document
	onGiven  bool
}

// mergeLet is one of $merge's let variables: its slot in the pipeline's
// variables and its expression over the source document.
type mergeLet struct {
	slot int
	e    expr.Expr
}

func parseMerge(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	m := &mergeStage{raw: v, on: []string{"_id"}, whenMatched: "merge", whenNotMatched: "insert", collator: pc.Collator}
	if pc.Collator != nil {
		m.collDoc = pc.Collator.Spec().Document()
	}
	var into, pipeline bsoncore.Value
	var let bsoncore.Document
	switch v.Type {
	case bsoncore.TypeString:
		into = v
	case bsoncore.TypeEmbeddedDocument:
		els, _ := v.Document().Elements()
		for _, el := range els {
			ev := el.Value()
			switch el.Key() {
			case "into":
				into = ev
			case "on":
				m.on, m.onGiven = nil, true
				switch ev.Type {
				case bsoncore.TypeString:
					m.on = []string{ev.StringValue()}
				case bsoncore.TypeArray:
					vals, _ := ev.Array().Values()
					for _, x := range vals {
						s, ok := x.StringValueOK()
						if !ok {
							return nil, errs.New(errs.Location51134, "$merge 'on' array elements must be strings, but found %s", bsonutil.TypeName(x.Type))
						}
						m.on = append(m.on, s)
					}
					if len(m.on) == 0 {
						return nil, errs.New(errs.Location51187, "If explicitly specifying $merge 'on', must include at least one field")
					}
				default:
					return nil, errs.New(errs.Location51186, "$merge 'on' field  must be either a string or an array of strings, but found %s", bsonutil.TypeName(ev.Type))
				}
			case "whenMatched":
				if ev.Type == bsoncore.TypeArray {
					m.whenMatched, pipeline = "pipeline", ev
					continue
				}
				s, _ := ev.StringValueOK()
				switch s {
				case "replace", "keepExisting", "merge", "fail":
					m.whenMatched = s
				default:
					return nil, errs.New(errs.BadValue, "Enumeration value '%s' for field '$merge.whenMatched' is not a valid value.", s)
				}
			case "whenNotMatched":
				s, _ := ev.StringValueOK()
				switch s {
				case "insert", "discard", "fail":
					m.whenNotMatched = s
				default:
					return nil, errs.New(errs.BadValue, "Enumeration value '%s' for field '$merge.whenNotMatched' is not a valid value.", s)
				}
			case "let":
				d, ok := ev.DocumentOK()
				if !ok {
					return nil, errs.New(errs.TypeMismatch, "BSON field '$merge.let' is the wrong type '%s', expected type 'object'", bsonutil.TypeName(ev.Type))
				}
				let = d
			default:
				return nil, errs.New(errs.Location40415, "BSON field '$merge.%s' is an unknown field.", el.Key())
			}
		}
	default:
		return nil, errs.New(errs.Location51182, "$merge only supports a string or object argument, not %s", bsonutil.TypeName(v.Type))
	}
	if into.Type == 0 {
		return nil, errs.New(errs.Location40414, "BSON field '$merge.into' is missing but a required field")
	}
	if m.whenMatched == "pipeline" {
		if err := m.parsePipeline(pipeline, let, pc); err != nil {
			return nil, err
		}
	} else if let != nil {
		return nil, errs.New(errs.Location51199, "Cannot use 'let' variables with 'whenMatched: %s' mode", m.whenMatched)
	}
	var err error
	if m.db, m.coll, err = parseTarget("$merge", into, pc.DB); err != nil {
		return nil, err
	}
	if m.db == pc.DB && m.coll == pc.Coll {
		// MongoDB allows merging into the source collection; reads see a
		// snapshot, so this is safe here too.
		_ = m
	}
	return []stage{m}, nil
}

func (m *mergeStage) name() string            { return "$merge" }
func (m *mergeStage) spec() bsoncore.Document { return specDoc("$merge", m.raw) }

func (m *mergeStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	done := false
	return &funcIter{
		next: func() (bsoncore.Document, error) {
			if done {
				return nil, nil
			}
			done = true
			if err := m.checkOn(rc); err != nil {
				return nil, err
			}
			for {
				d, err := in.Next()
				if err != nil {
					return nil, err
				}
				if d == nil {
					return nil, nil
				}
				if err := m.one(rc, d); err != nil {
					return nil, err
				}
			}
		},
		close: in.Close,
	}, nil
}

// checkOn verifies, as MongoDB does before running, that the 'on' fields
// other than the default _id are the key of a unique, non-partial index of
// the target (which must exist): otherwise a document could match several
// targets. Failing that it returns 51183.
func (m *mergeStage) checkOn(rc *runCtx) error {
	idOnly := len(m.on) == 1 && m.on[0] == "_id"
	if idOnly && !m.onGiven {
		return nil // the default 'on' is not checked
	}
	fail := errs.New(errs.Location51183, "Cannot find index to verify that join fields will be unique")
	ix, err := rc.cat.Indexes(rc.ctx, m.db, m.coll)
	if err != nil {
		if errs.Is(err, errs.NamespaceNotFound) {
			if idOnly {
				return nil // a new target's _id index will back it
			}
			return fail
		}
		return fmt.Errorf("$merge: indexes of %s.%s: %w", m.db, m.coll, err)
	}
	want := map[string]bool{}
	for _, f := range m.on {
		want[f] = true
	}
	for _, i := range ix {
		unique := i.Name == "_id_" || i.Spec.Lookup("unique").Type == bsoncore.TypeBoolean && i.Spec.Lookup("unique").Boolean()
		if !unique || i.Spec.Lookup("partialFilterExpression").Type != 0 || !m.sameCollation(i.Spec) {
			continue
		}
		els, _ := i.Key.Elements()
		if len(els) != len(want) {
			continue
		}
		ok := true
		for _, el := range els {
			ok = ok && want[el.Key()] && bsonutil.IsNumber(el.Value().Type)
		}
		if ok {
			return nil
		}
	}
	return fail
}

// sameCollation reports whether an index's collation is the pipeline's
// (both simple, or the same normalised spec).
func (m *mergeStage) sameCollation(spec bsoncore.Document) bool {
	ic, ok := spec.Lookup("collation").DocumentOK()
	if m.collator == nil {
		return !ok
	}
	return ok && bytes.Equal(ic, m.collDoc)
}

// one merges a single document.
func (m *mergeStage) one(rc *runCtx, d bsoncore.Document) error {
	fb := bsoncore.NewDocumentBuilder()
	for _, f := range m.on {
		v := lookupPath(d, splitDots(f))
		if v.Type == 0 && f == "_id" && m.whenNotMatched == "insert" {
			// No _id: nothing can match; insert (the engine adds one).
			return rc.cat.Insert(rc.ctx, m.db, m.coll, []bsoncore.Document{d})
		}
		if v.Type == 0 || v.Type == bsoncore.TypeNull || v.Type == bsoncore.TypeArray {
			return errs.New(errs.Location51132, "$merge write error: 'on' field '%s' cannot be missing, null, undefined or an array", f)
		}
		fb.AppendValue(f, v)
	}
	filter := fb.Build()
	it, err := rc.cat.Find(rc.ctx, m.db, m.coll, FindSpec{Filter: filter, Limit: 1, Collation: m.collDoc})
	if err != nil {
		return err
	}
	existing, err := it.Next()
	it.Close()
	if err != nil {
		return err
	}
	if existing == nil {
		switch m.whenNotMatched {
		case "insert":
			return rc.cat.Insert(rc.ctx, m.db, m.coll, []bsoncore.Document{d})
		case "fail":
			return errs.New(errs.Location13113, "$merge could not find a matching document in the target collection for at least one document in the source collection")
		}
		return nil
	}
	idFilter := bsoncore.NewDocumentBuilder().AppendValue("_id", existing.Lookup("_id")).Build()
	switch m.whenMatched {
	case "keepExisting":
		return nil
	case "fail":
		// The error names the unique index on the 'on' fields and the
		// matched values, as mongod's DuplicateKey does.
		kp := bsoncore.NewDocumentBuilder()
		for _, f := range m.on {
			kp.AppendInt32(f, 1)
		}
		e := errs.New(errs.DuplicateKey, "$merge failed due to a DuplicateKey error :: caused by :: E11000 duplicate key error collection: %s.%s index: %s dup key: %s", m.db, m.coll, indexNameFor(m.on), bsonutil.FormatDoc(filter, bsonutil.Style{GoNonFinite: true, JSONCode: true}))
		e.Info = bsoncore.NewDocumentBuilder().AppendDocument("keyPattern", kp.Build()).AppendDocument("keyValue", filter).Build()
		return e
	case "replace":
		return rc.cat.Update(rc.ctx, m.db, m.coll, idFilter, withoutID(d))
	case "pipeline":
		return m.runPipeline(rc, d, existing, idFilter)
	default: // merge
		set := withoutID(d)
		if len(set) <= 5 {
			return nil
		}
		upd := bsoncore.NewDocumentBuilder().AppendDocument("$set", set).Build()
		return rc.cat.Update(rc.ctx, m.db, m.coll, idFilter, upd)
	}
}

func withoutID(d bsoncore.Document) bsoncore.Document {
	idx, out := bsoncore.AppendDocumentStart(nil)
	els, _ := d.Elements()
	for _, el := range els {
		if el.Key() != "_id" {
			out = append(out, el...)
		}
	}
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out
}

func splitDots(s string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// parsePipeline prepares whenMatched's update pipeline. let defaults to
// {new: "$$ROOT"}; "new" may only be "$$ROOT" (51273), and is added when
// unmatched documents are inserted, as mongod does. The let expressions
// are parsed in the command's scope; the pipeline sees them as variables.
func (m *mergeStage) parsePipeline(pipeline bsoncore.Value, let bsoncore.Document, pc *ParseContext) error {
	type named struct {
		name string
		v    bsoncore.Value
	}
	root := bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, "$$ROOT")}
	var lets []named
	if let == nil {
		lets = []named{{"new", root}}
	} else {
		els, err := let.Elements()
		if err != nil {
			return errs.New(errs.InvalidBSON, "invalid $merge let: %v", err)
		}
		hasNew := false
		for _, el := range els {
			if el.Key() == "new" {
				if s, ok := el.Value().StringValueOK(); !ok || s != "$$ROOT" {
					return errs.New(errs.Location51273, "'let' may not define a value for the reserved 'new' variable other than '$$ROOT'")
				}
				hasNew = true
			}
			lets = append(lets, named{el.Key(), el.Value()})
		}
		if !hasNew && m.whenNotMatched == "insert" {
			lets = append(lets, named{"new", root})
		}
	}
	exprs := make([]expr.Expr, len(lets))
	for i, l := range lets {
		e, err := expr.Parse(l.v, pc.Expr)
		if err != nil {
			return err
		}
		exprs[i] = e
	}
	for i, l := range lets {
		m.lets = append(m.lets, mergeLet{slot: pc.Expr.Define(l.name), e: exprs[i]})
	}
	vals, err := pipeline.Array().Values()
	if err != nil {
		return errs.New(errs.InvalidBSON, "invalid $merge whenMatched: %v", err)
	}
	stages := make([]bsoncore.Document, 0, len(vals))
	for _, v := range vals {
		d, ok := v.DocumentOK()
		if !ok {
			return errs.New(errs.TypeMismatch, "Each element of the 'pipeline' array must be an object")
		}
		stages = append(stages, d)
	}
	m.pipe, err = ParseUpdatePipeline(stages, pc.Expr)
	return err
}

// runPipeline updates the matched target document existing with the
// whenMatched pipeline, its let variables bound over the source document
// d; the output replaces the target document (same _id).
func (m *mergeStage) runPipeline(rc *runCtx, d, existing, idFilter bsoncore.Document) error {
	for _, l := range m.lets {
		v, err := l.e.Eval(d, rc.vars)
		if err != nil {
			return err
		}
		rc.vars.Set(l.slot, v)
	}
	out, err := m.pipe.Apply(rc.ctx, existing, rc.vars)
	if err != nil {
		return err
	}
	if id, err := out.LookupErr("_id"); err == nil && !bsonutil.Equal(id, existing.Lookup("_id")) {
		return errs.New(errs.ImmutableField, "$merge failed to update the matching document, did you attempt to modify the _id or the shard key? :: caused by :: Performing an update on the path '_id' would modify the immutable field '_id'")
	}
	return rc.cat.Update(rc.ctx, m.db, m.coll, idFilter, withoutID(out))
}

// indexNameFor is the default name of an ascending index on fields.
func indexNameFor(fields []string) string {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteByte('_')
		}
		b.WriteString(f)
		b.WriteString("_1")
	}
	return b.String()
}

// mergeAccess: on the target of into, in any database, insert when
// unmatched documents are inserted and update unless whenMatched is
// fail, as mongod's $merge descriptors.
func mergeAccess(spec bsoncore.Value, ns Namespace) ([]Access, error) {
	into := spec
	whenMatched, whenNotMatched := "merge", "insert"
	if d, ok := spec.DocumentOK(); ok {
		into = d.Lookup("into")
		if s, ok := d.Lookup("whenMatched").StringValueOK(); ok {
			whenMatched = s
		} else if d.Lookup("whenMatched").Type == bsoncore.TypeArray {
			whenMatched = "pipeline"
		}
		if s, ok := d.Lookup("whenNotMatched").StringValueOK(); ok {
			whenNotMatched = s
		}
	}
	if into.Type == 0 {
		return nil, nil // refused when parsed
	}
	db, coll, err := parseTarget("$merge", into, ns.DB)
	if err != nil {
		return nil, err
	}
	var acts []string
	if whenNotMatched == "insert" {
		acts = append(acts, "insert")
	}
	if whenMatched != "fail" {
		acts = append(acts, "update")
	}
	return []Access{{Scope: ScopeCollection, DB: db, Coll: coll, Actions: acts}}, nil
}
