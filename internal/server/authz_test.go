package server

import (
	"context"
	"errors"
	"sort"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/internal/auth"
)

// TestEveryCommandHasAnAuthzRule: a command cannot be registered without
// saying what it needs.
func TestEveryCommandHasAnAuthzRule(t *testing.T) {
	for name, c := range commands {
		if !c.authz.decided() {
			t.Errorf("command %s declares no authorization rule", name)
		}
	}
}

// TestEveryCommandRefusedWithoutPrivileges walks every registered command
// through the Go driver on a server with Auth: unauthenticated, all but
// the handshake and authentication commands fail with Unauthorized (13);
// as a user whose only role is read on another database, every command
// that needs a privilege fails with 13 too.
func TestEveryCommandRefusedWithoutPrivileges(t *testing.T) {
	// Test commands on, so that configureFailPoint is served and checked.
	s, addr := listenServer(t, Config{Auth: true, TestCommands: true})
	ctx := context.Background()
	// A first user makes the localhost exception end.
	for _, u := range []struct {
		name, db string
		roles    []auth.RoleName
	}{{"admin", "admin", []auth.RoleName{{Role: "root", DB: "admin"}}}, {"reader", "other", []auth.RoleName{{Role: "read", DB: "other"}}}} {
		creds, err := credentials(u.name, "pw", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.users.CreateUser(ctx, &auth.User{Name: u.name, DB: u.db, UserID: auth.NewUserID(), Creds: creds, Roles: u.roles}); err != nil {
			t.Fatal(err)
		}
	}
	connect := func(cred *options.Credential) *mongo.Client {
		o := options.Client().ApplyURI("mongodb://" + addr + "/?directConnection=true").SetServerSelectionTimeout(5 * time.Second).SetRetryWrites(false)
		if cred != nil {
			o.SetAuth(*cred)
		}
		c, err := mongo.Connect(o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Disconnect(ctx) })
		return c
	}
	anon := connect(nil)
	reader := connect(&options.Credential{Username: "reader", Password: "pw", AuthSource: "other"})
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		rule := commands[name].authz
		if rule.open {
			continue
		}
		db := "test"
		switch name {
		case "serverStatus", "currentOp", "killOp", "hostInfo", "getCmdLineOpts", "getLog", "getParameter", "setParameter",
			"getDefaultRWConcern", "setDefaultRWConcern", "fsync", "killAllSessions", "renameCollection", "listDatabases":
			db = "admin"
		}
		cmd := bson.D{{Key: name, Value: "c"}}
		switch name {
		case "explain":
			cmd = bson.D{{Key: name, Value: bson.D{{Key: "find", Value: "c"}}}}
		case "updateUser":
			// With nothing to change it is BadValue after authorization,
			// as in mongod.
			cmd = append(cmd, bson.E{Key: "pwd", Value: "x"})
		}
		err := anon.Database(db).RunCommand(ctx, cmd).Err()
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != 13 {
			t.Errorf("unauthenticated %s: got %v, want 13", name, err)
		}
		if rule.authOnly {
			continue
		}
		err = reader.Database(db).RunCommand(ctx, cmd).Err()
		if !errors.As(err, &ce) || ce.Code != 13 {
			t.Errorf("%s as a read user of another database: got %v, want 13", name, err)
		}
	}
}
