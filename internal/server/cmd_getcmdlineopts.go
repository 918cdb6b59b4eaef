package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
)

func init() {
	register(admin(cmdGetCmdLineOpts, requires(clusterNeeds(auth.ActGetCmdLineOpts)), "getCmdLineOpts"))
}

// cmdGetCmdLineOpts reports the command line Lode was started with
// (argv) and, as mongod, the options set by it and the configuration
// file under their configuration file names (parsed; lode serve fills
// Config.CmdLineParsed).
func cmdGetCmdLineOpts(_ context.Context, s *Server, _ *Request) (bsoncore.Document, error) {
	ab := bsoncore.NewArrayBuilder()
	for _, a := range s.cfg.CmdLine {
		ab.AppendString(a)
	}
	parsed := s.cfg.CmdLineParsed
	if parsed == nil {
		parsed = bsoncore.NewDocumentBuilder().Build()
	}
	return bsoncore.NewDocumentBuilder().
		AppendArray("argv", ab.Build()).
		AppendDocument("parsed", parsed).
		Build(), nil
}
