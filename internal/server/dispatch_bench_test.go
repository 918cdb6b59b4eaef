package server

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// BenchmarkDispatch is the dispatcher's own cost for a ping, a find on
// an empty collection and a one-document insert, in process: what the
// per-command trait lookups add to every request.
func BenchmarkDispatch(b *testing.B) {
	s, _ := newBenchServer(b)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		cmd  bsoncore.Document
	}{
		{"ping", bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).AppendString("$db", "admin").Build()},
		{"find", bsoncore.NewDocumentBuilder().AppendString("find", "c").AppendString("$db", "bench").Build()},
		{"insert", bsoncore.NewDocumentBuilder().AppendString("insert", "c").
			AppendArray("documents", bsoncore.NewArrayBuilder().AppendDocument(
				bsoncore.NewDocumentBuilder().AppendInt32("x", 1).Build()).Build()).
			AppendString("$db", "bench").Build()},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if r := s.dispatch(ctx, nil, c.cmd, false); r.Lookup("ok").Double() != 1 {
					b.Fatalf("%s: %v", c.name, r)
				}
			}
		})
	}
}
