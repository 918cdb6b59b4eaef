package engine

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// BenchmarkPrepareInsert measures the per-document validation of an
// insert (_id placement and checks, the size, nesting depth and duplicate
// _id limits) on a typical small document and on a 4 KB one with nested
// documents and arrays: "checked" walks the document for its depth (an
// insert from inside Lode), "shallow" relies on the wire layer's depth,
// "shallow-valid" on its validation too, and "shallow-valid-idfirst" on
// its finding the _id first and once (an insert command's documents
// sequence, the server's case).
func BenchmarkPrepareInsert(b *testing.B) {
	small, _ := bson.Marshal(bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "name", Value: "alice"}, {Key: "age", Value: 31},
		{Key: "tags", Value: bson.A{"a", "b", "c"}}, {Key: "addr", Value: bson.D{{Key: "city", Value: "x"}, {Key: "zip", Value: 12345}}},
		{Key: "score", Value: 1.5}, {Key: "active", Value: true}})
	items := bson.A{}
	for i := 0; i < 40; i++ {
		items = append(items, bson.D{{Key: "sku", Value: i}, {Key: "qty", Value: i * 2}, {Key: "meta", Value: bson.D{{Key: "w", Value: strings.Repeat("w", 40)}}}})
	}
	large, _ := bson.Marshal(bson.D{{Key: "_id", Value: 7}, {Key: "items", Value: items}, {Key: "note", Value: strings.Repeat("n", 200)}})
	for _, c := range []struct {
		name string
		doc  bsoncore.Document
	}{{"small", small}, {"large", large}} {
		for _, v := range []struct {
			name string
			chk  docChecks
		}{
			{"checked", checkDepth},
			{"shallow", 0},
			{"shallow-valid", knownValid},
			{"shallow-valid-idfirst", knownValid | knownIDFirst},
		} {
			b.Run(c.name+"/"+v.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(c.doc)))
				for i := 0; i < b.N; i++ {
					if _, err := prepareInsert(c.doc, v.chk); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
