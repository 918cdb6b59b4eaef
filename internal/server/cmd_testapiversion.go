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
	register(admin(cmdTestAPIVersion, authenticated(), "testVersion1And2").inAPIV1().forTests())
	register(admin(cmdTestAPIVersion, authenticated(), "testVersion2").forTests())
	register(admin(cmdTestAPIVersion, authenticated(), "testDeprecation").deprecatedInAPIV1().forTests())
	register(admin(cmdTestAPIVersion, authenticated(), "testDeprecationInVersion2").inAPIV1().forTests())
	register(admin(cmdTestAPIVersion, authenticated(), "testRemoval").inAPIV1().forTests())
}

// cmdTestAPIVersion answers {ok: 1}.
func cmdTestAPIVersion(_ context.Context, _ *Server, req *Request) (bsoncore.Document, error) {
	return nil, onlyGenericArgs(req)
}
