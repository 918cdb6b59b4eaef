package agg_test

import (
	"context"
	"testing"

	"github.com/lodedb/lode/agg"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func TestExplainPushdown(t *testing.T) {
	cat := openCat(t)
	insert(t, cat, "c", `[{"_id":1,"a":1},{"_id":2,"a":2}]`)
	tests := []struct {
		pipeline, want string
	}{
		{`[{"$match":{"a":1}},{"$sort":{"a":1}},{"$limit":5},{"$project":{"a":1}},{"$addFields":{"b":1}}]`,
			`{"stages":[{"$cursor":{"queryPlanner":{"namespace":"test.c","parsedQuery":{"a":1},"winningPlan":{"stage":"PROJECTION_SIMPLE","transformBy":{"a":1},"inputStage":{"stage":"SORT","sortPattern":{"a":1},"limitAmount":{"$numberLong":"5"},"inputStage":{"stage":"COLLSCAN","filter":{"a":1},"direction":"forward"}}},"rejectedPlans":[]}}},{"$addFields":{"b":1}}]}`},
		{`[{"$match":{"a":{"$gt":0}}},{"$group":{"_id":1,"n":{"$sum":1}}}]`,
			`{"stages":[{"$cursor":{"queryPlanner":{"namespace":"test.c","parsedQuery":{"a":{"$gt":0}},"winningPlan":{"stage":"COLLSCAN","filter":{"a":{"$gt":0}},"direction":"forward"},"rejectedPlans":[]}}},{"$group":{"_id":1,"n":{"$sum":1}}}]}`},
	}
	for _, tc := range tests {
		p, err := agg.Parse(parseDocs(t, tc.pipeline), &agg.ParseContext{DB: testDB, Coll: "c"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Explain(context.Background(), cat)
		if err != nil {
			t.Fatal(err)
		}
		sameDocs(t, []bsoncore.Document{got}, "["+tc.want+"]", false)
	}
}
