package lode_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// explain runs {explain: cmd, verbosity} and returns the reply.
func explain(t *testing.T, db *mongo.Database, cmd bson.D, verbosity string) bson.Raw {
	t.Helper()
	res, err := runCmd(t, db, bson.D{{Key: "explain", Value: cmd}, {Key: "verbosity", Value: verbosity}})
	if err != nil {
		t.Fatalf("explain %v: %v", cmd, err)
	}
	return res
}

// stages lists the stage names of a plan tree, depth first.
func stages(plan bson.Raw) []string {
	var out []string
	var walk func(d bson.Raw)
	walk = func(d bson.Raw) {
		if s, ok := d.Lookup("stage").StringValueOK(); ok {
			out = append(out, s)
		}
		if in, err := d.LookupErr("inputStage"); err == nil {
			walk(in.Document())
		}
		if ins, err := d.LookupErr("inputStages"); err == nil {
			vals, _ := ins.Array().Values()
			for _, v := range vals {
				walk(v.Document())
			}
		}
	}
	walk(plan)
	return out
}

// findStage returns the first stage called name in a plan tree.
func findStage(plan bson.Raw, name string) bson.Raw {
	if s, _ := plan.Lookup("stage").StringValueOK(); s == name {
		return plan
	}
	if in, err := plan.LookupErr("inputStage"); err == nil {
		if r := findStage(in.Document(), name); r != nil {
			return r
		}
	}
	if ins, err := plan.LookupErr("inputStages"); err == nil {
		vals, _ := ins.Array().Values()
		for _, v := range vals {
			if r := findStage(v.Document(), name); r != nil {
				return r
			}
		}
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

func optsFAM(sort bson.D) *options.FindOneAndUpdateOptionsBuilder {
	return options.FindOneAndUpdate().SetSort(sort).SetReturnDocument(options.After)
}
