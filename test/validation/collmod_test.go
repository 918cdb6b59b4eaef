package validation

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// collOptions returns listCollections' options of d.name.
func collOptions(t *testing.T, d *mongo.Database, name string) bson.Raw {
	t.Helper()
	specs, err := d.ListCollectionSpecifications(testenv.Ctx(t), bson.D{{Key: "name", Value: name}})
	if err != nil || len(specs) != 1 {
		t.Fatalf("listCollections %s: %v %v", name, specs, err)
	}
	return specs[0].Options
}

// TestCollModValidation: collMod adds, changes and removes a validator
// and its level and action; listCollections shows the current options.
func TestCollModValidation(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := createWith(t, d, "cm")
	bad := bson.D{{Key: "qty", Value: -1}}
	if _, err := coll.InsertOne(ctx, bad); err != nil {
		t.Fatalf("insert before a validator: %v", err)
	}
	collMod := func(fields ...bson.E) error {
		_, err := testenv.RunCmd(t, d, append(bson.D{{Key: "collMod", Value: "cm"}}, fields...))
		return err
	}
	if err := collMod(bson.E{Key: "validator", Value: qtyValidator}); err != nil {
		t.Fatal(err)
	}
	_, err := coll.InsertOne(ctx, bad)
	wantValidationFailure(t, "insert after collMod validator", err)
	opts := collOptions(t, d, "cm")
	if v, err := opts.LookupErr("validator"); err != nil || !bsonEqual(v.Document(), must(bson.Marshal(qtyValidator))) {
		t.Errorf("listCollections options = %v, want the validator", opts)
	}

	if err := collMod(bson.E{Key: "validationAction", Value: "warn"}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bad); err != nil {
		t.Errorf("insert with action warn: %v", err)
	}
	opts = collOptions(t, d, "cm")
	if opts.Lookup("validationAction").StringValue() != "warn" || len(opts.Lookup("validator").Document()) == 0 {
		t.Errorf("options after validationAction warn = %v", opts)
	}
	if err := collMod(bson.E{Key: "validationAction", Value: "error"}, bson.E{Key: "validationLevel", Value: "off"}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bad); err != nil {
		t.Errorf("insert with level off: %v", err)
	}
	if err := collMod(bson.E{Key: "validationLevel", Value: "strict"}); err != nil {
		t.Fatal(err)
	}
	_, err = coll.InsertOne(ctx, bad)
	wantValidationFailure(t, "insert after level strict", err)
	// An empty validator removes validation.
	if err := collMod(bson.E{Key: "validator", Value: bson.D{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bad); err != nil {
		t.Errorf("insert after validator {}: %v", err)
	}
}

// TestValidationOptionErrors: create and collMod reject malformed
// validation options with mongod's codes, and store nothing.
func TestValidationOptionErrors(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	createWith(t, d, "existing")
	cases := []struct {
		name string
		cmd  bson.D
		code int32
	}{
		{"create validator not an object", bson.D{{Key: "create", Value: "e1"}, {Key: "validator", Value: 1}}, 14},
		{"create unknown operator", bson.D{{Key: "create", Value: "e2"}, {Key: "validator", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$bogus", Value: 1}}}}}}, 2},
		{"create bad level", bson.D{{Key: "create", Value: "e3"}, {Key: "validator", Value: qtyValidator}, {Key: "validationLevel", Value: "sometimes"}}, 2},
		{"create bad action", bson.D{{Key: "create", Value: "e4"}, {Key: "validationAction", Value: "shout"}}, 2},
		{"create level not a string", bson.D{{Key: "create", Value: "e5"}, {Key: "validationLevel", Value: 1}}, 14},
		{"collMod unknown operator", bson.D{{Key: "collMod", Value: "existing"}, {Key: "validator", Value: bson.D{{Key: "$foo", Value: 1}}}}, 2},
		{"collMod bad level", bson.D{{Key: "collMod", Value: "existing"}, {Key: "validationLevel", Value: "x"}}, 2},
		{"collMod missing collection", bson.D{{Key: "collMod", Value: "nope"}, {Key: "validator", Value: qtyValidator}}, 26},
	}
	for _, tc := range cases {
		_, err := testenv.RunCmd(t, d, tc.cmd)
		testenv.WantCode(t, tc.name, err, tc.code)
	}
	names, err := d.ListCollectionNames(testenv.Ctx(t), bson.D{})
	if err != nil || len(names) != 1 {
		t.Errorf("collections after failed creates = %v %v, want only existing", names, err)
	}
	if _, err := collOptions(t, d, "existing").LookupErr("validator"); err == nil {
		t.Errorf("a failed collMod stored a validator")
	}
}

// TestCollModValidationIsLogged: collMod's validation change is an oplog
// entry, so a change stream with showExpandedEvents reports a modify
// event whose operationDescription holds the new validator.
func TestCollModValidationIsLogged(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := createWith(t, d, "logged")
	cs, err := coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetShowExpandedEvents(true))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	if _, err := testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: "logged"},
		{Key: "validator", Value: qtyValidator}, {Key: "validationLevel", Value: "moderate"}}); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if !cs.Next(wctx) {
		t.Fatalf("no event: %v", cs.Err())
	}
	ev := cs.Current
	if op := ev.Lookup("operationType").StringValue(); op != "modify" {
		t.Fatalf("event %v, want modify", ev)
	}
	desc := ev.Lookup("operationDescription").Document()
	if !bsonEqual(desc.Lookup("validator").Document(), must(bson.Marshal(qtyValidator))) ||
		desc.Lookup("validationLevel").StringValue() != "moderate" {
		t.Errorf("operationDescription = %v", desc)
	}
}
