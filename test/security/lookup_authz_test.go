package security

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// lookupAttackPython is issue 30's report as pymongo sends it: a user
// with readWrite on appdb alone joins admin.system.users, the oplog and
// another database through $lookup's from: {db, coll}, at the top of the
// pipeline and inside $facet. mongod refuses the form for user namespaces
// when it parses the pipeline (FailedToParse, 9) and checks find on the
// internal ones it allows (Unauthorized, 13).
const lookupAttackPython = `
import sys
from pymongo import MongoClient
from pymongo.errors import OperationFailure
c = MongoClient(sys.argv[1], serverSelectionTimeoutMS=5000)
coll = c.appdb.items
def lookup(db, name):
    return {"$lookup": {"from": {"db": db, "coll": name}, "pipeline": [], "as": "u"}}
for pipeline, want in [
    ([lookup("admin", "system.users")], 9),
    ([lookup("other", "secrets")], 9),
    ([lookup("local", "oplog.rs")], 13),
    ([{"$facet": {"f": [lookup("local", "oplog.rs")]}}], 13),
]:
    try:
        docs = list(coll.aggregate(pipeline))
    except OperationFailure as e:
        if e.code != want:
            sys.exit("%s: code %s, want %s" % (pipeline, e.code, want))
        continue
    sys.exit("%s: returned %s" % (pipeline, docs))
try:
    c.appdb.command("create", "v", viewOn="items", pipeline=[lookup("local", "oplog.rs")])
    sys.exit("a view reading the oplog was created")
except OperationFailure as e:
    if e.code != 13:
        sys.exit("create view: code %s" % e.code)
print("lookup refused OK")
`

// TestLookupForeignDatabaseRefusedPymongo runs the attack through pymongo
// against lode serve --auth.
func TestLookupForeignDatabaseRefusedPymongo(t *testing.T) {
	requirePymongo(t)
	s := startServer(t, "--auth")
	ctx := t.Context()
	root := rootClient(t, s)
	if err := root.Database("appdb").RunCommand(ctx, bson.D{{Key: "createUser", Value: "app"}, {Key: "pwd", Value: "apppw"},
		{Key: "roles", Value: bson.A{"readWrite"}}}).Err(); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct{ db, coll string }{{"appdb", "items"}, {"other", "secrets"}} {
		if _, err := root.Database(w.db).Collection(w.coll).InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	mustPython(t, "lookup refused OK", "-c", lookupAttackPython, s.authURI("app", "apppw", "appdb", "appdb", nil))
}
