package engine

import (
	"context"
	"github.com/lodedb/lode/internal/collation"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/update"
)

// updateArgs are the inputs of one update statement (or findAndModify's
// update).
type updateArgs struct {
	filter       bsoncore.Document
	upd          bsoncore.Value
	arrayFilters []bsoncore.Document
	multi        bool
	upsert       bool
	hint         bsoncore.Value
	// let is the command's let document; constants the statement's c.
	let, constants bsoncore.Document
	// coll is the statement's collation (nil: simple).
	coll *collation.Collator
}

// parsedUpdate is an update statement ready to run.
type parsedUpdate struct {
	filterDoc bsoncore.Document
	filter    *query.Filter
	// u is an operator or replacement update; pipe a pipeline-style one.
	u      *update.Update
	pipe   *agg.UpdatePipeline
	multi  bool
	upsert bool
	// hint is the statement's index hint (zero Value: none).
	hint bsoncore.Value
	// vars binds $$NOW (fixed for the statement), let and constants.
	vars *expr.Vars
}

// replaces reports whether the update is a replacement document.
func (p *parsedUpdate) replaces() bool { return p.u != nil && p.u.IsReplacement() }

// parseUpdate validates a statement: its filter, and an update that is a
// document (operators or replacement) or an array (pipeline).
func parseUpdate(a updateArgs) (*parsedUpdate, error) {
	filter := a.filter
	if filter == nil {
		filter = emptyDoc
	}
	if a.upsert && query.TopOperator(filter, "$expr") != "" {
		// mongod parses an upsert's query without $expr (the document
		// it would insert could not be derived from it).
		return nil, errs.New(errs.QueryFeatureNotAllowed, "$expr is not allowed in this context")
	}
	epc, vars, err := bindVars(a.let, a.constants, time.Now())
	if err != nil {
		return nil, err
	}
	f, err := query.ParseCollated(filter, epc, vars, a.coll)
	if err != nil {
		return nil, err
	}
	p := &parsedUpdate{filterDoc: filter, filter: f, multi: a.multi, upsert: a.upsert, hint: a.hint, vars: vars}
	switch a.upd.Type {
	case bsoncore.TypeArray:
		if len(a.arrayFilters) > 0 {
			return nil, errs.New(errs.FailedToParse, "arrayFilters may not be specified for pipeline-syle updates")
		}
		stages, err := pipelineStages(a.upd)
		if err != nil {
			return nil, err
		}
		// The pipeline's expressions compare strings under the
		// statement's collation, as in mongod.
		epc.Collator = a.coll
		if p.pipe, err = agg.ParseUpdatePipeline(stages, epc); err != nil {
			return nil, err
		}
		return p, nil
	case bsoncore.TypeEmbeddedDocument:
	default:
		return nil, errs.New(errs.FailedToParse, "Update argument must be either an object or an array")
	}
	if a.constants != nil {
		return nil, errs.New(errs.Location51198, "Constant values may only be specified for pipeline updates")
	}
	u, err := update.ParseCollated(a.upd.Document(), a.arrayFilters, a.coll)
	if err != nil {
		return nil, err
	}
	if a.multi && u.IsReplacement() {
		return nil, errs.New(errs.FailedToParse, "multi update is not supported for replacement-style update")
	}
	p.u = u
	return p, nil
}

// pipelineStages reads an update pipeline's array of stage documents.
func pipelineStages(v bsoncore.Value) ([]bsoncore.Document, error) {
	vals, err := v.Array().Values()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid update pipeline: %v", err)
	}
	out := make([]bsoncore.Document, 0, len(vals))
	for _, sv := range vals {
		d, ok := sv.DocumentOK()
		if !ok {
			return nil, errs.New(errs.TypeMismatch, "Each element of the 'pipeline' array must be an object")
		}
		out = append(out, d)
	}
	return out, nil
}

// parseFilter parses a statement's filter (nil: the empty filter) with the
// command's let variables bound as of now; it returns the filter document
// it parsed with the filter.
// ctx bounds the loops of its $expr (expr.Vars.SetContext).
func parseFilter(ctx context.Context, filter, let bsoncore.Document, coll *collation.Collator) (bsoncore.Document, *query.Filter, error) {
	if filter == nil {
		filter = emptyDoc
	}
	epc, vars, err := bindVars(let, nil, time.Now())
	if err != nil {
		return nil, nil, err
	}
	vars.SetContext(ctx)
	f, err := query.ParseCollated(filter, epc, vars, coll)
	return filter, f, err
}

