package agg_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
)

// FuzzParse feeds arbitrary stage documents to the pipeline parser, which
// must return an error or a pipeline, never panic.
func FuzzParse(f *testing.F) {
	for _, p := range []string{
		`[{"$match":{"a":1}},{"$group":{"_id":"$a","n":{"$sum":1}}}]`,
		`[{"$unwind":{"path":"$a","includeArrayIndex":"i"}},{"$sort":{"a":-1}},{"$limit":3}]`,
		`[{"$lookup":{"from":"x","let":{"v":"$a"},"pipeline":[{"$match":{"$expr":{"$eq":["$b","$$v"]}}}],"as":"r"}}]`,
		`[{"$facet":{"a":[{"$count":"n"}]}},{"$project":{"a":1,"b":{"$size":"$a"}}}]`,
		`[{"$bucket":{"groupBy":"$p","boundaries":[0,10],"default":"x"}}]`,
	} {
		for _, d := range parseDocs(f, p) {
			f.Add([]byte(d))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := bsoncore.Document(data)
		if d.Validate() != nil {
			return
		}
		_, _ = agg.Parse([]bsoncore.Document{d}, &agg.ParseContext{DB: "db", Coll: "c"})
	})
}
