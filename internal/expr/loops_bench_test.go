package expr

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// benchLoops evaluates expressions whose time is spent in loops over a
// 1000-element array ($range, $map, $filter, $reduce, $concatArrays);
// setup prepares the bindings (a context for the interrupt checks).
func benchLoops(b *testing.B, setup func(*Vars)) {
	doc, _ := bson.Marshal(bson.D{{Key: "_id", Value: 1}})
	for _, c := range []struct{ name, src string }{
		{"reduce", `{"$reduce":{"input":{"$range":[0,1000]},"initialValue":0,"in":{"$add":["$$value","$$this"]}}}`},
		{"map", `{"$map":{"input":{"$range":[0,1000]},"in":{"$multiply":["$$this",2]}}}`},
		{"filter", `{"$filter":{"input":{"$range":[0,1000]},"cond":{"$gt":["$$this",500]}}}`},
		{"concatArrays", `{"$concatArrays":[{"$range":[0,1000]},{"$range":[0,1000]}]}`},
	} {
		var raw bson.Raw
		if err := bson.UnmarshalExtJSON([]byte(`{"e":`+c.src+`}`), false, &raw); err != nil {
			b.Fatal(err)
		}
		v := raw.Lookup("e")
		e, err := Parse(bsoncore.Value{Type: bsoncore.Type(v.Type), Data: v.Value}, NewParseContext())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			vars := NewVars(time.Now())
			setup(vars)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := e.Eval(doc, vars); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkExprLoops(b *testing.B) { benchLoops(b, func(*Vars) {}) }
