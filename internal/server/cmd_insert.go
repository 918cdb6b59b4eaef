package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/timeseries"
)

func init() {
	register(command{names: []string{"insert"}, handler: cmdInsert, authz: requires(bypassNeeds(collNeeds(auth.ActInsert))),
		api: apiV1, inTxn: yes, retryable: yes, snapshotRead: no, writeConcern: yes, ownWriteConcern: true, explain: notExplained, applyOps: no,
		observe: observed(opInsert, onColl),
		stmts:   "documents", releasesStmts: true,
		// Every document inserted is {n: 1}: no statement result is recorded.
		retry: &retryForm{dflt: stmtResult{n: 1}}})
}

// cmdInsert inserts a batch of documents.
func cmdInsert(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	batch, err := parseWriteBatch(req, "documents", batchFields{bypass: true, bypassEmptyTs: true})
	if err != nil {
		return nil, err
	}
	coll, docs, opts := batch.coll, batch.stmts, batch.opts
	wc, err := parseWriteConcern(req)
	if err != nil {
		return nil, err
	}
	opts.Journal = wc.journal
	// The documents sit at depth 2 of the command (documents.<i>): the
	// wire layer's depth tells when none can exceed the storage limit.
	opts.ShallowDocs = req.depth >= 0 && req.depth <= engine.MaxStorageDepth+1
	// Documents the wire layer validated whole are not validated again,
	// nor searched for their _id when it found each one first.
	opts.ValidBSON = req.trusted
	if seq := req.sequence("documents"); seq != nil {
		opts.IDFirst = seq.IDFirst
	}
	if err := s.checkBatchUUID(req.DB, batch); err != nil {
		return nil, err
	}
	if o, err := s.timeseriesOf(ctx, req.DB, coll); err != nil {
		return nil, err
	} else if o != nil {
		// A time series collection: measurements go into its buckets
		// (engine/timeseries.go).
		res, err := s.eng.InsertTimeseries(ctx, req.DB, coll, docs, opts)
		if err != nil {
			return nil, err
		}
		s.stats.insert.Add(int64(res.N))
		if res.N > 0 {
			s.inserts.notify(ns(req.DB, timeseries.BucketsName(coll)))
		}
		b := bsoncore.NewDocumentBuilder().AppendInt32("n", int32(res.N))
		appendWriteErrors(b, res.WriteErrors)
		appendWriteConcernError(b, wc)
		return b.Build(), nil
	}
	if reply, err := s.viewBatchReply(ctx, req.DB, batch); err != nil || reply != nil {
		return reply, err // views.go
	}
	if !batch.bypassEmptyTs && !req.noZeroTS {
		docs = s.replaceEmptyTimestamps(docs)
	}
	res, err := s.eng.Insert(ctx, req.DB, coll, docs, opts)
	if err != nil {
		return nil, err
	}
	if res.Copied {
		req.releaseStmts()
	}
	s.stats.insert.Add(int64(res.N))
	if res.N > 0 {
		s.inserts.notify(ns(req.DB, coll))
	}
	b := bsoncore.NewDocumentBuilder().AppendInt32("n", int32(res.N))
	appendWriteErrors(b, res.WriteErrors)
	appendWriteConcernError(b, wc)
	return b.Build(), nil
}
