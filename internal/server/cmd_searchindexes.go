package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdSearchIndexes, requires(collNeeds(auth.ActCreateSearchIndexes)), "createSearchIndexes"))
	register(admin(cmdSearchIndexes, requires(collNeeds(auth.ActUpdateSearchIndex)), "updateSearchIndex"))
	register(admin(cmdSearchIndexes, requires(collNeeds(auth.ActDropSearchIndex)), "dropSearchIndex"))
}

// cmdSearchIndexes answers the Atlas Search index commands as a mongod
// 7.0 outside Atlas does: Lode has no search engine (mongot) to manage
// such indexes.
func cmdSearchIndexes(context.Context, *Server, *Request) (bsoncore.Document, error) {
	return nil, errs.New(errs.CommandNotSupported, "Search index commands are only supported with Atlas.")
}
