package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// mongod's test commands for the Stable API: they do nothing, and exist
// so that drivers can test apiStrict and apiDeprecationErrors against
// commands of known API membership (apiversion.go). Served only with
// test commands enabled.
func init() {
	names := []string{"testVersion1And2", "testVersion2", "testDeprecation", "testDeprecationInVersion2", "testRemoval"}
	register(cmdTestAPIVersion, names...)
	for _, n := range names {
		testCommands[n] = true
	}
	authOnlyCmd(names...)
}

// cmdTestAPIVersion answers {ok: 1}.
func cmdTestAPIVersion(_ context.Context, _ *Server, req *Request) (bsoncore.Document, error) {
	return nil, eachArg(req, func(string, bsoncore.Value) (bool, error) { return false, nil })
}
