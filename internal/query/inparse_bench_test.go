package query

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// BenchmarkParseIn1M parses {arr: {$in: [0 .. 999999]}}, the 11 MB filter
// of issue 15 (it took 5.3 s through the server before the parse became
// linear): go test ./query -run '^$' -bench ParseIn1M -benchtime 5x
func BenchmarkParseIn1M(b *testing.B) {
	ab := bsoncore.NewArrayBuilder()
	for i := 0; i < 1_000_000; i++ {
		ab.AppendInt32(int32(i))
	}
	f := bsoncore.NewDocumentBuilder().AppendDocument("arr", bsoncore.NewDocumentBuilder().AppendArray("$in", ab.Build()).Build()).Build()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := Parse(f)
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Root().(*InNode).Values) != 1_000_000 {
			b.Fatal("values lost")
		}
	}
}
