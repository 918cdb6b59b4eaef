package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(command{names: []string{"commitTransaction", "abortTransaction"}, handler: cmdTxnOutside, authz: authenticated(),
		api: apiV1, inTxn: yes, retryable: no, snapshotRead: no, writeConcern: yes, ownWriteConcern: true, explain: notExplained, applyOps: no,
		observe: observed(opCommand)})
}

// cmdTxnOutside answers commitTransaction and abortTransaction sent
// without a transaction; inside one, runInTxn handles them before any
// handler runs.
func cmdTxnOutside(_ context.Context, _ *Server, req *Request) (bsoncore.Document, error) {
	return nil, errs.New(errs.InvalidOptions, "%s must be run within a transaction", req.Name)
}
