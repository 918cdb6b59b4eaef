package planner_test

import (
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// The job queue's (patterns/queue)'s FIFO and priority queries walk their compound
// index with no SORT stage.
func TestQueueClaimPlan(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("queue")
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var docs []any
	for i := 0; i < 500; i++ {
		var start any
		if i%3 == 0 {
			start = base
		}
		docs = append(docs, bson.D{{Key: "startTime", Value: start}, {Key: "endTime", Value: nil},
			{Key: "createdOn", Value: base.Add(time.Duration(500-i) * time.Second)}, {Key: "priority", Value: i % 5},
			{Key: "payload", Value: bson.D{{Key: "type", Value: "convertImage"}}}})
	}
	if _, err := coll.InsertMany(testenv.Ctx(t), docs); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.Indexes().CreateOne(testenv.Ctx(t), mongo.IndexModel{Keys: bson.D{{Key: "startTime", Value: 1}, {Key: "createdOn", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		sort  bson.D
		index string
	}{
		{"fifo", bson.D{{Key: "createdOn", Value: 1}}, "startTime_1_createdOn_1"},
		{"priority", bson.D{{Key: "priority", Value: -1}, {Key: "createdOn", Value: 1}}, "startTime_1_priority_-1_createdOn_1"},
	}
	if _, err := coll.Indexes().CreateOne(testenv.Ctx(t), mongo.IndexModel{Keys: bson.D{{Key: "startTime", Value: 1}, {Key: "priority", Value: -1}, {Key: "createdOn", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := testenv.Explain(t, db, bson.D{{Key: "find", Value: "queue"}, {Key: "filter", Value: bson.D{{Key: "startTime", Value: nil}}}, {Key: "sort", Value: tc.sort}}, "executionStats")
			wp := res.Lookup("queryPlanner", "winningPlan").Document()
			st := testenv.Stages(wp)
			if slices.Contains(st, "SORT") || !slices.Contains(st, "IXSCAN") {
				t.Fatalf("stages %v, want IXSCAN and no SORT: %v", st, wp)
			}
			ix := testenv.FindStage(wp, "IXSCAN")
			if got := ix.Lookup("indexName").StringValue(); got != tc.index {
				t.Errorf("index %s, want %s", got, tc.index)
			}
			want := testenv.Count(t, coll, bson.D{{Key: "startTime", Value: nil}})
			if n := res.Lookup("executionStats", "nReturned").AsInt64(); n != want || want < 300 {
				t.Errorf("nReturned %d, want %d", n, want)
			}
			if k := res.Lookup("executionStats", "totalKeysExamined").AsInt64(); k != want {
				t.Errorf("totalKeysExamined %d, want %d", k, want)
			}
			// The findAndModify of the seed takes the head of the index.
			var got bson.M
			err := coll.FindOneAndUpdate(testenv.Ctx(t), bson.D{{Key: "startTime", Value: nil}},
				bson.D{{Key: "$set", Value: bson.D{{Key: "startTime", Value: base}}}},
				options.FindOneAndUpdate().SetSort(tc.sort).SetReturnDocument(options.After)).Decode(&got)
			if err != nil {
				t.Fatal(err)
			}
			fam := testenv.Explain(t, db, bson.D{{Key: "findAndModify", Value: "queue"}, {Key: "query", Value: bson.D{{Key: "startTime", Value: nil}}},
				{Key: "sort", Value: tc.sort}, {Key: "update", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "startTime", Value: base}}}}}}, "executionStats")
			if st := testenv.Stages(fam.Lookup("queryPlanner", "winningPlan").Document()); slices.Contains(st, "SORT") || !slices.Contains(st, "IXSCAN") {
				t.Errorf("findAndModify stages %v", st)
			}
			t.Logf("%s", fam)
			if k := fam.Lookup("executionStats", "totalKeysExamined").AsInt64(); k != 1 {
				t.Errorf("findAndModify examined %d keys, want 1", k)
			}
		})
	}
}
