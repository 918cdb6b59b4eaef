package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
)

// explainer is how the explain command explains a command, named in the
// command's descriptor (command.go) and used by cmdExplain.
type explainer struct {
	// self, when set, explains the command by running it with explain
	// (aggregate); its first field need not name a collection.
	self func(ctx context.Context, s *Server, req *Request, inner bsoncore.Document, verbosity string) (bsoncore.Document, error)
	// plan parses the explained command sub with the command's own
	// parser into what the engine explains (req is the explain command);
	// nil for a command explain refuses.
	plan func(s *Server, req, sub *Request) (engine.ExplainSpec, error)
	// onView rewrites the command, on a view, as the aggregate it runs
	// there (views_agg.go); nil for a write, refused on a view.
	onView func(s *Server, sub *Request) (bsoncore.Document, error)
}

// notExplained is the explainer of the commands explain refuses as
// unknown.
var notExplained = &explainer{}

// explainable reports whether explain explains the command.
func (e *explainer) explainable() bool { return e != nil && (e.self != nil || e.plan != nil) }
