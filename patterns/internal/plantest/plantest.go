// Package plantest helps the pattern packages' tests check which plan the
// server chose for their queries: it runs the explain command through the
// driver and walks the winning plan's stages.
package plantest

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Explain runs {explain: cmd, verbosity: "executionStats"} on db and
// returns the reply, failing the test on error.
func Explain(t testing.TB, db *mongo.Database, cmd bson.D) bson.Raw {
	t.Helper()
	raw, err := db.RunCommand(t.Context(), bson.D{{Key: "explain", Value: cmd}, {Key: "verbosity", Value: "executionStats"}}).Raw()
	if err != nil {
		t.Fatalf("explain %v: %v", cmd, err)
	}
	return raw
}

// WinningPlan returns queryPlanner.winningPlan of an explain reply.
func WinningPlan(t testing.TB, reply bson.Raw) bson.Raw {
	t.Helper()
	v, err := reply.LookupErr("queryPlanner", "winningPlan")
	if err != nil {
		t.Fatalf("explain reply has no queryPlanner.winningPlan: %v", reply)
	}
	return v.Document()
}

// Stages lists the stage names of a plan tree, depth first.
func Stages(plan bson.Raw) []string {
	var out []string
	Walk(plan, func(d bson.Raw) { out = append(out, StageName(d)) })
	return out
}

// StageName returns a plan node's stage.
func StageName(d bson.Raw) string {
	s, _ := d.Lookup("stage").StringValueOK()
	return s
}

// Walk calls f on every node of a plan tree, depth first.
func Walk(plan bson.Raw, f func(bson.Raw)) {
	f(plan)
	if in, err := plan.LookupErr("inputStage"); err == nil {
		Walk(in.Document(), f)
	}
	if ins, err := plan.LookupErr("inputStages"); err == nil {
		vals, _ := ins.Array().Values()
		for _, v := range vals {
			Walk(v.Document(), f)
		}
	}
}

// IndexNames returns the indexName of every node that has one.
func IndexNames(plan bson.Raw) []string {
	var out []string
	Walk(plan, func(d bson.Raw) {
		if n, ok := d.Lookup("indexName").StringValueOK(); ok {
			out = append(out, n)
		}
	})
	return out
}

// ExecInt returns executionStats.<field> (nReturned, totalKeysExamined,
// totalDocsExamined) as an int64.
func ExecInt(t testing.TB, reply bson.Raw, field string) int64 {
	t.Helper()
	v, err := reply.LookupErr("executionStats", field)
	if err != nil {
		t.Fatalf("explain reply has no executionStats.%s: %v", field, reply)
	}
	n, ok := v.AsInt64OK()
	if !ok {
		t.Fatalf("executionStats.%s is %s", field, v.Type)
	}
	return n
}

// Has reports whether xs contains x.
func Has(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}
