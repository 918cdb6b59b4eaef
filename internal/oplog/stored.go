package oplog

import (
	"encoding/binary"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The stored form of an entry. A plain entry (not a transaction's
// applyOps) is stored without what every entry repeats or what its key
// already holds: field names, ts (the key), t and v (constants), and
// wall as a small offset from ts's second. Readers see mongod's BSON
// document, rebuilt by expand; the log's size counts that document's
// length, as mongod's oplog size does.
//
//	magic [4]byte{0, 0, 0, 0} (no BSON document starts so: its length is at least 5)
//	version byte (1)
//	op byte ('i', 'u', 'd', 'c' or 'n')
//	flags byte (flagUI, flagO2)
//	wall: zigzag varint, milliseconds after ts's second
//	ns: uvarint length, bytes
//	ui: 16 bytes when flagUI
//	o: a BSON document
//	o2: a BSON document when flagO2
//
// Entries written in full BSON (by older versions, and applyOps entries)
// are read as they are.
const (
	storedVersion = 1
	flagUI        = 1 << 0
	flagO2        = 1 << 1
)

var errBadStored = errors.New("oplog: malformed stored entry")

// compactable reports whether e is stored in the compact form: a plain
// entry whose op is one byte.
func (e *Entry) compactable() bool { return e.Txn == nil && len(e.Op) == 1 }

// appendStored appends e's stored form at ts; n is the length of the
// BSON document readers will see.
func (e *Entry) appendStored(dst []byte, ts TS, wall time.Time) (out []byte, n int64) {
	if !e.compactable() {
		start := len(dst)
		dst = e.appendDoc(dst, ts, wall)
		return dst, int64(len(dst) - start)
	}
	flags := byte(0)
	if e.UI != nil {
		flags |= flagUI
	}
	if e.O2 != nil {
		flags |= flagO2
	}
	dst = append(dst, 0, 0, 0, 0, storedVersion, e.Op[0], flags)
	dst = binary.AppendVarint(dst, wall.UnixMilli()-int64(ts.Sec())*1000)
	dst = binary.AppendUvarint(dst, uint64(len(e.NS)))
	dst = append(dst, e.NS...)
	if e.UI != nil {
		dst = append(dst, e.UI[:]...)
	}
	dst = append(dst, e.O...)
	if e.O2 != nil {
		dst = append(dst, e.O2...)
	}
	return dst, fullLen(len(e.NS), len(e.O), len(e.O2), e.UI != nil, e.O2 != nil)
}

// fullLen is the length of a plain entry's BSON document (appendDoc).
func fullLen(nsLen, oLen, o2Len int, ui, o2 bool) int64 {
	elem := func(name string, payload int) int { return 1 + len(name) + 1 + payload }
	n := 4 + elem("op", 4+1+1) + elem("ns", 4+nsLen+1) + elem("o", oLen) +
		elem("ts", 8) + elem("t", 8) + elem("v", 4) + elem("wall", 8) + 1
	if ui {
		n += elem("ui", 4+1+16)
	}
	if o2 {
		n += elem("o2", o2Len)
	}
	return int64(n)
}

// isCompact reports whether v is a compact stored entry.
func isCompact(v []byte) bool {
	return len(v) >= 5 && v[0] == 0 && v[1] == 0 && v[2] == 0 && v[3] == 0
}

// compactParts are the fields of a compact stored entry.
type compactParts struct {
	op     byte
	wallMs int64
	ns     []byte
	ui     []byte // nil: none
	o, o2  bsoncore.Document
}

func parseCompact(v []byte, ts TS) (p compactParts, err error) {
	if len(v) < 7 || v[4] != storedVersion {
		return p, errBadStored
	}
	p.op = v[5]
	flags := v[6]
	var rest []byte
	if p.wallMs, p.ns, p.ui, rest, err = parseHeader(v[7:], flags, ts); err != nil {
		return p, err
	}
	var ok bool
	if p.o, rest, ok = bsoncore.ReadDocument(rest); !ok {
		return p, errBadStored
	}
	if flags&flagO2 != 0 {
		if p.o2, rest, ok = bsoncore.ReadDocument(rest); !ok {
			return p, errBadStored
		}
	}
	if len(rest) != 0 {
		return p, errBadStored
	}
	return p, nil
}

// parseHeader reads what a compact entry and a run store after their
// flags: the wall time, the namespace and, with flagUI, the UUID.
func parseHeader(v []byte, flags byte, ts TS) (wallMs int64, ns, ui, rest []byte, err error) {
	off, k := binary.Varint(v)
	if k <= 0 {
		return 0, nil, nil, nil, errBadStored
	}
	wallMs = int64(ts.Sec())*1000 + off
	rest = v[k:]
	nsLen, k := binary.Uvarint(rest)
	if k <= 0 || uint64(len(rest)-k) < nsLen {
		return 0, nil, nil, nil, errBadStored
	}
	ns, rest = rest[k:k+int(nsLen)], rest[k+int(nsLen):]
	if flags&flagUI != 0 {
		if len(rest) < 16 {
			return 0, nil, nil, nil, errBadStored
		}
		ui, rest = rest[:16], rest[16:]
	}
	return wallMs, ns, ui, rest, nil
}

// expand returns the BSON document of the entry stored as v at ts: v
// itself when it is stored in full, else the document rebuilt into
// dst's space (appendDoc's field order).
func expand(dst, v []byte, ts TS) (bsoncore.Document, error) {
	if !isCompact(v) {
		return v, nil
	}
	p, err := parseCompact(v, ts)
	if err != nil {
		return nil, err
	}
	return p.appendDoc(dst[:0], ts), nil
}

// appendDoc appends the plain entry p at ts as mongod's BSON document
// (Entry.appendDoc's field order).
func (p *compactParts) appendDoc(dst []byte, ts TS) bsoncore.Document {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	dst = bsoncore.AppendStringElement(dst, "op", string(p.op))
	dst = appendStringBytesElement(dst, "ns", p.ns)
	if p.ui != nil {
		dst = bsoncore.AppendBinaryElement(dst, "ui", 4, p.ui)
	}
	dst = bsoncore.AppendDocumentElement(dst, "o", p.o)
	if p.o2 != nil {
		dst = bsoncore.AppendDocumentElement(dst, "o2", p.o2)
	}
	dst = bsoncore.AppendTimestampElement(dst, "ts", ts.Sec(), ts.Inc())
	dst = bsoncore.AppendInt64Element(dst, "t", Term)
	dst = bsoncore.AppendInt32Element(dst, "v", 2)
	dst = bsoncore.AppendDateTimeElement(dst, "wall", p.wallMs)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// appendStringBytesElement is bsoncore.AppendStringElement for a value
// held as bytes.
func appendStringBytesElement(dst []byte, key string, val []byte) []byte {
	dst = bsoncore.AppendHeader(dst, bsoncore.TypeString, key)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(val)+1))
	dst = append(dst, val...)
	return append(dst, 0)
}

// storedLen is the length of the BSON document readers see for the
// entry stored as v (what the log's size counts).
func storedLen(v []byte) int64 {
	if !isCompact(v) {
		return int64(len(v))
	}
	p, err := parseCompact(v, 0)
	if err != nil {
		return int64(len(v))
	}
	return fullLen(len(p.ns), len(p.o), len(p.o2), p.ui != nil, p.o2 != nil)
}
