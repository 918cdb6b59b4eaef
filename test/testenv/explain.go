package testenv

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Explain runs {explain: cmd, verbosity} and returns the reply.
func Explain(t testing.TB, db *mongo.Database, cmd bson.D, verbosity string) bson.Raw {
	t.Helper()
	res, err := RunCmd(t, db, bson.D{{Key: "explain", Value: cmd}, {Key: "verbosity", Value: verbosity}})
	if err != nil {
		t.Fatalf("explain %v: %v", cmd, err)
	}
	return res
}

// WinningPlan returns queryPlanner.winningPlan of an explain reply.
func WinningPlan(res bson.Raw) bson.Raw {
	return res.Lookup("queryPlanner", "winningPlan").Document()
}

// Stages lists the stage names of a plan tree, depth first.
func Stages(plan bson.Raw) []string {
	var out []string
	WalkStages(plan, func(stage bson.Raw, _ int) {
		if s, ok := stage.Lookup("stage").StringValueOK(); ok {
			out = append(out, s)
		}
	})
	return out
}

// FindStage returns the first stage called name in a plan tree, depth
// first, or nil.
func FindStage(plan bson.Raw, name string) bson.Raw {
	var found bson.Raw
	WalkStages(plan, func(stage bson.Raw, _ int) {
		if s, _ := stage.Lookup("stage").StringValueOK(); s == name && found == nil {
			found = stage
		}
	})
	return found
}

// WalkStages calls f on each stage of a plan tree, depth first, with its
// depth (0 for the root), following inputStage and inputStages.
func WalkStages(plan bson.Raw, f func(stage bson.Raw, depth int)) {
	var walk func(d bson.Raw, depth int)
	walk = func(d bson.Raw, depth int) {
		f(d, depth)
		if in, err := d.LookupErr("inputStage"); err == nil {
			walk(in.Document(), depth+1)
		}
		if ins, err := d.LookupErr("inputStages"); err == nil {
			vals, _ := ins.Array().Values()
			for _, v := range vals {
				walk(v.Document(), depth+1)
			}
		}
	}
	walk(plan, 0)
}
