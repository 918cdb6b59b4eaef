package metadata

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/patterns/internal/plantest"
)

func img(name, mime, flash string, size Size, ts time.Time) []Pair {
	return []Pair{
		P("File Name", name),
		P("File size", 32764),
		P("MIME type", mime),
		P("Image size", size),
		P("Camera make", "Canon"),
		P("Image timestamp", ts),
		P("Flash", flash),
	}
}

func TestFind(t *testing.T) {
	ctx := context.Background()
	db, err := lode.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := New(db.Client().Database("supershot").Collection("images"))
	if err := s.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2014, 1, 1, 10, 1, 0, 0, time.UTC)
	docs := map[string][]Pair{
		"a": img("img_1771.jpg", "image/jpeg", "No, auto", Size{480, 360}, t0),
		"b": img("img_1772.jpg", "image/jpeg", "Yes", Size{480, 360}, t0.Add(time.Hour)),
		"c": img("img_1773.png", "image/png", "No, auto", Size{640, 480}, t0),
	}
	for id, p := range docs {
		if err := s.Put(ctx, id, p, bson.E{Key: "userId", Value: "olepeteraaa1"}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		pairs []Pair
		want  []string
	}{
		{"seed example 4", []Pair{P("MIME type", "image/jpeg"), P("Flash", "No, auto")}, []string{"a"}},
		{"one pair", []Pair{P("MIME type", "image/jpeg")}, []string{"a", "b"}},
		{"embedded document", []Pair{P("Image size", Size{480, 360})}, []string{"a", "b"}},
		{"embedded document other order never matches", []Pair{P("Image size", bson.D{{Key: "height", Value: 360}, {Key: "width", Value: 480}})}, nil},
		{"date", []Pair{P("Image timestamp", t0)}, []string{"a", "c"}},
		{"number of other type", []Pair{P("File size", 32764.0), P("Flash", "Yes")}, []string{"b"}},
		{"key and value from different elements", []Pair{P("MIME type", "No, auto")}, nil},
		{"range on value", []Pair{P("Image timestamp", bson.D{{Key: "$gt", Value: t0}})}, []string{"b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.FindWith(ctx, tc.pairs, bson.E{Key: "userId", Value: "olepeteraaa1"})
			if err != nil {
				t.Fatal(err)
			}
			ids := map[string]bool{}
			for _, g := range got {
				ids[g.Lookup("_id").StringValue()] = true
			}
			if len(ids) != len(tc.want) {
				t.Fatalf("got %v, want %v", ids, tc.want)
			}
			for _, w := range tc.want {
				if !ids[w] {
					t.Fatalf("got %v, want %v", ids, tc.want)
				}
			}
		})
	}
	pairs, err := s.Get(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := pairs[5].Value.(bson.DateTime); !ok || !d.Time().Equal(t0) {
		t.Fatalf("date round trip: %#v", pairs[5].Value)
	}
	if d, ok := pairs[3].Value.(bson.D); !ok || len(d) != 2 || d[0].Key != "width" {
		t.Fatalf("size round trip: %#v", pairs[3].Value)
	}
	if _, err := s.Find(ctx); err == nil {
		t.Fatal("Find with no pairs must fail")
	}
	// The variadic form without extra fields.
	got, err := s.Find(ctx, P("MIME type", "image/jpeg"), P("Flash", "Yes"))
	if err != nil || len(got) != 1 || got[0].Lookup("_id").StringValue() != "b" {
		t.Fatalf("Find(MIME type, Flash) = %v, %v; want [b]", got, err)
	}
}

// TestFindUsesIndex: the $all of $elemMatch filter Find builds is served by
// an index scan of {"metadata.key": 1, "metadata.value": 1}, examining
// only the matching documents.
func TestFindUsesIndex(t *testing.T) {
	ctx := context.Background()
	db, err := lode.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mdb := db.Client().Database("supershot")
	s := New(mdb.Collection("images"))
	if err := s.EnsureIndexes(ctx); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2014, 1, 1, 10, 1, 0, 0, time.UTC)
	for i := 0; i < 200; i++ {
		mime := "image/png"
		if i%50 == 0 {
			mime = "image/jpeg"
		}
		if err := s.Put(ctx, i, img(fmt.Sprintf("img_%d.jpg", i), mime, "Yes", Size{480, 360}, t0)); err != nil {
			t.Fatal(err)
		}
	}
	filter := Filter(P("File Name", "img_50.jpg"), P("MIME type", "image/jpeg"))
	got, err := s.Find(ctx, P("File Name", "img_50.jpg"), P("MIME type", "image/jpeg"))
	if err != nil || len(got) != 1 {
		t.Fatalf("Find = %d docs, %v", len(got), err)
	}
	reply := plantest.Explain(t, mdb, bson.D{{Key: "find", Value: "images"}, {Key: "filter", Value: filter}})
	plan := plantest.WinningPlan(t, reply)
	stages := plantest.Stages(plan)
	if !plantest.Has(stages, "IXSCAN") || plantest.Has(stages, "COLLSCAN") {
		t.Fatalf("plan stages %v, want an IXSCAN and no COLLSCAN", stages)
	}
	if ix := plantest.IndexNames(plan); !plantest.Has(ix, "metadata.key_1_metadata.value_1") {
		t.Fatalf("plan uses indexes %v, want metadata.key_1_metadata.value_1", ix)
	}
	if n := plantest.ExecInt(t, reply, "nReturned"); n != 1 {
		t.Fatalf("nReturned %d, want 1", n)
	}
	// The scan is bounded by one pair: far fewer than the 200 documents.
	if n := plantest.ExecInt(t, reply, "totalDocsExamined"); n < 1 || n > 4 {
		t.Fatalf("totalDocsExamined %d, want 1..4 (an index-bounded scan)", n)
	}
}
