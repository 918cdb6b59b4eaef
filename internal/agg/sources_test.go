package agg

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// TestStagesWithSources pins the stages that read something besides
// their input to the ones the name-keyed walks they replaced knew.
func TestStagesWithSources(t *testing.T) {
	none := reflect.ValueOf(noSources).Pointer()
	var got []string
	for n, d := range stageDefs {
		if reflect.ValueOf(d.sources).Pointer() != none {
			got = append(got, n)
		}
	}
	sort.Strings(got)
	want := []string{"$facet", "$graphLookup", "$lookup", "$unionWith"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("stages with sources: %v, want %v", got, want)
	}
}

// TestWalkPipeline walks the sub-pipelines of $lookup, $unionWith and
// $facet at any depth, with the namespace each runs in.
func TestWalkPipeline(t *testing.T) {
	doc := func(v any) bsoncore.Document {
		b, err := bson.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	pipeline := []bsoncore.Document{
		doc(bson.D{{Key: "$match", Value: bson.D{}}}),
		doc(bson.D{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "f"}, {Key: "as", Value: "x"},
			{Key: "pipeline", Value: bson.A{bson.D{{Key: "$unionWith", Value: bson.D{{Key: "coll", Value: "u"},
				{Key: "pipeline", Value: bson.A{bson.D{{Key: "$limit", Value: 1}}}}}}}}}}}}),
		doc(bson.D{{Key: "$facet", Value: bson.D{{Key: "a", Value: bson.A{bson.D{{Key: "$count", Value: "n"}}}}}}}),
		doc(bson.D{{Key: "$graphLookup", Value: bson.D{{Key: "from", Value: "g"}}}}),
	}
	var seen []string
	err := WalkPipeline(Namespace{DB: "d", Coll: "c"}, pipeline, func(v StageVisit) error {
		s := strings.Repeat(">", v.Depth) + v.Name + "@" + v.NS.Coll
		for _, src := range v.Sources {
			if src.Foreign && src.Named {
				s += " reads " + src.From.Coll
			}
		}
		seen = append(seen, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"$match@c", "$lookup@c reads f", ">$unionWith@f reads u", ">>$limit@u",
		"$facet@c", ">$count@c", "$graphLookup@c reads g"}
	if !reflect.DeepEqual(seen, want) {
		t.Fatalf("walk: %q, want %q", seen, want)
	}
}
