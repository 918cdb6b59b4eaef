package engine

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/storage"
)

// Retryable writes keep their outcome in the write batches that apply
// them, as mongod keeps config.transactions in the storage transaction of
// the write: the server passes a StmtRecorder in the context of a
// retryable write, the engine tells it which statement runs and which
// changes it staged, and each batch that commits the statement's changes
// also carries the session's record, written by the recorder. The record
// is thus exactly as durable as the write. Records live under
// storage's session store (storage.SetSession); their format is the
// server's.

// StmtRecorder follows the statements of one retryable write command.
type StmtRecorder interface {
	// Begin starts statement i of the command; it returns true when the
	// statement already ran in an earlier attempt and must be skipped.
	Begin(i int) (skip bool)
	// Change notes a change the current statement staged: op 'i'
	// (insert, post), 'u' (update, pre and post) or 'd' (delete, pre).
	Change(op byte, pre, post bsoncore.Document)
	// Stage writes the session's record, covering every change noted so
	// far, into b, which commits next.
	Stage(b *storage.Batch) error
	// Done reports whether the batch last staged committed. Changes
	// noted since the previous Done that did not commit are forgotten.
	Done(committed bool)
}

type recorderKey struct{}

// WithStmtRecorder returns ctx carrying r for the write it runs.
func WithStmtRecorder(ctx context.Context, r StmtRecorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, r)
}

func recorderFrom(ctx context.Context) StmtRecorder {
	r, _ := ctx.Value(recorderKey{}).(StmtRecorder)
	return r
}

// noteChange passes a change of the current statement to the recorder.
func (t *writeBatch) noteChange(op byte, pre, post bsoncore.Document) {
	if t.rec != nil && !t.quiet {
		t.rec.Change(op, pre, post)
	}
}

// SessionRecord reads the record of session id (nil when there is none).
func (e *Engine) SessionRecord(id []byte) ([]byte, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	v, ok, err := storage.GetSession(e.db.Reader(), id, nil)
	if err != nil || !ok {
		return nil, err
	}
	return v, nil
}

// SessionStmts calls fn with each statement record of transaction number
// txn of session id, in statement order.
func (e *Engine) SessionStmts(id []byte, txn int64, fn func(stmt int32, v []byte) error) error {
	return storage.SessionStmts(e.db.Reader(), id, txn, fn)
}

// SessionRecords calls fn with the id and header record of every session
// that has one.
func (e *Engine) SessionRecords(fn func(id, v []byte) error) error {
	if err := e.checkOpen(); err != nil {
		return err
	}
	return storage.Sessions(e.db.Reader(), fn)
}

// DeleteSessionRecords removes every record of the sessions ids (their
// headers and statements), without sync: a record that comes back after
// a crash is pruned again.
func (e *Engine) DeleteSessionRecords(ids [][]byte) error {
	if len(ids) == 0 {
		return nil
	}
	if err := e.checkOpen(); err != nil {
		return err
	}
	b := e.db.NewBatch()
	for _, id := range ids {
		// A session without records adds nothing to the batch.
		if err := storage.DeleteSession(b, e.db.Reader(), id); err != nil {
			b.Close()
			return fmt.Errorf("prune session records: %w", err)
		}
	}
	if b.Empty() {
		b.Close()
		return nil
	}
	_, err := e.db.Commit(b)
	return err
}
