package update

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// benchDoc is a document of about 1 KB with 30 fields.
func benchDoc() bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().AppendInt32("_id", 1)
	for i := 0; i < 30; i++ {
		b.AppendString(fmt.Sprintf("field%02d", i), "some value of twenty")
	}
	b.AppendInt32("counter", 7)
	return b.Build()
}

func benchApply(b *testing.B, spec string) {
	doc := benchDoc()
	u, err := Parse(d(b, spec), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := u.Apply(doc, ApplyOptions{Pos: -1}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApplySet(b *testing.B) { benchApply(b, `{"$set": {"field15": "another value"}}`) }

func BenchmarkApplyInc(b *testing.B) { benchApply(b, `{"$inc": {"counter": 1}}`) }
