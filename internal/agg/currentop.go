package agg

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// The registry entry of the stage in this file (stagedef.go). mongod asks
// inprog only with allUsers: true; Lode lists every user's operations
// whatever allUsers says, so it always does.
func init() {
	{
		w := anywhere
		w.inView = no
		w.first = yes
		w.inFacet = no
		w.dbLevel = yes
		w.adminOnly = yes
		w.apiV1 = no
		registerStage("$currentOp", stageDef{parse: parseCurrentOp, access: onCluster("inprog"), sources: noSources, initial: true, where: w, explain: explainNone, shape: shapeExpr})
	}
}

// CurrentOpOptions are the options of the $currentOp stage.
type CurrentOpOptions struct {
	// AllUsers lists the operations of every user; Lode has no
	// authentication, so every operation is listed either way.
	AllUsers bool
	// IdleConnections adds an inactive entry for each connection that is
	// not running a command.
	IdleConnections bool
	// IdleCursors adds an entry for each open cursor not in use.
	IdleCursors bool
	// IdleSessions adds an entry for each session holding an open
	// transaction between commands (default true, as in MongoDB).
	IdleSessions bool
	// LocalOps matters only on mongos; accepted and ignored.
	LocalOps bool
}

// OpLister is implemented by catalogs that can list the server's running
// operations for $currentOp.
type OpLister interface {
	// CurrentOps returns one document per operation, in the shape of the
	// currentOp command's inprog entries.
	CurrentOps(ctx context.Context, opts CurrentOpOptions) ([]bsoncore.Document, error)
}

// currentOpStage is $currentOp: a source stage that must be first in an
// {aggregate: 1} pipeline on the admin database.
type currentOpStage struct {
	raw  bsoncore.Value
	opts CurrentOpOptions
}

// parseCurrentOp parses {$currentOp: {...options}}; the error codes and
// messages are those of MongoDB's DocumentSourceCurrentOp.
func parseCurrentOp(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.FailedToParse, "$currentOp options must be specified in an object, but found: %s", bsonutil.TypeName(v.Type))
	}
	s := &currentOpStage{raw: v, opts: CurrentOpOptions{IdleSessions: true}}
	els, err := d.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "$currentOp: %v", err)
	}
	for _, el := range els {
		var dst *bool
		var ignored bool
		switch el.Key() {
		case "allUsers":
			dst = &s.opts.AllUsers
		case "idleConnections":
			dst = &s.opts.IdleConnections
		case "idleCursors":
			dst = &s.opts.IdleCursors
		case "idleSessions":
			dst = &s.opts.IdleSessions
		case "localOps":
			dst = &s.opts.LocalOps
		case "backtrace", "truncateOps":
			dst = &ignored
		default:
			return nil, errs.New(errs.FailedToParse, "Unrecognized option '%s' in $currentOp stage.", el.Key())
		}
		b, ok := el.Value().BooleanOK()
		if !ok {
			return nil, errs.New(errs.FailedToParse, "The '%s' parameter of the $currentOp stage must be a boolean value, but found: %s", el.Key(), bsonutil.TypeName(el.Value().Type))
		}
		*dst = b
	}
	return []stage{s}, nil
}

func (s *currentOpStage) name() string            { return "$currentOp" }
func (s *currentOpStage) spec() bsoncore.Document { return specDoc("$currentOp", s.raw) }
func (s *currentOpStage) source()                 {}

func (s *currentOpStage) open(rc *runCtx, _ Iterator) (Iterator, error) {
	l, ok := rc.cat.(OpLister)
	if !ok {
		return &sliceIter{}, nil
	}
	docs, err := l.CurrentOps(rc.ctx, s.opts)
	if err != nil {
		return nil, err
	}
	return &sliceIter{docs: docs}, nil
}
