package server

import (
	"encoding/binary"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// DefaultReplSetName is the replica-set name Lode reports unless
// configured otherwise.
const DefaultReplSetName = "lode"

// electionID is the constant electionId of Lode's single, permanent
// primary (term 1).
var electionID = bson.ObjectID{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1}

// replSet reports whether Lode presents itself as a replica set.
func (s *Server) replSet() bool { return !s.cfg.Standalone }

func (s *Server) replSetName() string {
	if s.cfg.ReplSetName != "" {
		return s.cfg.ReplSetName
	}
	return DefaultReplSetName
}

// advertiseAddr is the member's host:port as hello reports it.
func (s *Server) advertiseAddr(req *Request) string {
	if s.cfg.AdvertiseAddr != "" {
		return s.cfg.AdvertiseAddr
	}
	if req != nil && req.conn != nil {
		return req.conn.nc.LocalAddr().String()
	}
	return "127.0.0.1:27017"
}

// appendReplSetHello adds the replica-set fields of hello.
func (s *Server) appendReplSetHello(b *bsoncore.DocumentBuilder, req *Request) {
	me := s.advertiseAddr(req)
	ts := s.eng.Clock().Last()
	t, i := ts.Sec(), ts.Inc()
	opTime := bsoncore.NewDocumentBuilder().AppendTimestamp("ts", t, i).AppendInt64("t", 1).Build()
	date := int64(t) * 1000
	b.AppendArray("hosts", bsoncore.NewArrayBuilder().AppendString(me).Build()).
		AppendString("setName", s.replSetName()).
		AppendInt32("setVersion", 1).
		AppendBoolean("secondary", false).
		AppendString("primary", me).
		AppendString("me", me).
		AppendObjectID("electionId", electionID).
		AppendDocument("lastWrite", bsoncore.NewDocumentBuilder().
			AppendDocument("opTime", opTime).
			AppendDateTime("lastWriteDate", date).
			AppendDocument("majorityOpTime", opTime).
			AppendDateTime("majorityWriteDate", date).
			Build())
}

// clusterTimeFields renders operationTime and $clusterTime for a reply:
// the newest timestamp the oplog's clock issued, which is at or after
// the command's own writes, so a causally consistent read that waits for
// it (afterClusterTime) sees them.
func (s *Server) clusterTimeFields() bsoncore.Document {
	out := make([]byte, 4, clusterTimeLen+5)
	out = append(s.appendClusterTime(out), 0)
	bsoncore.UpdateLength(out, 0, int32(len(out)))
	return out
}

// clusterTimeLen is the length of the elements appendClusterTime writes.
const clusterTimeLen = (1 + len("operationTime") + 1 + 8) +
	(1 + len("$clusterTime") + 1 + 4 +
		(1 + len("clusterTime") + 1 + 8) +
		(1 + len("signature") + 1 + 4 +
			(1 + len("hash") + 1 + 4 + 1 + 20) +
			(1 + len("keyId") + 1 + 8) + 1) + 1)

// zeroHash is the signature hash of an unsigned $clusterTime.
var zeroHash [20]byte

// appendClusterTime appends the elements operationTime and $clusterTime
// (clusterTimeFields) to the document under construction in dst: with
// clusterTimeLen bytes of room it does not allocate. Every reply carries
// them, so they are copied from clusterTimeTemplate and only the two
// timestamps are written.
func (s *Server) appendClusterTime(dst []byte) []byte {
	ts := s.eng.Clock().Last()
	return appendClusterTimeAt(dst, ts.Sec(), ts.Inc())
}

// appendClusterTimeAt appends the elements for the timestamp (t, i).
func appendClusterTimeAt(dst []byte, t, i uint32) []byte {
	n := len(dst)
	dst = append(dst, clusterTimeTemplate[:]...)
	putTimestamp(dst[n+opTimeAt:], t, i)
	putTimestamp(dst[n+clusterTimeAt:], t, i)
	return dst
}

// buildClusterTime appends the elements appendClusterTime writes, for the
// timestamp (t, i), one by one.
func buildClusterTime(dst []byte, t, i uint32) []byte {
	dst = bsoncore.AppendTimestampElement(dst, "operationTime", t, i)
	ct, dst := bsoncore.AppendDocumentElementStart(dst, "$clusterTime")
	dst = bsoncore.AppendTimestampElement(dst, "clusterTime", t, i)
	sig, dst := bsoncore.AppendDocumentElementStart(dst, "signature")
	dst = bsoncore.AppendBinaryElement(dst, "hash", 0, zeroHash[:])
	dst = bsoncore.AppendInt64Element(dst, "keyId", 0)
	dst, _ = bsoncore.AppendDocumentEnd(dst, sig)
	dst, _ = bsoncore.AppendDocumentEnd(dst, ct)
	return dst
}

// clusterTimeTemplate is buildClusterTime's output for the timestamp 0;
// opTimeAt and clusterTimeAt are where its two timestamp values sit.
var clusterTimeTemplate = [clusterTimeLen]byte(buildClusterTime(nil, 0, 0))

const (
	opTimeAt      = 1 + len("operationTime") + 1
	clusterTimeAt = opTimeAt + 8 + 1 + len("$clusterTime") + 1 + 4 + 1 + len("clusterTime") + 1
)

// putTimestamp writes a BSON timestamp value (increment, then seconds,
// little-endian) at the start of b.
func putTimestamp(b []byte, t, i uint32) {
	binary.LittleEndian.PutUint32(b, i)
	binary.LittleEndian.PutUint32(b[4:], t)
}

// appendFields returns body with the elements of extra appended.
func appendFields(body, extra bsoncore.Document) bsoncore.Document {
	if len(body) == 0 {
		body = bsoncore.NewDocumentBuilder().Build()
	}
	out := make([]byte, 0, len(body)+len(extra))
	out = append(out, body[:len(body)-1]...)
	out = append(out, extra[4:len(extra)-1]...)
	out = append(out, 0)
	bsoncore.UpdateLength(out, 0, int32(len(out)))
	return out
}
