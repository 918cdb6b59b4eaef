package embedding_test

import (
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
)

// connectAs opens a driver client to uri with the given credentials
// (none when user is empty).
func connectAs(t *testing.T, uri, user, pwd, source, mech string) *mongo.Client {
	t.Helper()
	o := options.Client().ApplyURI(uri).SetServerSelectionTimeout(5 * time.Second)
	if user != "" {
		o.SetAuth(options.Credential{Username: user, Password: pwd, AuthSource: source, AuthMechanism: mech})
	}
	c, err := mongo.Connect(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Disconnect(t.Context()) })
	return c
}

func wantCode(t *testing.T, what string, err error, code int32) {
	t.Helper()
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(int(code)) {
		t.Errorf("%s: got %v, want code %d", what, err, code)
	}
}

// TestAuthRolesEnforced: with WithAuth, unauthenticated clients may only
// handshake and ping; a readWrite user writes its database and nothing
// else; a read user cannot write; a wrong password and an unknown user
// fail alike (18); revoking a role takes effect on an open connection.
func TestAuthRolesEnforced(t *testing.T) {
	db, err := lode.Open(t.TempDir(), lode.WithAuth("admin", "s3cret!"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	root := db.Client()
	if _, err := root.Database("shop").Collection("orders").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatalf("root insert: %v", err)
	}
	shop := root.Database("shop")
	for _, u := range []bson.D{
		{{Key: "createUser", Value: "app"}, {Key: "pwd", Value: "apppw"}, {Key: "roles", Value: bson.A{"readWrite"}}},
		{{Key: "createUser", Value: "ro"}, {Key: "pwd", Value: "ropw"}, {Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "read"}, {Key: "db", Value: "shop"}}}}},
	} {
		if err := shop.RunCommand(ctx, u).Err(); err != nil {
			t.Fatalf("%v: %v", u, err)
		}
	}
	err = shop.RunCommand(ctx, bson.D{{Key: "createUser", Value: "app"}, {Key: "pwd", Value: "x"}, {Key: "roles", Value: bson.A{}}}).Err()
	wantCode(t, "createUser twice", err, 51003)

	anon := connectAs(t, db.URI(), "", "", "", "")
	if err := anon.Ping(ctx, nil); err != nil {
		t.Fatalf("unauthenticated ping: %v", err)
	}
	_, err = anon.Database("shop").Collection("orders").Find(ctx, bson.D{})
	wantCode(t, "unauthenticated find", err, 13)
	err = anon.Database("admin").RunCommand(ctx, bson.D{{Key: "getCmdLineOpts", Value: 1}}).Err()
	wantCode(t, "unauthenticated getCmdLineOpts", err, 13)

	app := connectAs(t, db.URI(), "app", "apppw", "shop", "")
	orders := app.Database("shop").Collection("orders")
	if _, err := orders.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}}); err != nil {
		t.Fatalf("readWrite insert: %v", err)
	}
	if n, err := orders.CountDocuments(ctx, bson.D{}); err != nil || n != 2 {
		t.Fatalf("readWrite count: %d %v", n, err)
	}
	_, err = app.Database("other").Collection("x").InsertOne(ctx, bson.D{})
	wantCode(t, "insert into another database", err, 13)
	wantCode(t, "dropDatabase", app.Database("shop").Drop(ctx), 13)
	wantCode(t, "serverStatus", app.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Err(), 13)

	var st bson.Raw
	if err := app.Database("shop").RunCommand(ctx, bson.D{{Key: "connectionStatus", Value: 1}}).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if u := st.Lookup("authInfo", "authenticatedUsers", "0", "user").StringValue(); u != "app" {
		t.Errorf("connectionStatus: %v", st)
	}

	ro := connectAs(t, db.URI(), "ro", "ropw", "shop", "SCRAM-SHA-1")
	if n, err := ro.Database("shop").Collection("orders").CountDocuments(ctx, bson.D{}); err != nil || n != 2 {
		t.Fatalf("read user count (SCRAM-SHA-1): %d %v", n, err)
	}
	_, err = ro.Database("shop").Collection("orders").InsertOne(ctx, bson.D{})
	wantCode(t, "read user insert", err, 13)

	var bad [2]string
	for i, cred := range [][2]string{{"app", "wrong"}, {"nobody", "apppw"}} {
		c := connectAs(t, db.URI(), cred[0], cred[1], "shop", "")
		err := c.Ping(ctx, nil)
		wantCode(t, "bad credentials "+cred[0], err, 18)
		if err != nil {
			bad[i] = err.Error()
		}
	}

	// Revoking the role applies to the open connection.
	if err := shop.RunCommand(ctx, bson.D{{Key: "revokeRolesFromUser", Value: "app"}, {Key: "roles", Value: bson.A{"readWrite"}}}).Err(); err != nil {
		t.Fatal(err)
	}
	_, err = orders.InsertOne(ctx, bson.D{{Key: "_id", Value: 3}})
	wantCode(t, "insert after revoke", err, 13)

	var info bson.Raw
	if err := shop.RunCommand(ctx, bson.D{{Key: "usersInfo", Value: 1}}).Decode(&info); err != nil {
		t.Fatal(err)
	}
	users, _ := info.Lookup("users").Array().Values()
	if len(users) != 2 {
		t.Fatalf("usersInfo: %v", info)
	}
	if _, err := users[0].Document().LookupErr("credentials"); err == nil {
		t.Errorf("usersInfo shows credentials without showCredentials: %v", users[0])
	}
	if err := shop.RunCommand(ctx, bson.D{{Key: "dropUser", Value: "ro"}}).Err(); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "dropUser twice", shop.RunCommand(ctx, bson.D{{Key: "dropUser", Value: "ro"}}).Err(), 11)
}

// TestAuthStoredLikeMongod: admin.system.users holds mongod's document
// shape with salted, iterated credentials (15,000 iterations for
// SCRAM-SHA-256, 10,000 for SCRAM-SHA-1) and no password.
func TestAuthStoredLikeMongod(t *testing.T) {
	db, err := lode.Open(t.TempDir(), lode.WithAuth("admin", "pw"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var u bson.Raw
	if err := db.Client().Database("admin").Collection("system.users").FindOne(t.Context(), bson.D{{Key: "_id", Value: "admin.admin"}}).Decode(&u); err != nil {
		t.Fatal(err)
	}
	for mech, iters := range map[string]int32{"SCRAM-SHA-256": 15000, "SCRAM-SHA-1": 10000} {
		c, err := u.LookupErr("credentials", mech)
		if err != nil {
			t.Fatalf("no %s credential: %v", mech, u)
		}
		if got := c.Document().Lookup("iterationCount").Int32(); got != iters {
			t.Errorf("%s iterationCount %d, want %d", mech, got, iters)
		}
		for _, f := range []string{"salt", "storedKey", "serverKey"} {
			if _, err := c.Document().LookupErr(f); err != nil {
				t.Errorf("%s lacks %s", mech, f)
			}
		}
	}
	if r := u.Lookup("roles", "0", "role").StringValue(); r != "root" {
		t.Errorf("first user's role %q, want root", r)
	}
}
