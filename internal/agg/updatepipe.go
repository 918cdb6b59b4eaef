package agg

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// UpdatePipeline is a parsed pipeline-style update (MongoDB 4.2+): an
// array of $addFields/$set, $project/$unset and $replaceRoot/$replaceWith
// stages run over one document at a time. It reuses the aggregation
// stages and expression evaluator; it is immutable once parsed.
type UpdatePipeline struct {
	pc     *ParseContext
	stages []stage
}

// ParseUpdatePipeline parses the stages of a pipeline-style update. ec
// holds the variables in scope (the command's let and the statement's
// constants); nil means none. As in mongod, every stage is parsed first
// (so a malformed or unknown stage reports its own error), then any stage
// other than the six allowed ones is InvalidOptions (72).
func ParseUpdatePipeline(pipeline []bsoncore.Document, ec *expr.ParseContext) (*UpdatePipeline, error) {
	if ec == nil {
		ec = expr.NewParseContext()
	}
	pc := &ParseContext{Expr: ec}
	var stages []stage
	disallowed := ""
	for _, d := range pipeline {
		_, spec, def, err := stageSpec(d)
		if err != nil {
			return nil, err
		}
		ss, err := def.parse(spec, pc)
		if err != nil {
			return nil, err
		}
		for _, s := range ss {
			// The stages MongoDB allows there
			// (isAllowedWithinUpdatePipeline) say so in the registry.
			if d := stageDefs[s.name()]; disallowed == "" && (d == nil || d.where.inUpdate != yes) {
				disallowed = s.name()
			}
		}
		stages = append(stages, ss...)
	}
	if disallowed != "" {
		return nil, errs.New(errs.InvalidOptions, "%s is not allowed to be used within an update", disallowed)
	}
	return &UpdatePipeline{pc: pc, stages: stages}, nil
}

// Apply runs the pipeline over doc alone and returns the document it
// produces. vars binds $$NOW and the user variables (nil: none).
func (u *UpdatePipeline) Apply(ctx context.Context, doc bsoncore.Document, vars *expr.Vars) (bsoncore.Document, error) {
	if vars == nil {
		vars = expr.NewVars(time.Now())
	}
	vars.SetContext(ctx)
	vars.SetBudget(u.pc.params().Budget)
	rc := &runCtx{ctx: ctx, vars: vars, pc: u.pc}
	var it Iterator = &sliceIter{docs: []bsoncore.Document{doc}}
	for _, s := range u.stages {
		out, err := s.open(rc, it)
		if err != nil {
			it.Close()
			return nil, err
		}
		it = out
	}
	defer it.Close()
	out, err := it.Next()
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, errs.New(errs.InternalError, "update pipeline produced no document")
	}
	return out, nil
}
