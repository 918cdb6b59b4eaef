package agg

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// TestShareDates checks which folded fields break their date down
// together: UTC parts of one path do, a timezone or another part does
// not.
func TestShareDates(t *testing.T) {
	var pipe []bsoncore.Document
	for _, s := range []bson.D{
		{{Key: "$project", Value: bson.D{
			{Key: "y", Value: bson.D{{Key: "$year", Value: "$t"}}},
			{Key: "x", Value: bson.D{{Key: "$hour", Value: "$t"}}},
			{Key: "uy", Value: bson.D{{Key: "$year", Value: "$u"}}},
			{Key: "d", Value: bson.D{{Key: "$dayOfMonth", Value: "$t"}}},
			{Key: "dz", Value: bson.D{{Key: "$dayOfMonth", Value: bson.D{{Key: "date", Value: "$t"}, {Key: "timezone", Value: "+01:00"}}}}},
			{Key: "m", Value: bson.D{{Key: "$month", Value: bson.A{"$t"}}}},
		}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "y", Value: "$y"}, {Key: "m", Value: "$m"}, {Key: "d", Value: "$d"},
			{Key: "x", Value: "$x"}, {Key: "uy", Value: "$uy"}, {Key: "dz", Value: "$dz"}}}}}},
	} {
		raw, err := bson.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		pipe = append(pipe, raw)
	}
	p, err := Parse(pipe, &ParseContext{DB: "db", Coll: "c"})
	if err != nil {
		t.Fatal(err)
	}
	g, ok := p.stages[len(p.stages)-1].(*groupStage)
	if !ok || len(g.pre) != 6 {
		t.Fatalf("stages %v: want the $project folded into the $group", p.stages)
	}
	var got [][]int
	for _, f := range g.pre {
		var parts []int
		for _, dp := range f.dates {
			parts = append(parts, dp.part)
		}
		if f.done {
			parts = []int{-1}
		}
		got = append(got, parts)
	}
	// y shares with d and m; x, uy and dz evaluate alone; d and m are done.
	want := [][]int{{0, 2, 1}, nil, nil, {-1}, nil, {-1}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("got %v, want %v", got, want)
		}
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("got %v, want %v", got, want)
			}
		}
	}
}
