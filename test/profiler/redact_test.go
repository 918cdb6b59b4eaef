package profiler_test

import (
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/internal/mongolog"
	"github.com/lodedb/lode/test/testenv"
)

// TestPasswordsRedacted checks that createUser's and updateUser's pwd
// and the SASL payloads of saslStart/saslContinue are shown as "xxx"
// wherever mongod shows a command (mongod's sensitiveFieldNames and
// snipForLogging): the slow-query log and getLog, system.profile,
// currentOp, and the Unauthorized message that quotes the command.
func TestPasswordsRedacted(t *testing.T) {
	const (
		pwd1 = "Secret-One-4711"
		pwd2 = "Secret-Two-0815"
		pwd3 = "Secret-Three-42"
	)
	var buf testenv.LogBuffer
	log := slog.New(mongolog.NewHandler(&buf, slog.LevelInfo))
	db, err := lode.Open(t.TempDir(), lode.WithAuth("root", "rootpw"), lode.WithSlowOpThreshold(0),
		lode.WithLogger(log), lode.WithTestCommands())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := testenv.Ctx(t)
	admin := db.Client().Database("admin")
	if err := admin.RunCommand(ctx, bson.D{{Key: "profile", Value: 2}}).Err(); err != nil {
		t.Fatal(err)
	}
	run := func(cmd bson.D) {
		t.Helper()
		if err := admin.RunCommand(ctx, cmd).Err(); err != nil {
			t.Fatal(err)
		}
	}
	run(bson.D{{Key: "createUser", Value: "alice"}, {Key: "pwd", Value: pwd1},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "read"}, {Key: "db", Value: "app"}}}}})
	run(bson.D{{Key: "updateUser", Value: "alice"}, {Key: "pwd", Value: pwd2}})

	// A createUser held by a failpoint, seen by currentOp while it runs.
	run(bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "times", Value: 1}}},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"createUser"}},
			{Key: "blockConnection", Value: true}, {Key: "blockTimeMS", Value: 1500}}}})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = admin.RunCommand(ctx, bson.D{{Key: "createUser", Value: "bob"}, {Key: "pwd", Value: pwd3}, {Key: "roles", Value: bson.A{}}}).Err()
	}()
	var seen bson.Raw
	for deadline := time.Now().Add(5 * time.Second); seen == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		r, err := admin.RunCommand(ctx, bson.D{{Key: "currentOp", Value: 1}, {Key: "command.createUser", Value: "bob"}}).Raw()
		testenv.WantOK(t, r, err)
		ops, _ := r.Lookup("inprog").Array().Values()
		if len(ops) > 0 {
			seen = ops[0].Document()
		}
	}
	wg.Wait()
	if seen == nil {
		t.Fatal("currentOp never showed the blocked createUser")
	}
	if got := seen.Lookup("command", "pwd").StringValue(); got != "xxx" {
		t.Fatalf("currentOp shows pwd %q, want \"xxx\": %v", got, seen)
	}

	// A user without the privilege gets Unauthorized, whose message
	// quotes the command.
	alice, err := mongo.Connect(options.Client().ApplyURI(db.URI()).SetAuth(options.Credential{Username: "alice", Password: pwd2, AuthSource: "admin"}))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = alice.Disconnect(ctx) }()
	err = alice.Database("admin").RunCommand(ctx, bson.D{{Key: "createUser", Value: "carol"}, {Key: "pwd", Value: pwd3}, {Key: "roles", Value: bson.A{}}}).Err()
	ce := testenv.WantCmdError(t, err, 13, "Unauthorized")
	if strings.Contains(ce.Message, pwd3) || !strings.Contains(ce.Message, `"pwd": "xxx"`) {
		t.Fatalf("Unauthorized message %q", ce.Message)
	}

	// system.profile.
	cur, err := admin.Collection("system.profile").Find(ctx, bson.D{{Key: "command.pwd", Value: bson.D{{Key: "$exists", Value: true}}}})
	if err != nil {
		t.Fatal(err)
	}
	var prof []bson.Raw
	if err := cur.All(ctx, &prof); err != nil {
		t.Fatal(err)
	}
	if len(prof) < 3 {
		t.Fatalf("%d profile entries with a pwd, want the createUser, updateUser and blocked createUser", len(prof))
	}
	for _, p := range prof {
		if got := p.Lookup("command", "pwd").StringValue(); got != "xxx" {
			t.Fatalf("system.profile shows pwd %q: %v", got, p)
		}
	}

	// The slow-query log, and getLog that serves it.
	logged := buf.String()
	r, err := admin.RunCommand(ctx, bson.D{{Key: "getLog", Value: "global"}}).Raw()
	testenv.WantOK(t, r, err)
	ring := r.Lookup("log").String()
	for _, p := range []string{pwd1, pwd2, pwd3} {
		if strings.Contains(logged, p) {
			t.Fatalf("the log holds the password %q", p)
		}
		if strings.Contains(ring, p) {
			t.Fatalf("getLog holds the password %q", p)
		}
	}
	pwds, payloads := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(logged), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec["msg"] != "Slow query" {
			continue
		}
		attr, _ := rec["attr"].(map[string]any)
		cmd, _ := attr["command"].(map[string]any)
		if v, ok := cmd["pwd"]; ok {
			if v != "xxx" {
				t.Fatalf("slow query line with pwd %v", v)
			}
			pwds++
		}
		if v, ok := cmd["payload"]; ok {
			if v != "xxx" {
				t.Fatalf("slow query line with SASL payload %v", v)
			}
			payloads++
		}
	}
	if pwds < 3 || payloads < 2 {
		t.Fatalf("slow query lines: %d with pwd, %d with a SASL payload", pwds, payloads)
	}
}
