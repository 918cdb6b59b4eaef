package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
)

func init() {
	register(admin(cmdGetCmdLineOpts, requires(clusterNeeds(auth.ActGetCmdLineOpts)), "getCmdLineOpts"))
}

// cmdGetCmdLineOpts reports the command line Lode was started with.
func cmdGetCmdLineOpts(_ context.Context, s *Server, _ *Request) (bsoncore.Document, error) {
	ab := bsoncore.NewArrayBuilder()
	for _, a := range s.cfg.CmdLine {
		ab.AppendString(a)
	}
	return bsoncore.NewDocumentBuilder().
		AppendArray("argv", ab.Build()).
		AppendDocument("parsed", bsoncore.NewDocumentBuilder().Build()).
		Build(), nil
}
