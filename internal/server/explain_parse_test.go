package server

import (
	"context"
	"log/slog"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
)

// A command with a bad argument fails with the same code and message
// whether it runs or is explained, as in mongod, which parses the
// explained command with the command's own IDL.
func TestExplainParsesLikeTheCommand(t *testing.T) {
	eng, err := engine.Open(t.TempDir(), engine.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	s := New(eng, Config{Logger: slog.New(slog.DiscardHandler)})
	defer s.Close()
	cases := []struct {
		cmd  bson.D
		code int32
		msg  string
	}{
		{bson.D{{Key: "find", Value: "c"}, {Key: "limit", Value: -1}}, 51024, "BSON field 'limit' value must be >= 0, actual value '-1'"},
		{bson.D{{Key: "find", Value: "c"}, {Key: "bogus", Value: 1}}, 40415, "BSON field 'find.bogus' is an unknown field."},
		{bson.D{{Key: "count", Value: "c"}, {Key: "skip", Value: -2}}, 51024, "BSON field 'skip' value must be >= 0, actual value '-2'"},
		{bson.D{{Key: "distinct", Value: "c"}}, 40414, "BSON field 'distinct.key' is missing but a required field"},
		{bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}}}}}, 40414,
			"BSON field 'update.updates.u' is missing but a required field"},
		{bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: 2}}}}}, 9,
			"The limit field in delete objects must be 0 or 1. Got 2"},
		{bson.D{{Key: "findAndModify", Value: "c"}, {Key: "remove", Value: true}, {Key: "update", Value: bson.D{}}}, 9,
			"Cannot specify both an update and remove=true"},
	}
	run := func(doc bson.D) bsoncore.Document {
		raw, err := bson.Marshal(append(doc, bson.E{Key: "$db", Value: "db"}))
		if err != nil {
			t.Fatal(err)
		}
		return s.dispatch(context.Background(), nil, raw, false)
	}
	for _, tc := range cases {
		direct := run(tc.cmd)
		explained := run(bson.D{{Key: "explain", Value: tc.cmd}})
		for form, r := range map[string]bsoncore.Document{"command": direct, "explain": explained} {
			if code, msg := r.Lookup("code").Int32(), r.Lookup("errmsg").StringValue(); code != tc.code || msg != tc.msg {
				t.Errorf("%s %v: got %d %q, want %d %q", form, tc.cmd, code, msg, tc.code, tc.msg)
			}
		}
	}
}
