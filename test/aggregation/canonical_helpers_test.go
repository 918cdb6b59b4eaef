package aggregation_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// The helpers of the reference-page tests (densify, exprs, graphlookup,
// memlimit, redact): results are compared as canonical extended JSON, so
// numeric types must match exactly (sameValue, for the window tests,
// compares numbers by value).

// openDB starts an embedded Lode (testenv.Open) and returns its database
// name: error messages name the namespace.
func openDB(t *testing.T, name string) *mongo.Database {
	t.Helper()
	ldb, _ := testenv.Open(t)
	return ldb.Client().Database(name)
}

// aggJS runs a pipeline given as JSON and returns the documents as
// canonical extended JSON strings (numeric types visible).
func aggJS(t *testing.T, coll *mongo.Collection, pipeline string, opts ...options.Lister[options.AggregateOptions]) ([]string, error) {
	t.Helper()
	ctx := testenv.Ctx(t)
	cur, err := coll.Aggregate(ctx, extJSON(t, pipeline), opts...)
	if err != nil {
		return nil, err
	}
	defer cur.Close(ctx)
	var out []string
	for cur.Next(ctx) {
		out = append(out, canonical(t, cur.Current))
	}
	return out, cur.Err()
}

// canonical renders a document as canonical extended JSON.
func canonical(t *testing.T, raw bson.Raw) string {
	t.Helper()
	b, err := bson.MarshalExtJSON(raw, true, false)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantJS compares results with expected documents written in JSON,
// converted to canonical extended JSON: numeric types must match.
func wantJS(t *testing.T, got []string, want string) {
	t.Helper()
	wa := extJSON(t, want).(bson.A)
	if len(got) != len(wa) {
		t.Fatalf("got %d documents, want %d\ngot:  %v\nwant: %s", len(got), len(wa), got, want)
	}
	for i, w := range wa {
		raw, err := bson.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		if c := canonical(t, raw); c != got[i] {
			t.Fatalf("document %d\ngot:  %s\nwant: %s", i, got[i], c)
		}
	}
}

// wantServerCode checks that err is a server error with code.
func wantServerCode(t *testing.T, err error, code int32) {
	t.Helper()
	testenv.WantCode(t, "aggregate", err, code)
}
