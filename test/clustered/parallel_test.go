package clustered_test

import (
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// TestClusteredParallelGroup: a $group over a clustered collection large
// enough to be read in parallel parts (split on the cluster key) gives
// the groups, the counts and the first values of the same documents in
// a plain collection, whole and bounded on _id, with ObjectId and
// integer _ids.
func TestClusteredParallelGroup(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	const n = 30000
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, kind := range []string{"oid", "int"} {
		cl := createClustered(t, d, "c_"+kind, -1)
		plain := d.Collection("p_" + kind)
		docs := make([]any, n)
		for i := range docs {
			var id any = int32(i * 7)
			if kind == "oid" {
				id = bson.NewObjectIDFromTimestamp(base.Add(time.Duration(i) * time.Minute))
			}
			docs[i] = bson.D{{Key: "_id", Value: id}, {Key: "g", Value: fmt.Sprintf("g%02d", i%37)}, {Key: "v", Value: int32(i)}}
		}
		for _, c := range []*mongo.Collection{cl, plain} {
			testenv.InsertBatches(t, c, len(docs), func(i int) any { return docs[i] })
		}
		lo := docs[n/3].(bson.D)[0].Value
		for _, match := range []bson.D{{}, {{Key: "_id", Value: bson.D{{Key: "$gte", Value: lo}}}}} {
			pipe := mongo.Pipeline{
				{{Key: "$match", Value: match}},
				{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$g"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}},
					{Key: "first", Value: bson.D{{Key: "$first", Value: "$v"}}}, {Key: "last", Value: bson.D{{Key: "$last", Value: "$v"}}}}}},
				{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}},
			}
			run := func(c *mongo.Collection) string {
				cur, err := c.Aggregate(ctx, pipe)
				if err != nil {
					t.Fatal(err)
				}
				var out []struct {
					G           string `bson:"_id"`
					N           int32  `bson:"n"`
					First, Last int32
				}
				if err := cur.All(ctx, &out); err != nil {
					t.Fatal(err)
				}
				if len(out) != 37 {
					t.Fatalf("%d groups", len(out))
				}
				return fmt.Sprint(out)
			}
			if a, b := run(cl), run(plain); a != b {
				t.Fatalf("%s, $match %v: clustered %s\nplain %s", kind, match, a, b)
			}
		}
	}
}
