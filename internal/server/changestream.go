package server

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/changestream"
	"github.com/lodedb/lode/internal/cursor"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

// Change streams: aggregate with $changeStream first opens a
// changestream.Reader over the oplog; the cursor is tailable and
// awaitData, getMore waits on the oplog's visibility point, and every
// batch carries a postBatchResumeToken.

// changeStreamScope checks where a stream is opened, with mongod's
// errors, and returns what it watches.
func changeStreamScope(db, coll string, spec *changestream.Spec) (changestream.Scope, error) {
	if spec.AllChangesForCluster {
		if db != "admin" || coll != "" {
			return changestream.Scope{}, errs.New(errs.InvalidNamespace, "A $changeStream with 'allChangesForCluster:true' may only be opened on the 'admin' database, and with no collection name")
		}
		return changestream.Scope{}, nil
	}
	switch db {
	case "admin", "config", "local":
		return changestream.Scope{}, errs.New(errs.InvalidNamespace, "$changeStream may not be opened on the internal %s database", db)
	}
	if strings.HasPrefix(coll, "system.") {
		return changestream.Scope{}, errs.New(errs.InvalidNamespace, "$changeStream may not be opened on the internal %s.%s collection", db, coll)
	}
	return changestream.Scope{DB: db, Coll: coll}, nil
}

// openChangeStream is the aggregate catalog's ChangeStreams hook; it
// stores the reader in *out for the cursor.
func (s *Server) openChangeStream(out **changestream.Reader) func(ctx context.Context, db, coll string, raw bsoncore.Value) (agg.Iterator, error) {
	return func(ctx context.Context, db, coll string, raw bsoncore.Value) (agg.Iterator, error) {
		if engine.TxnFrom(ctx) != nil {
			return nil, errs.New(errs.OperationNotSupportedInTransaction, "Cannot run $changeStream in a multi-document transaction.")
		}
		spec, err := changestream.ParseSpec(raw)
		if err != nil {
			return nil, err
		}
		scope, err := changeStreamScope(db, coll, spec)
		if err != nil {
			return nil, err
		}
		r, err := changestream.Open(ctx, s.eng.Oplog(), scope, spec, s.lookupDocument)
		if err != nil {
			return nil, labelChangeStreamError(err)
		}
		*out = r
		return r, nil
	}
}

// lookupDocument reads the current version of a document by its key
// (fullDocument: updateLookup).
func (s *Server) lookupDocument(ctx context.Context, db, coll string, key bsoncore.Document) (bsoncore.Document, error) {
	it, err := s.eng.Find(ctx, db, coll, engine.FindSpec{Filter: key, Limit: 1})
	if err != nil {
		if errs.Is(err, errs.NamespaceNotFound) {
			return nil, nil
		}
		return nil, err
	}
	defer it.Close()
	d, err := it.Next()
	if err != nil || d == nil {
		return nil, err
	}
	return append(bsoncore.Document(nil), d...), nil
}

// changeStreamSource is a change stream cursor's source: the pipeline
// after $changeStream, over the reader.
type changeStreamSource struct {
	it agg.Iterator
	r  *changestream.Reader
	// last is the token of the last event returned.
	last bsoncore.Document
}

func (c *changeStreamSource) Next() (bsoncore.Document, error) {
	d, err := c.it.Next()
	if err != nil {
		return nil, labelChangeStreamError(err)
	}
	if d == nil {
		return nil, nil
	}
	// The resume token must survive the stream's own stages.
	want := c.r.ResumeToken().Doc()
	id, ok := d.Lookup("_id").DocumentOK()
	if !ok || !bytes.Equal(id, want) {
		return nil, labelChangeStreamError(errs.New(errs.ChangeStreamFatalError, "Encountered an event whose _id field, which contains the resume token, was modified by the pipeline. Modifying the _id field of an event makes it impossible to resume the stream from that point. Only transformations that retain the unmodified _id field are allowed. Expected: %s but found: %s", want.String(), d.Lookup("_id").String()))
	}
	c.last = id
	return d, nil
}

func (c *changeStreamSource) Close() error                   { return c.it.Close() }
func (c *changeStreamSource) Ended() bool                    { return c.r.Ended() }
func (c *changeStreamSource) SetContext(ctx context.Context) { c.r.SetContext(ctx) }

func (c *changeStreamSource) Wait(ctx context.Context, d time.Duration) { c.r.Wait(ctx, d) }

// resumeToken is the batch's postBatchResumeToken: the high-water mark
// when the stream caught up, else the last event sent (a batch cut short
// by its size limit keeps the next event for later).
func (c *changeStreamSource) resumeToken(sent []bsoncore.Document) bsoncore.Document {
	if c.r.CaughtUp() || len(sent) == 0 {
		return c.r.ResumeToken().Doc()
	}
	id, _ := sent[len(sent)-1].Lookup("_id").DocumentOK()
	return id
}

// postBatchResumeToken returns the token for a batch of cursor c, or nil
// when c is not a change stream.
func postBatchResumeToken(c *cursor.Cursor, sent []bsoncore.Document) bsoncore.Document {
	if cs, ok := c.Source().(*changeStreamSource); ok {
		return cs.resumeToken(sent)
	}
	return nil
}

// labelChangeStreamError gives an error of a change stream's aggregate
// or getMore the label mongod's ErrorLabelBuilder gives it:
// ResumableChangeStreamError for the codes a driver may resume the
// stream after (a network, not-primary, shutdown or stale-routing error,
// RetryChangeStream, FailedToSatisfyReadPreference),
// NonResumableChangeStreamError for ChangeStreamFatalError and
// ChangeStreamHistoryLost. An error that already has labels keeps them.
func labelChangeStreamError(err error) error {
	var e *errs.Error
	if !errors.As(err, &e) || len(e.Labels) > 0 {
		return err
	}
	switch {
	case errs.ResumableChangeStreamCode(e.Code):
		return e.WithLabels(errs.LabelResumableChangeStream)
	case errs.NonResumableChangeStreamCode(e.Code):
		return e.WithLabels(errs.LabelNonResumableChangeStream)
	}
	return err
}
