package admin_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// TestStableAPIStrict checks the Stable API through a Go driver client
// declaring API version 1 with strict and deprecation errors, as MongoDB
// documents it: commands in API Version 1 run; distinct (not in it) is
// APIStrictError 323 naming the command; $listLocalSessions is refused
// under strict; the test command testVersion2 is refused while
// testVersion1And2 runs; testDeprecation is APIDeprecationError 324;
// apiVersion "2" is APIVersionError 322; apiStrict without apiVersion is
// mongod's assertion 4886600.
func TestStableAPIStrict(t *testing.T) {
	t.Parallel()
	db, _ := testenv.Open(t, lode.WithTestCommands())
	c := testenv.Ctx(t)
	api := options.ServerAPI(options.ServerAPIVersion1).SetStrict(true).SetDeprecationErrors(true)
	cl, err := mongo.Connect(options.Client().ApplyURI(db.URI()).SetServerAPIOptions(api))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Disconnect(c)
	d := cl.Database("api")
	coll := d.Collection("c")
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: 1}}); err != nil {
		t.Fatalf("insert under API v1 strict: %v", err)
	}
	if n, err := coll.CountDocuments(c, bson.D{}); err != nil || n != 1 {
		t.Fatalf("countDocuments under API v1 strict: %d %v", n, err)
	}
	err = coll.Distinct(c, "x", bson.D{}).Err()
	ce := testenv.WantCmdError(t, err, 323, "APIStrictError")
	if want := "Provided apiStrict:true, but the command distinct is not in API Version 1"; len(ce.Message) < len(want) || ce.Message[:len(want)] != want {
		t.Fatalf("distinct: message %q", ce.Message)
	}
	_, err = cl.Database("admin").Aggregate(c, mongo.Pipeline{{{Key: "$listLocalSessions", Value: bson.D{}}}})
	testenv.WantCmdError(t, err, 323, "APIStrictError")
	_, err = coll.Aggregate(c, mongo.Pipeline{{{Key: "$lookup", Value: bson.D{{Key: "from", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$collStats", Value: bson.D{}}}}}, {Key: "as", Value: "s"}}}}})
	testenv.WantCmdError(t, err, 323, "APIStrictError")
	err = d.RunCommand(c, bson.D{{Key: "testVersion2", Value: 1}}).Err()
	testenv.WantCmdError(t, err, 323, "APIStrictError")
	if err := d.RunCommand(c, bson.D{{Key: "testVersion1And2", Value: 1}}).Err(); err != nil {
		t.Fatalf("testVersion1And2: %v", err)
	}
	err = d.RunCommand(c, bson.D{{Key: "testDeprecation", Value: 1}}).Err()
	testenv.WantCmdError(t, err, 324, "APIDeprecationError")

	// Raw parameters through a client that declares no API version.
	plain := db.Client().Database("api")
	err = plain.RunCommand(c, bson.D{{Key: "ping", Value: 1}, {Key: "apiVersion", Value: "2"}}).Err()
	testenv.WantCmdError(t, err, 322, "APIVersionError")
	err = plain.RunCommand(c, bson.D{{Key: "ping", Value: 1}, {Key: "apiStrict", Value: true}}).Err()
	testenv.WantCmdError(t, err, 4886600, "Location4886600")
	err = plain.RunCommand(c, bson.D{{Key: "ping", Value: 1}, {Key: "apiVersion", Value: 1}}).Err()
	testenv.WantCmdError(t, err, 14, "TypeMismatch")
	// Without strict, a command outside API Version 1 runs.
	if err := plain.RunCommand(c, bson.D{{Key: "distinct", Value: "c"}, {Key: "key", Value: "x"}, {Key: "apiVersion", Value: "1"}}).Err(); err != nil {
		t.Fatalf("distinct with apiVersion 1, not strict: %v", err)
	}
	// authenticate exists (for MONGODB-X509, which Lode lacks).
	err = db.Client().Database("$external").RunCommand(c, bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "MONGODB-X509"}}).Err()
	testenv.WantCmdError(t, err, 334, "MechanismUnavailable")
}
