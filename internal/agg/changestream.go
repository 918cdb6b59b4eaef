package agg

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// The registry entry of the stage in this file (stagedef.go).
func init() {
	{
		w := anywhere
		w.inView = no
		w.first = yes
		w.inFacet = no
		w.inLookup = no
		w.inUnion = no
		w.dbLevel = yes
		w.overView = no
		registerStage("$changeStream", stageDef{parse: parseChangeStream, access: changeStreamAccess, sources: noSources, initial: true, where: w, explain: explainNone, shape: shapeExpr})
	}
}

// ChangeStreamOpener is implemented by catalogs that serve change
// streams: it opens the stream of db.coll (coll "": the database; db
// "admin" with allChangesForCluster: the deployment) with the
// $changeStream stage's options.
type ChangeStreamOpener interface {
	OpenChangeStream(ctx context.Context, db, coll string, spec bsoncore.Value) (Iterator, error)
}

// changeStreamStage is $changeStream: the source of a change stream's
// events, which only stages that look at one event at a time may follow.
type changeStreamStage struct{ raw bsoncore.Value }

func parseChangeStream(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.Location50808, "$changeStream stage expects a document as argument, found %s", bsonutil.TypeName(v.Type))
	}
	return []stage{&changeStreamStage{raw: v}}, nil
}

func (s *changeStreamStage) name() string            { return "$changeStream" }
func (s *changeStreamStage) spec() bsoncore.Document { return specDoc("$changeStream", s.raw) }
func (s *changeStreamStage) source()                 {}

func (s *changeStreamStage) open(rc *runCtx, _ Iterator) (Iterator, error) {
	o, ok := rc.cat.(ChangeStreamOpener)
	if !ok {
		return nil, errs.New(errs.IllegalOperation, "$changeStream is not supported here")
	}
	return o.OpenChangeStream(rc.ctx, rc.pc.DB, rc.pc.Coll, s.raw)
}

// IsChangeStream reports whether the pipeline is a change stream.
func (p *Pipeline) IsChangeStream() bool {
	return len(p.stages) > 0 && p.stages[0].name() == "$changeStream"
}

// checkChangeStream enforces where $changeStream may appear and what may
// follow it, with mongod's errors.
func checkChangeStream(names []string, pc *ParseContext) error {
	for i, n := range names {
		if n == "$changeStream" {
			if i != 0 {
				return errs.New(errs.Location40602, "$changeStream is only valid as the first stage in a pipeline")
			}
			if pc.inFacet || pc.inLookup || pc.inUnion {
				return errs.New(errs.Location40600, "$changeStream is not allowed to be used within a sub-pipeline")
			}
		}
	}
	if len(names) == 0 || names[0] != "$changeStream" {
		return nil
	}
	// The stages mongod allows after $changeStream say so in the
	// registry (afterChangeStream).
	for _, n := range names[1:] {
		if d := stageDefs[n]; d == nil || d.where.afterChangeStream != yes {
			return errs.New(errs.IllegalOperation, "%s is not permitted in a $changeStream pipeline", n)
		}
	}
	return nil
}

// changeStreamAccess: changeStream and find on what the stream watches:
// the collection, the database ({aggregate: 1}) or, on admin, every
// normal collection (mongod's DocumentSourceChangeStream::LiteParsed).
func changeStreamAccess(_ bsoncore.Value, ns Namespace) ([]Access, error) {
	acts := []string{"changeStream", "find"}
	switch {
	case ns.Coll != "":
		return []Access{{Scope: ScopeCollection, DB: ns.DB, Coll: ns.Coll, Actions: acts}}, nil
	case ns.DB == "admin":
		return []Access{{Scope: ScopeAnyNormal, Actions: acts}}, nil
	}
	return []Access{{Scope: ScopeDatabase, DB: ns.DB, Actions: acts}}, nil
}
