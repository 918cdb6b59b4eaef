package aggregation_test

import (
	"fmt"
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// extJSON parses a relaxed extended JSON value (a document or an array).
func extJSON(t testing.TB, js string) any {
	t.Helper()
	var w struct {
		V any `bson:"v"`
	}
	if err := bson.UnmarshalExtJSON([]byte(`{"v":`+js+`}`), false, &w); err != nil {
		t.Fatalf("parse %s: %v", js, err)
	}
	return w.V
}

// insertJSON inserts the documents of a JSON array.
func insertJSON(t testing.TB, coll *mongo.Collection, js string) {
	t.Helper()
	docs, ok := extJSON(t, js).(bson.A)
	if !ok {
		t.Fatalf("not an array: %s", js)
	}
	if _, err := coll.InsertMany(testenv.Ctx(t), []any(docs)); err != nil {
		t.Fatal(err)
	}
}

// aggregateJSON runs a pipeline given as a JSON array and returns the
// documents.
func aggregateJSON(t testing.TB, coll *mongo.Collection, pipeline string) ([]bson.D, error) {
	t.Helper()
	p := extJSON(t, pipeline)
	cur, err := coll.Aggregate(testenv.Ctx(t), p)
	if err != nil {
		return nil, err
	}
	var out []bson.D
	if err := cur.All(testenv.Ctx(t), &out); err != nil {
		return nil, err
	}
	return out, nil
}

// sameValue compares a result with the documented value: documents field
// by field in order, numbers by value within a relative 1e-9 (the
// reference pages print doubles rounded), other values exactly.
func sameValue(got, want any) bool {
	gf, gnum := num(got)
	wf, wnum := num(want)
	if gnum || wnum {
		if !gnum || !wnum {
			return false
		}
		if gf == wf {
			return true
		}
		return math.Abs(gf-wf) <= 1e-9*math.Max(math.Abs(gf), math.Abs(wf))
	}
	switch w := want.(type) {
	case bson.D:
		g, ok := got.(bson.D)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if g[i].Key != w[i].Key || !sameValue(g[i].Value, w[i].Value) {
				return false
			}
		}
		return true
	case bson.A:
		g, ok := got.(bson.A)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !sameValue(g[i], w[i]) {
				return false
			}
		}
		return true
	}
	return fmt.Sprint(got) == fmt.Sprint(want)
}

func num(v any) (float64, bool) {
	switch x := v.(type) {
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// wantDocs compares results with documented output, in order.
func wantDocs(t testing.TB, got []bson.D, wantJS string) {
	t.Helper()
	want, _ := extJSON(t, wantJS).(bson.A)
	if len(got) != len(want) {
		t.Fatalf("got %d documents, want %d\ngot:  %v\nwant: %v", len(got), len(want), got, want)
	}
	for i := range want {
		if !sameValue(got[i], want[i]) {
			t.Fatalf("document %d differs\ngot:  %v\nwant: %v", i, got[i], want[i])
		}
	}
}
