package admin_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// A command whose IDL declares no fields (ping, dropDatabase) takes only
// the generic arguments, through the wire as mongod does: an unknown field
// is 40415, a generic argument Lode cannot honour is 238, and the ones it
// reads itself (the session the driver adds, maxTimeMS, comment) pass.
func TestNoFieldCommandsTakeOnlyGenericArguments(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	c := testenv.Ctx(t)
	admin := db.Client().Database("admin")
	for _, tc := range []struct {
		name string
		cmd  bson.D
		code int32
	}{
		{"ping", bson.D{{Key: "ping", Value: 1}}, 0},
		{"ping with generic arguments", bson.D{{Key: "ping", Value: 1}, {Key: "maxTimeMS", Value: 1000}, {Key: "comment", Value: "hi"}}, 0},
		{"ping with an unknown field", bson.D{{Key: "ping", Value: 1}, {Key: "bogus", Value: 1}}, 40415},
		{"ping with an unknown field after generic ones", bson.D{{Key: "ping", Value: 1}, {Key: "maxTimeMS", Value: 1000}, {Key: "bogus", Value: 1}}, 40415},
		{"ping with $tenant", bson.D{{Key: "ping", Value: 1}, {Key: "$tenant", Value: bson.NewObjectID()}}, 238},
	} {
		err := admin.RunCommand(c, tc.cmd).Err()
		if tc.code == 0 {
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			continue
		}
		testenv.WantCode(t, tc.name, err, tc.code)
	}
	err := d.RunCommand(c, bson.D{{Key: "dropDatabase", Value: 1}, {Key: "bogus", Value: 1}}).Err()
	testenv.WantCode(t, "dropDatabase with an unknown field", err, 40415)
}
