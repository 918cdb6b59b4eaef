package oplog

import (
	"bytes"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// TestStoredFormRebuildsMongodsEntry: every kind of plain entry stored in
// the compact form reads back byte for byte as the BSON document mongod's
// field order gives (appendDoc), and the log counts that document's
// length; a transaction's applyOps entry and an entry an older version
// stored in full read back as stored.
func TestStoredFormRebuildsMongodsEntry(t *testing.T) {
	ui := [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	doc := bsoncore.NewDocumentBuilder().AppendInt32("_id", 7).AppendString("path", "/index.html").Build()
	id := bsoncore.NewDocumentBuilder().AppendInt32("_id", 7).Build()
	ts := TS(uint64(1795930695)<<32 | 42)
	for _, c := range []struct {
		name string
		e    Entry
		wall time.Time
	}{
		{"insert", Entry{Op: OpInsert, NS: "peer.events", UI: &ui, O: doc}, time.UnixMilli(1795930695123)},
		{"update", Entry{Op: OpUpdate, NS: "peer.events", UI: &ui, O: doc, O2: id}, time.UnixMilli(1795930695999)},
		{"delete", Entry{Op: OpDelete, NS: "db.c", UI: &ui, O: id}, time.UnixMilli(1795930695000)},
		{"command", Entry{Op: OpCommand, NS: "db.$cmd", O: bsoncore.NewDocumentBuilder().AppendString("create", "c").Build()}, time.UnixMilli(1795930694500)},
		{"noop, wall ahead of ts", Entry{Op: OpNoop, NS: "", O: bsoncore.NewDocumentBuilder().AppendString("msg", "x").Build()}, time.UnixMilli(1795930697001)},
		{"applyOps", Entry{Op: OpCommand, NS: "admin.$cmd", O: doc, Txn: &TxnInfo{LSID: id, TxnNumber: 3}}, time.UnixMilli(1795930695123)},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := c.e.appendDoc(nil, ts, c.wall)
			stored, n := c.e.appendStored(nil, ts, c.wall)
			if n != int64(len(want)) || storedLen(stored) != n {
				t.Errorf("counted %d and %d bytes, the document has %d", n, storedLen(stored), len(want))
			}
			if c.e.Txn == nil && len(stored) >= len(want)-50 {
				t.Errorf("stored %d bytes for a %d-byte document", len(stored), len(want))
			}
			got, err := expand([]byte("reused buffer"), stored, ts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("read back\n%v\nwant\n%v", bsoncore.Document(got), bsoncore.Document(want))
			}
			// An entry stored in full (an older version's) reads as is.
			if old, err := expand(nil, want, ts); err != nil || !bytes.Equal(old, want) {
				t.Errorf("full entry read back as %v, %v", bsoncore.Document(old), err)
			}
		})
	}
	if _, err := expand(nil, []byte{0, 0, 0, 0, 1, 'i', 0, 0}, ts); err == nil {
		t.Error("a truncated compact entry was read")
	}
}
