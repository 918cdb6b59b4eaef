package engine

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/oplog"
	"github.com/lodedb/lode/internal/storage"
)

// The engine's side of the operation log: every write batch, transaction
// commit and catalog change stages its entries into the Pebble batch that
// makes the change (package oplog).

// openOplog opens the log, bounded at bytes (0: DefaultOplogBytes;
// negative: no log).
func (e *Engine) openOplog(bytes int64) error {
	if bytes < 0 {
		return nil
	}
	if bytes == 0 {
		bytes = DefaultOplogBytes
	}
	l, err := oplog.Open(e.db, bytes)
	if err != nil {
		return err
	}
	e.oplog, e.oplogColl = l, newOplogColl()
	return e.startOplog() // oplogns.go
}

// Clock is the deployment's cluster time: the oplog's clock, or a clock
// of its own when the oplog is off.
func (e *Engine) Clock() *oplog.Clock {
	if e.oplog != nil {
		return e.oplog.Clock()
	}
	return &e.clock
}

// WaitVisible waits until every write stamped at or before ts is
// readable (readConcern afterClusterTime), or ctx ends.
func (e *Engine) WaitVisible(ctx context.Context, ts oplog.TS) error {
	if e.oplog == nil {
		return nil
	}
	for {
		vis, ch := e.oplog.Visible()
		if vis >= ts {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Oplog returns the operation log, or nil when it is off.
func (e *Engine) Oplog() *oplog.Log { return e.oplog }

// logged reports whether changes to c are written to the oplog: mongod
// does not replicate the local database, nor the profiler's
// system.profile collections.
func (e *Engine) logged(c *collection) bool {
	return e.oplog != nil && c.DB != "local" && c.Name != "system.profile"
}

// idDoc is {_id: doc._id}.
func idDoc(doc bsoncore.Document) bsoncore.Document {
	idx, dst := bsoncore.AppendDocumentStart(nil)
	if v, err := doc.LookupErr("_id"); err == nil {
		dst = bsoncore.AppendValueElement(dst, "_id", v)
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// logOp adds an entry for a document change to the batch's pending ops.
func (t *writeBatch) logOp(op string, o, o2 bsoncore.Document) {
	if t.quiet || !t.e.logged(t.c) {
		return
	}
	// One namespace string per batch, and the UUID of the collection's
	// (immutable) metadata: no allocation per document for either.
	if t.opsNS == "" {
		t.opsNS = t.c.NS()
	}
	t.ops = append(t.ops, oplog.Entry{Op: op, NS: t.opsNS, UI: &t.c.UUID, O: o, O2: o2})
}

// logUpdate adds an update entry: the full new document for a
// replacement, a $v: 2 delta otherwise.
func (t *writeBatch) logUpdate(oldDoc, newDoc bsoncore.Document, replacement bool) {
	if !t.e.logged(t.c) {
		return
	}
	o := newDoc
	switch {
	case t.diffO != nil:
		o, t.diffO = t.diffO, nil // a time series bucket's (timeseries.go)
	case !replacement:
		o = oplog.UpdateO(oldDoc, newDoc)
	}
	t.logOp(oplog.OpUpdate, o, idDoc(oldDoc))
	t.keepImages(oldDoc, newDoc)
}

// keepImages attaches the document before and after the change to the
// last entry when the collection keeps change-stream images.
func (t *writeBatch) keepImages(pre, post bsoncore.Document) {
	if !t.c.images || t.quiet || !t.e.logged(t.c) || len(t.ops) == 0 {
		return
	}
	op := &t.ops[len(t.ops)-1]
	op.Images = append(op.Images, oplog.Image{Pre: pre, Post: post})
}

// stageOps writes the pending entries into b; opsDone must be called with
// the ticket after b is committed (or fails).
func (e *Engine) stageOps(b *storage.Batch, ops []oplog.Entry) (oplog.Ticket, error) {
	if e.oplog == nil || len(ops) == 0 {
		return oplog.Ticket{}, nil
	}
	return e.oplog.Stage(b, ops)
}

// opsDone ends the staging of tk (stageOps), whether or not its batch
// committed: a value, not a closure, so that a commit allocates nothing
// for it.
func (e *Engine) opsDone(tk oplog.Ticket, committed bool) {
	if e.oplog != nil {
		e.oplog.Done(tk, committed)
	}
}

// commitLogged commits b with the entries ops, for catalog changes.
func (e *Engine) commitLogged(b *storage.Batch, ops ...oplog.Entry) error {
	tk, err := e.stageOps(b, ops)
	if err != nil {
		b.Close()
		return err
	}
	_, err = e.db.Commit(b)
	e.opsDone(tk, err == nil)
	return err
}

// commandEntry is the entry of a catalog command on database db.
func (e *Engine) commandEntry(db string, uuid *[16]byte, o bsoncore.Document) []oplog.Entry {
	if e.oplog == nil || db == "local" {
		return nil
	}
	return []oplog.Entry{{Op: oplog.OpCommand, NS: db + ".$cmd", UI: uuid, O: o}}
}

// cmdDoc builds a command document from key/value pairs (string, int32,
// bool, document values).
func cmdDoc(kv ...any) bsoncore.Document {
	idx, dst := bsoncore.AppendDocumentStart(nil)
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		switch v := kv[i+1].(type) {
		case string:
			dst = bsoncore.AppendStringElement(dst, k, v)
		case int32:
			dst = bsoncore.AppendInt32Element(dst, k, v)
		case int64:
			dst = bsoncore.AppendInt64Element(dst, k, v)
		case bool:
			dst = bsoncore.AppendBooleanElement(dst, k, v)
		case bsoncore.Document:
			dst = bsoncore.AppendDocumentElement(dst, k, v)
		case bsoncore.Value:
			dst = bsoncore.AppendValueElement(dst, k, v)
		default:
			panic(fmt.Sprintf("cmdDoc: unsupported %T", v))
		}
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// createO is a create entry's o: the collection name, the _id index and
// the options it was created with.
func createO(coll string, options bsoncore.Document) bsoncore.Document {
	idx, dst := bsoncore.AppendDocumentStart(nil)
	dst = bsoncore.AppendStringElement(dst, "create", coll)
	if els, err := options.Elements(); err == nil {
		for _, el := range els {
			dst = append(dst, el...)
		}
	}
	dst = bsoncore.AppendDocumentElement(dst, "idIndex", cmdDoc("v", int32(2), "key", idKeyPattern, "name", "_id_"))
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// createIndexesO is a createIndexes entry's o: the collection and the
// index specification.
func createIndexesO(coll string, spec IndexSpec) bsoncore.Document {
	idx, dst := bsoncore.AppendDocumentStart(nil)
	dst = bsoncore.AppendStringElement(dst, "createIndexes", coll)
	if els, err := spec.Doc().Elements(); err == nil {
		for _, el := range els {
			dst = append(dst, el...)
		}
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}
