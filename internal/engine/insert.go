package engine

import (
	"context"
	"errors"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// MaxDocumentSize is MongoDB's BSON document size limit.
const MaxDocumentSize = 16 * 1024 * 1024

// Insert inserts docs into db.coll, creating the collection if needed.
// Each document is atomic; ordered stops at the first failure.
func (e *Engine) Insert(ctx context.Context, db, coll string, docs []bsoncore.Document, opts WriteOptions) (InsertResult, error) {
	var res InsertResult
	e.db.BeginWrite(opts.Journal) // the durability wait gathers the commits of others (storage/sync.go)
	defer e.db.EndWrite(opts.Journal)
	if err := e.checkOpen(); err != nil {
		return res, err
	}
	if err := validateWrite(db, coll, opts); err != nil {
		return res, err
	}
	c, err := e.lockCollCtx(ctx, db, coll, true)
	if err != nil {
		return res, err
	}
	t := e.newWriteBatchCtx(WithBypassValidation(ctx, opts.BypassDocumentValidation), c)
	t.bulk = len(docs) >= bulkInsertMin && t.tx == nil && !t.c.Capped
	if t.bulk {
		if t.e.logged(t.c) {
			t.ops = takeBulkOps()
		}
		for _, d := range docs {
			t.bulkLeftBytes += len(d)
		}
		t.bulkLeftDocs = len(docs)
		t.b.Close()
		t.b = t.newBatch()
	}
	chk := opts.docChecks()
	for i, doc := range docs {
		// Interrupts and maxTimeMS are checked every 64 documents, as
		// mongod checks at intervals: an operation context past its
		// deadline reads the clock for each check.
		if i&63 == 0 {
			if err := ctx.Err(); err != nil {
				break
			}
		}
		if t.bulk {
			t.bulkLeftBytes -= len(doc)
			t.bulkLeftDocs--
		}
		if t.rec != nil && t.rec.Begin(i) {
			continue // ran in an earlier attempt of this retryable write
		}
		prepared, werr := prepareInsert(doc, chk)
		if werr == nil {
			var err error
			if t.c.Capped {
				_, err = t.cappedInsert(prepared)
			} else {
				_, err = t.insert(prepared)
			}
			if err != nil {
				var me *errs.Error
				if !errors.As(err, &me) {
					t.abort()
					c.state.mu.Unlock()
					return res, err
				}
				werr = me
			}
		}
		if werr != nil {
			res.WriteErrors = append(res.WriteErrors, WriteError{Index: i, Err: werr})
			if opts.Ordered {
				break
			}
			continue
		}
		res.N++
		if t.full() {
			if err := t.commit(); err != nil {
				t.abort()
				c.state.mu.Unlock()
				return InsertResult{}, err
			}
		}
	}
	t.final = true
	err = t.commit()
	t.abort()
	c.state.mu.Unlock()
	lastSeq, inTxn := t.lastSeq, t.tx != nil
	t.recycle()
	if err != nil {
		return InsertResult{}, err
	}
	if err := e.waitDurable(ctx, lastSeq, opts.Journal); err != nil {
		return res, err
	}
	// A transaction's writes and oplog entries wait for its commit.
	res.Copied = !inTxn
	return res, nil
}

// docChecks returns what prepareInsert checks of the documents of an
// insert with options o. Lode's own documents (System: query statistics
// of a deep query, a profile entry) are not held to the user storage
// depth.
func (o WriteOptions) docChecks() docChecks {
	var chk docChecks
	if !o.ShallowDocs && !o.System {
		chk |= checkDepth
	}
	if o.ValidBSON {
		chk |= knownValid
		if o.IDFirst {
			chk |= knownIDFirst
		}
	}
	return chk
}

// docChecks say what prepareInsert and ensureID may skip, from what the
// caller knows of a document.
type docChecks uint8

const (
	// checkDepth applies the storage depth limit (callers that know the
	// documents are shallow leave it out).
	checkDepth docChecks = 1 << iota
	// knownValid: the document was validated whole, recursively (the
	// wire layer's pass); its elements are not validated again.
	knownValid
	// knownIDFirst: with knownValid, the document's first field is _id
	// and no other top-level field is named _id (the wire layer's pass,
	// wire.Sequence.IDFirst); it is not searched for its _id.
	knownIDFirst
)

// prepareInsert validates doc for insertion and returns it with _id first
// (generating an ObjectId when it has none; a rewritten document is a
// fresh slice), checking what chk says.
func prepareInsert(doc bsoncore.Document, chk docChecks) (bsoncore.Document, *errs.Error) {
	out, werr := ensureID(doc, chk)
	if werr != nil {
		return nil, werr
	}
	// MongoDB 7.0 (fixDocumentForInsert): BadValue, reported as a write error.
	if len(out) > MaxDocumentSize {
		return nil, errs.New(errs.BadValue, "object to insert too large. size in bytes: %d, max size: %d", len(out), MaxDocumentSize)
	}
	return out, nil
}

// ensureID returns doc with _id first, adding an ObjectId when missing,
// and rejects _id values MongoDB does not store and a second _id field
// (fixDocumentForInsert). With checkDepth in chk it also rejects a
// document nested deeper than MaxStorageDepth, with mongod's insert-time
// error (update paths check their results with checkUpdated). It does not
// check the size: callers apply the limit with their own error. With
// knownValid doc is known to be well-formed BSON throughout, and its
// elements are not validated again; with knownIDFirst as well, only its
// first field, the _id, is read.
func ensureID(doc bsoncore.Document, chk docChecks) (bsoncore.Document, *errs.Error) {
	if len(doc) < 5 {
		return nil, errs.New(errs.InvalidBSON, "invalid document")
	}
	valid := chk&knownValid != 0
	// One pass that allocates nothing (validating the elements unless
	// valid); the element slice is
	// built only to move a late _id to the front. The depth check rides
	// on it and reads nothing below a top-level field too small to hold
	// MaxStorageDepth levels (tooDeep), which is every field of an
	// ordinary document. mongod checks the depth before the _id, so an
	// _id error waits for the end of the pass.
	deep := chk&checkDepth != 0 && len(doc) >= minNestBytes*(MaxStorageDepth+1)
	idPos, i := -1, 0
	var idErr *errs.Error
	n32, _, ok := bsoncore.ReadLength(doc)
	n := int(n32)
	if !ok || n < 5 || n > len(doc) || doc[n-1] != 0 {
		return nil, errs.New(errs.InvalidBSON, "invalid BSON document: %v", bsonutil.ErrMalformed)
	}
	body := doc[:n-1]
	if valid && chk&knownIDFirst != 0 && !deep {
		if at, ok := bsonutil.ElementAt(body, 4); ok && string(body[at.Name:at.NameEnd]) == "_id" {
			if err := validateID(at.Value(body)); err != nil {
				return nil, err
			}
			return doc, nil
		}
	}
	for p := 4; p < len(body); i++ {
		at, ok := bsonutil.ElementAt(body, p)
		if !ok {
			return nil, errs.New(errs.InvalidBSON, "invalid BSON document: %v", bsonutil.ErrMalformed)
		}
		el := bsoncore.Element(body[p:at.End])
		p = at.End
		if !valid {
			if err := el.Validate(); err != nil {
				return nil, errs.New(errs.InvalidBSON, "invalid BSON document: %v", err)
			}
		}
		if string(body[at.Name:at.NameEnd]) == "_id" {
			if idPos >= 0 {
				if idErr == nil {
					idErr = errs.New(errs.BadValue, "can't have multiple _id fields in one document")
				}
			} else {
				idPos = i
				if err := validateID(at.Value(body)); err != nil {
					idErr = err
				}
			}
		}
		if deep && (at.Type == bsoncore.TypeEmbeddedDocument || at.Type == bsoncore.TypeArray) {
			if tooDeep(at.Value(body).Data, 2) {
				return nil, insertDepthErr()
			}
		}
	}
	if idErr != nil {
		return nil, idErr
	}
	var elems []bsoncore.Element
	if idPos > 0 {
		elems, _ = doc.Elements()
	}
	out := doc
	switch {
	case idPos == 0:
	case idPos > 0:
		out = make(bsoncore.Document, 0, len(doc))
		idx, b := bsoncore.AppendDocumentStart(out)
		b = append(b, elems[idPos]...)
		for i, el := range elems {
			if i != idPos {
				b = append(b, el...)
			}
		}
		out, _ = bsoncore.AppendDocumentEnd(b, idx)
	default:
		out = make(bsoncore.Document, 0, len(doc)+17)
		idx, b := bsoncore.AppendDocumentStart(out)
		b = bsoncore.AppendObjectIDElement(b, "_id", bson.NewObjectID())
		b = append(b, doc[4:len(doc)-1]...)
		out, _ = bsoncore.AppendDocumentEnd(b, idx)
	}
	return out, nil
}

// validateID rejects _id values MongoDB does not store.
func validateID(v bsoncore.Value) *errs.Error {
	switch v.Type {
	case bsoncore.TypeArray:
		return errs.New(errs.BadValue, "can't use an array for _id")
	case bsoncore.TypeRegex:
		return errs.New(errs.BadValue, "can't use a regex for _id")
	case bsoncore.TypeUndefined:
		return errs.New(errs.BadValue, "can't use a undefined for _id")
	case bsoncore.TypeEmbeddedDocument:
		// mongod 5.0+ allows $-prefixed field names in documents, but
		// not inside _id.
		elems, _ := v.Document().Elements()
		for _, el := range elems {
			if k := el.Key(); strings.HasPrefix(k, "$") {
				return errs.New(errs.DollarPrefixedFieldName, "_id fields may not contain '$'-prefixed fields: %s is not valid for storage.", k)
			}
		}
	}
	return nil
}
