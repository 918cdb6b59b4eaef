package wire

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// BenchmarkReadInsertMsg measures the decoding and validating pass of an
// insert of 1,000 event-like documents sent as a document sequence, as
// drivers send insertMany.
func BenchmarkReadInsertMsg(b *testing.B) {
	docs := make([]bsoncore.Document, 1000)
	for i := range docs {
		d, err := bson.Marshal(bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "host", Value: "web-07"},
			{Key: "time", Value: bson.DateTime(1700000000000 + int64(i))}, {Key: "path", Value: "/api/v1/items"},
			{Key: "status", Value: 200}, {Key: "bytes", Value: int64(5120)}, {Key: "user", Value: "u123"},
			{Key: "agent", Value: bson.D{{Key: "name", Value: "curl"}, {Key: "version", Value: "8.1"}}}})
		if err != nil {
			b.Fatal(err)
		}
		docs[i] = d
	}
	body := bsoncore.NewDocumentBuilder().AppendString("insert", "events").AppendString("$db", "t").Build()
	raw := AppendMsgSequences(nil, 1, 0, 0, body, Sequence{Identifier: "documents", Documents: docs})
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		m, err := read(raw)
		if err != nil || !m.(*Msg).Sequences[0].IDFirst {
			b.Fatal(err)
		}
	}
}
