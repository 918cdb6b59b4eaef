package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(cmdSearchIndexes, "createSearchIndexes")
	register(cmdSearchIndexes, "updateSearchIndex")
	register(cmdSearchIndexes, "dropSearchIndex")
	ruled(collNeeds(auth.ActCreateSearchIndexes), "createSearchIndexes")
	ruled(collNeeds(auth.ActUpdateSearchIndex), "updateSearchIndex")
	ruled(collNeeds(auth.ActDropSearchIndex), "dropSearchIndex")
}

// cmdSearchIndexes answers the Atlas Search index commands as a mongod
// 7.0 outside Atlas does: Lode has no search engine (mongot) to manage
// such indexes.
func cmdSearchIndexes(context.Context, *Server, *Request) (bsoncore.Document, error) {
	return nil, errs.New(errs.CommandNotSupported, "Search index commands are only supported with Atlas.")
}