// bindVars defines the command's let variables (each a constant
// expression, evaluated once) and the statement's constants (literal
// values), with $$NOW fixed to now.
func bindVars(let, constants bsoncore.Document, now time.Time) (*expr.ParseContext, *expr.Vars, error) {
	epc := expr.NewParseContext()
	vars := expr.NewVars(now)
	if let != nil {
		elems, err := let.Elements()
		if err != nil {
			return nil, nil, errs.New(errs.InvalidBSON, "invalid let: %v", err)
		}
		for _, el := range elems {
			if err := expr.ValidateUserVarName(el.Key(), true); err != nil {
				return nil, nil, err
			}
			e, err := expr.Parse(el.Value(), epc)
			if err != nil {
				return nil, nil, err
			}
			v, err := e.Eval(emptyDoc, vars)
			if err != nil {
				return nil, nil, err
			}
			vars.Set(epc.Define(el.Key()), v)
		}
	}
	if constants != nil {
		elems, err := constants.Elements()
		if err != nil {
			return nil, nil, errs.New(errs.InvalidBSON, "invalid constants: %v", err)
		}
		for _, el := range elems {
			if err := expr.ValidateUserVarName(el.Key(), false); err != nil {
				return nil, nil, err
			}
			vars.Set(epc.Define(el.Key()), el.Value())
		}
	}
	return epc, vars, nil
}

// apply runs the statement's update against doc and checks the result's
// size and _id (put first, or created when missing).
func (p *parsedUpdate) apply(ctx context.Context, doc bsoncore.Document, o update.ApplyOptions) (bsoncore.Document, bool, error) {
	var out bsoncore.Document
	var modified bool
	var err error
	if p.pipe != nil {
		var res bsoncore.Document
		if res, err = p.pipe.Apply(ctx, doc, p.vars); err != nil {
			return nil, false, err
		}
		out, modified, err = update.ReplaceWith(doc, res, o.Insert)
	} else {
		out, modified, err = p.u.Apply(doc, o)
	}
	if err != nil || !modified {
		return out, modified, err
	}
	if len(out) > MaxDocumentSize {
		return nil, false, errs.New(errs.Location17419, "Resulting document after update is larger than %d", MaxDocumentSize)
	}
	if err := checkUpdated(out); err != nil {
		return nil, false, err
	}
	if _, err := out.LookupErr("_id"); err != nil || firstKey(out) != "_id" {
		fixed, werr := ensureID(out, 0)
		if werr != nil {
			return nil, false, werr
		}
		out = fixed
	}
	return out, true, nil
}

func firstKey(d bsoncore.Document) string {
	e, err := d.IndexErr(0)
	if err != nil {
		return ""
	}
	return e.Key()
}

// upsertDoc builds the document an upsert inserts: the filter's equality
// seed with the update applied as an insert (so $setOnInsert applies), the
// replacement with the seed's _id, or the seed run through the pipeline.
// clock is the engine's $currentDate timestamp clock. No array position
// comes with an upsert: a positional $ in it is BadValue, as in mongod.
func (p *parsedUpdate) upsertDoc(ctx context.Context, now time.Time, clock *update.TimestampClock) (bsoncore.Document, error) {
	replacement := p.pipe == nil && p.u.IsReplacement()
	seedOf := query.UpsertSeed
	if replacement {
		seedOf = query.UpsertSeedID
	}
	seed, err := seedOf(p.filterDoc)
	if err != nil {
		return nil, err
	}
	var out bsoncore.Document
	switch {
	case p.pipe != nil:
		out, _, err = p.apply(ctx, seed, update.ApplyOptions{Insert: true, Pos: -1, Now: now, Clock: clock})
	case replacement:
		out, _, err = p.u.Apply(seed, update.ApplyOptions{Insert: true, Pos: -1, Now: now, Clock: clock})
	default:
		out, _, err = p.u.Apply(seed, update.ApplyOptions{Insert: true, Pos: -1, Now: now, Clock: clock})
	}
	if err != nil {
		return nil, err
	}
	// MongoDB checks the upserted document against the user limit with its
	// own code (UpsertStage), not the insert-time BadValue.
	if err := checkUpdated(out); err != nil {
		return nil, err
	}
	// An _id the filter gave a replacement ({_id: [1, 2]}) is checked as
	// the update's own _id is: InvalidIdField, not the insert's BadValue.
	if id, err := out.LookupErr("_id"); err == nil {
		switch id.Type {
		case bsoncore.TypeArray, bsoncore.TypeRegex, bsoncore.TypeUndefined:
			return nil, errs.New(errs.InvalidIdField, "The '_id' value cannot be of type %s", bsonutil.TypeName(id.Type))
		}
	}
	doc, werr := ensureID(out, 0)
	if werr != nil {
		return nil, werr
	}
	if len(doc) > MaxDocumentSize {
		return nil, errs.New(errs.Location17420, "Document to upsert is larger than %d", MaxDocumentSize)
	}
	return doc, nil
}
