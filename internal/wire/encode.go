package wire

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// AppendMsg appends an OP_MSG with a single kind-0 body section to dst and
// returns the extended slice. If flags has ChecksumPresent, the CRC-32C
// checksum is computed and appended.
func AppendMsg(dst []byte, requestID, responseTo int32, flags uint32, body bsoncore.Document) []byte {
	return AppendMsgSequences(dst, requestID, responseTo, flags, body)
}

// AppendMsgSequences appends an OP_MSG holding the kind-0 body and one
// kind-1 section per sequence (written before the body, as drivers do) to
// dst and returns the extended slice. ChecksumPresent in flags makes it
// append the CRC-32C checksum.
func AppendMsgSequences(dst []byte, requestID, responseTo int32, flags uint32,
	body bsoncore.Document, seqs ...Sequence) []byte {
	start := len(dst)
	dst = appendHeader(dst, requestID, responseTo, OpMsgCode)
	dst = binary.LittleEndian.AppendUint32(dst, flags)
	for _, s := range seqs {
		dst = append(dst, sectionDocSequence)
		sizeAt := len(dst)
		dst = binary.LittleEndian.AppendUint32(dst, 0)
		dst = append(dst, s.Identifier...)
		dst = append(dst, 0)
		for _, d := range s.Documents {
			dst = append(dst, d...)
		}
		binary.LittleEndian.PutUint32(dst[sizeAt:], uint32(len(dst)-sizeAt))
	}
	dst = append(dst, sectionBody)
	dst = append(dst, body...)
	if flags&ChecksumPresent != 0 {
		binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start+4))
		sum := crc32.Checksum(dst[start:], castagnoli)
		dst = binary.LittleEndian.AppendUint32(dst, sum)
	}
	return finishMessage(dst, start)
}

// AppendQuery appends a legacy OP_QUERY to dst and returns the extended
// slice; returnFieldsSelector may be nil. Servers never send it; it exists
// for tests and clients of the handshake.
func AppendQuery(dst []byte, requestID int32, flags int32, fullCollectionName string,
	numberToSkip, numberToReturn int32, query, returnFieldsSelector bsoncore.Document) []byte {
	start := len(dst)
	dst = appendHeader(dst, requestID, 0, OpQuery)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(flags))
	dst = append(dst, fullCollectionName...)
	dst = append(dst, 0)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(numberToSkip))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(numberToReturn))
	dst = append(dst, query...)
	dst = append(dst, returnFieldsSelector...)
	return finishMessage(dst, start)
}

// WriteMsg writes an OP_MSG with a single body section to w.
func WriteMsg(w io.Writer, requestID, responseTo int32, flags uint32, body bsoncore.Document) error {
	return writeAll(w, AppendMsg(nil, requestID, responseTo, flags, body))
}

// WriteReply writes an OP_REPLY to w.
func WriteReply(w io.Writer, requestID, responseTo int32, responseFlags int32, cursorID int64,
	startingFrom int32, docs ...bsoncore.Document) error {
	return writeAll(w, AppendReply(nil, requestID, responseTo, responseFlags, cursorID, startingFrom, docs...))
}

// writeAll writes b to w, wrapping errors with context.
func writeAll(w io.Writer, b []byte) error {
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("writing wire message: %w", err)
	}
	return nil
}
