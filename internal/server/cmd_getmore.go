package server

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/cursor"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(command{names: []string{"getMore"}, handler: cmdGetMore, authz: authenticated(),
		api: apiV1, inTxn: yes, retryable: no, snapshotRead: no, writeConcern: no, explain: notExplained, applyOps: no,
		observe: observed(opGetMore, cursorReply), onCursor: true})
}

// cmdGetMore returns the next batch of an open cursor. A tailable
// awaitData cursor with no new documents waits up to maxTimeMS (1 s by
// default) and then returns an empty batch, keeping the cursor open.
func cmdGetMore(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	idv := req.Cmd.Index(0).Value()
	if idv.Type != bsoncore.TypeInt64 {
		return nil, wrongType(req.Name, "getMore", idv, "long")
	}
	id := idv.Int64()
	var coll string
	var batchSize int64
	var maxAwait time.Duration = time.Second
	hasMaxTime := false
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "collection":
			coll, err = argString(req.Name, k, v)
		case "batchSize":
			batchSize, err = nonNegative(req.Name, k, v)
		case "maxTimeMS":
			hasMaxTime = true
			if ms, ok := asInt64(v); ok && ms > 0 {
				maxAwait = time.Duration(ms) * time.Millisecond
			}
			return true, nil
		case "includeQueryStatsMetrics":
			// A field of later versions, asking for query-statistics
			// metrics in the reply, which Lode does not keep.
			var on bool
			if on, err = argBool(req.Name, k, v); err == nil && on {
				err = errs.New(errs.NotImplemented, "getMore.includeQueryStatsMetrics is not supported by Lode: read the statistics with $queryStats")
			}
		case "term", "lastKnownCommittedOpTime":
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	if coll == "" {
		return nil, errs.New(errs.Location40414, "BSON field 'getMore.collection' is missing but a required field")
	}
	g, err := s.connGrants(ctx, req)
	if err != nil {
		return nil, err
	}
	// mongod's order: the session and transaction, then the user, then
	// the namespace; a refused getMore leaves the cursor as it was.
	c, err := s.cursors.CheckoutWith(id, ns(req.DB, coll), func(c *cursor.Cursor) error {
		if err := checkCursorTxn(ctx, id, c); err != nil {
			return err
		}
		return s.checkCursorOwner(g, c)
	})
	if err != nil {
		return nil, err
	}
	if hasMaxTime && !c.AwaitData {
		// The cursor's time limit comes from the command that opened it.
		s.cursors.Release(c, false)
		return nil, errs.New(errs.BadValue, "cannot set maxTimeMS on getMore command for a non-awaitData cursor")
	}
	if s.cfg.TestCommands {
		if err := s.failGetMoreAfterCursorCheckoutCheck(req, c.NS); err != nil {
			_, stream := c.Source().(*changeStreamSource)
			s.cursors.Release(c, true)
			if stream {
				err = labelChangeStreamError(err)
			}
			return nil, err
		}
	}
	n := int(batchSize)
	if n == 0 {
		n = -1
	}
	batchCtx := ctx
	if c.AwaitData {
		// maxTimeMS on a getMore of an awaitData cursor bounds the wait for
		// new data, not the operation; dispatch must not turn it into an
		// error, so use a fresh context.
		batchCtx = context.Background()
	}
	docs, exhausted, err := c.NextBatch(batchCtx, n, maxBatchBytes)
	if err == nil && len(docs) == 0 && c.AwaitData && !exhausted {
		deadline := time.Now().Add(maxAwait)
		waitStart := time.Now()
		if op := opFrom(ctx); op != nil {
			// The wait is not the command's work: mongod does not log an
			// awaitData getMore as slow for having waited.
			defer func() { op.waited = time.Since(waitStart) }()
		}
		for len(docs) == 0 && err == nil && time.Now().Before(deadline) {
			if ctx.Err() == context.Canceled {
				err = ctx.Err() // killOp or the client went away
				break
			}
			if w, ok := c.Source().(cursor.Waiter); ok {
				w.Wait(ctx, time.Until(deadline))
			} else {
				s.inserts.wait(ctx, ns(req.DB, coll), time.Until(deadline))
			}
			docs, exhausted, err = c.NextBatch(batchCtx, n, maxBatchBytes)
		}
	}
	if err != nil {
		s.cursors.Release(c, true)
		return nil, err
	}
	pbrt := postBatchResumeToken(c, docs)
	outID := id
	if exhausted {
		outID = 0
	}
	cursorOf(ctx, c, outID, len(docs)) // the command's figures (obs.go)
	s.cursors.Release(c, exhausted)
	return s.cursorReplyToken("nextBatch", outID, c.NS, docs, pbrt), nil
}

// checkCursorOwner is mongod's getMore authorization under Auth: only the
// user that opened the cursor may continue it, and only while it still
// has the privileges the opening command needed (a role revoked since
// stops the cursor too).
func (s *Server) checkCursorOwner(g *auth.Grants, c *cursor.Cursor) error {
	if !s.cfg.Auth {
		return nil
	}
	owner := ""
	if g != nil {
		owner = g.User.ID()
	}
	if c.Owner != owner {
		return errs.New(errs.Unauthorized, "cursor id %d was not created by the authenticated user", c.ID)
	}
	if privs, _ := c.Privileges.([]need); g != nil && !allAllowed(g, privs) {
		return errs.New(errs.Unauthorized, "not authorized for getMore with cursor id %d", c.ID)
	}
	return nil
}
