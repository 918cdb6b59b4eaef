package server

import (
	"context"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/cursor"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/wire"
)

// defaultFirstBatch is the number of documents of a first batch when the
// client gives no batchSize, as in MongoDB.
const defaultFirstBatch = 101

// maxBatchBytes bounds a batch so the reply stays under the 16 MiB
// document limit with room for the envelope.
const maxBatchBytes = wire.MaxBSONObjectSize - 16*1024

// firstBatch drains the first batch of c and registers c when documents
// remain. It returns the reply body {cursor: {firstBatch, id, ns}}.
// singleBatch closes the cursor after one batch.
func (s *Server) firstBatch(ctx context.Context, c *cursor.Cursor, batchSize int64, hasBatchSize, singleBatch bool) (bsoncore.Document, error) {
	n := defaultFirstBatch
	if hasBatchSize {
		n = int(batchSize)
		if batchSize == 0 {
			n = -1 // no documents, just open the cursor
		}
	}
	var docs []bsoncore.Document
	exhausted := false
	// maxTimeMS bounds the first batch through ctx, and the later ones
	// through what remains of it (cursor.TimeLeft).
	c.StartTimeLimit(ctx)
	if n >= 0 {
		var err error
		docs, exhausted, err = c.NextBatch(ctx, n, maxBatchBytes)
		if err != nil {
			c.Close()
			return nil, err
		}
	}
	var id int64
	pbrt := postBatchResumeToken(c, docs)
	if exhausted || singleBatch {
		c.Close()
	} else {
		s.tieCursorToTxn(ctx, c)
		ownCursor(ctx, c) // authz.go
		id = s.cursors.Register(c)
	}
	cursorOf(ctx, c, id, len(docs)) // the command's figures (obs.go)
	return s.cursorReplyToken("firstBatch", id, c.NS, docs, pbrt), nil
}

// cursorReply builds {cursor: {<key>: docs, id, ns}}, copying each
// document once, straight into the reply.
func (s *Server) cursorReply(key string, id int64, ns string, docs []bsoncore.Document) bsoncore.Document {
	return s.cursorReplyToken(key, id, ns, docs, nil)
}

// cursorReplyToken is cursorReply with a change stream's
// postBatchResumeToken (nil: none).
func (s *Server) cursorReplyToken(key string, id int64, ns string, docs []bsoncore.Document, pbrt bsoncore.Document) bsoncore.Document {
	s.stats.docsReturned.Add(int64(len(docs)))
	size := 64 + len(key) + len(ns)
	for _, d := range docs {
		size += len(d) + 8
	}
	idx, out := bsoncore.AppendDocumentStart(make([]byte, 0, size))
	cidx, out := bsoncore.AppendDocumentElementStart(out, "cursor")
	aidx, out := bsoncore.AppendArrayElementStart(out, key)
	var ibuf [20]byte
	for i, d := range docs {
		out = append(out, byte(bsoncore.TypeEmbeddedDocument))
		out = append(out, strconv.AppendInt(ibuf[:0], int64(i), 10)...)
		out = append(out, 0)
		out = append(out, d...)
	}
	out, _ = bsoncore.AppendArrayEnd(out, aidx)
	if pbrt != nil {
		out = bsoncore.AppendDocumentElement(out, "postBatchResumeToken", pbrt)
	}
	out = bsoncore.AppendInt64Element(out, "id", id)
	out = bsoncore.AppendStringElement(out, "ns", ns)
	out, _ = bsoncore.AppendDocumentEnd(out, cidx)
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out
}

// sliceSource serves an in-memory list of documents as a cursor source,
// for commands whose results are small and computed up front
// (listCollections, listIndexes, listDatabases).
type sliceSource struct {
	docs []bsoncore.Document
	i    int
}

func (s *sliceSource) Next() (bsoncore.Document, error) {
	if s.i >= len(s.docs) {
		return nil, nil
	}
	d := s.docs[s.i]
	s.i++
	return d, nil
}

func (s *sliceSource) Close() error { return nil }

// parseCursorOpt reads the {cursor: {batchSize: n}} option of commands
// that return cursors.
func parseCursorOpt(cmd string, v bsoncore.Value) (batchSize int64, has bool, err error) {
	d, ok := v.DocumentOK()
	if !ok {
		return 0, false, wrongType(cmd, "cursor", v, "object")
	}
	elems, _ := d.Elements()
	for _, el := range elems {
		switch el.Key() {
		case "batchSize":
			n, err := argInt64(cmd, "cursor.batchSize", el.Value())
			if err != nil {
				return 0, false, err
			}
			if n < 0 {
				return 0, false, errs.New(errs.Location51024, "BSON field 'batchSize' value must be >= 0, actual value '%d'", n)
			}
			batchSize, has = n, true
		default:
			return 0, false, errs.New(errs.Location40415, "BSON field '%s.cursor.%s' is an unknown field.", cmd, el.Key())
		}
	}
	return batchSize, has, nil
}
