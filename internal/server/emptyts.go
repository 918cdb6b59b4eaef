package server

import (
	"encoding/binary"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
)

// replaceEmptyTimestamps gives every top-level Timestamp(0, 0) of the
// documents to insert, other than _id, a fresh timestamp of the cluster
// clock, as mongod does on insert unless the command carries
// bypassEmptyTsReplacement: true (mongoimport and mongorestore send it, to
// keep the values they read). Nested values are kept. Documents without
// such a field are returned as they are; the slice is copied only when
// one is rewritten.
func (s *Server) replaceEmptyTimestamps(docs []bsoncore.Document) []bsoncore.Document {
	out, copied := docs, false
	for i, d := range docs {
		if !hasEmptyTimestamp(d) {
			continue
		}
		if !copied {
			out, copied = append([]bsoncore.Document(nil), docs...), true
		}
		out[i] = s.fillEmptyTimestamps(d)
	}
	return out
}

// isEmptyTimestamp reports whether el is a non-_id Timestamp(0, 0).
func isEmptyTimestamp(el bsoncore.Element) bool {
	v := el.Value()
	if v.Type != bsoncore.TypeTimestamp || el.Key() == "_id" {
		return false
	}
	t, i := v.Timestamp()
	return t == 0 && i == 0
}

// hasEmptyTimestamp reports whether d has a top-level non-_id
// Timestamp(0, 0). It walks d in place: every inserted document passes
// here.
func hasEmptyTimestamp(d bsoncore.Document) bool {
	if len(d) < 5 {
		return false // the insert reports the invalid document
	}
	body := d[:len(d)-1]
	for i := 4; i < len(body); {
		el, ok := bsonutil.ElementAt(body, i)
		if !ok {
			return false // the insert reports the invalid document
		}
		if el.Type == bsoncore.TypeTimestamp && string(body[el.Name:el.NameEnd]) != "_id" &&
			binary.LittleEndian.Uint64(body[el.NameEnd+1:]) == 0 {
			return true
		}
		i = el.End
	}
	return false
}

// fillEmptyTimestamps rewrites d with each empty timestamp replaced by
// its own tick of the clock.
func (s *Server) fillEmptyTimestamps(d bsoncore.Document) bsoncore.Document {
	elems, _ := d.Elements()
	idx, b := bsoncore.AppendDocumentStart(make([]byte, 0, len(d)))
	for _, el := range elems {
		if isEmptyTimestamp(el) {
			ts := s.eng.Clock().Now()
			b = bsoncore.AppendTimestampElement(b, el.Key(), ts.Sec(), ts.Inc())
			continue
		}
		b = append(b, el...)
	}
	b, _ = bsoncore.AppendDocumentEnd(b, idx)
	return b
}

// replaceEmptyTimestampsInReplacement is replaceEmptyTimestamps for an
// update's modification (update's u, findAndModify's update): mongod fills
// the empty timestamps of a replacement document, and leaves those an
// update operator ($set) or a pipeline writes as they are.
func (s *Server) replaceEmptyTimestampsInReplacement(u bsoncore.Value) bsoncore.Value {
	d, ok := u.DocumentOK()
	if !ok || !hasEmptyTimestamp(d) {
		return u
	}
	if el, err := d.IndexErr(0); err == nil && strings.HasPrefix(el.Key(), "$") {
		return u
	}
	return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: s.fillEmptyTimestamps(d)}
}

// bypassEmptyTs reads a command's bypassEmptyTsReplacement (false when
// absent). The command's parser has checked its type.
func bypassEmptyTs(req *Request) bool {
	v, err := req.Cmd.LookupErr("bypassEmptyTsReplacement")
	if err != nil {
		return false
	}
	b, _ := argBool(req.Name, "bypassEmptyTsReplacement", v)
	return b
}
