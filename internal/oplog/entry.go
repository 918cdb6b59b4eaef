package oplog

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Operation kinds, as mongod's op field.
const (
	OpInsert  = "i"
	OpUpdate  = "u"
	OpDelete  = "d"
	OpCommand = "c"
	OpNoop    = "n"
)

// Entry is one change before it has a timestamp. Its documents must stay
// valid until the batch that carries it has been staged.
type Entry struct {
	Op string
	NS string    // "db.coll", or "db.$cmd" for a command
	UI *[16]byte // the collection's UUID, when the change has one
	O  bsoncore.Document
	O2 bsoncore.Document // nil: none (an update's {_id})
	// Txn is set on a transaction's applyOps entry.
	Txn *TxnInfo
	// Images are the documents before and after the change, kept beside
	// the entry for change streams' fullDocumentBeforeChange and
	// fullDocument: whenAvailable (collections with
	// changeStreamPreAndPostImages).
	Images []Image
}

// Image is the pre- and post-image of operation Op of an entry (its
// index in applyOps; 0 for a plain entry). Either may be nil.
type Image struct {
	Op        uint32
	Pre, Post bsoncore.Document
}

func (im *Image) doc() bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	if im.Pre != nil {
		b.AppendDocument("pre", im.Pre)
	}
	if im.Post != nil {
		b.AppendDocument("post", im.Post)
	}
	return b.Build()
}

// TxnInfo identifies the transaction an applyOps entry commits.
type TxnInfo struct {
	LSID      bsoncore.Document
	TxnNumber int64
}

// appendDoc appends the entry at ts with wall time wall, fields in
// mongod's order.
func (e *Entry) appendDoc(dst []byte, ts TS, wall time.Time) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	if e.Txn != nil {
		dst = bsoncore.AppendDocumentElement(dst, "lsid", e.Txn.LSID)
		dst = bsoncore.AppendInt64Element(dst, "txnNumber", e.Txn.TxnNumber)
	}
	dst = e.appendBody(dst)
	dst = bsoncore.AppendTimestampElement(dst, "ts", ts.Sec(), ts.Inc())
	dst = bsoncore.AppendInt64Element(dst, "t", Term)
	dst = bsoncore.AppendInt32Element(dst, "v", 2)
	dst = bsoncore.AppendDateTimeElement(dst, "wall", wall.UnixMilli())
	if e.Txn != nil {
		pidx, d := bsoncore.AppendDocumentElementStart(dst, "prevOpTime")
		d = bsoncore.AppendTimestampElement(d, "ts", 0, 0)
		d = bsoncore.AppendInt64Element(d, "t", -1)
		dst, _ = bsoncore.AppendDocumentEnd(d, pidx)
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// appendBody appends op, ns, ui, o and o2: the fields an entry shares
// with an operation inside applyOps.
func (e *Entry) appendBody(dst []byte) []byte {
	dst = bsoncore.AppendStringElement(dst, "op", e.Op)
	dst = bsoncore.AppendStringElement(dst, "ns", e.NS)
	if e.UI != nil {
		dst = bsoncore.AppendBinaryElement(dst, "ui", 4, e.UI[:])
	}
	dst = bsoncore.AppendDocumentElement(dst, "o", e.O)
	if e.O2 != nil {
		dst = bsoncore.AppendDocumentElement(dst, "o2", e.O2)
	}
	return dst
}

// AppendOp appends e as one operation of an applyOps array: its body
// without timestamp fields.
func (e *Entry) AppendOp(dst []byte, key string) []byte {
	idx, dst := bsoncore.AppendDocumentElementStart(dst, key)
	dst = e.appendBody(dst)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// Term is the replication term of every entry: Lode is a one-member
// replica set whose primary never changes.
const Term = 1
