package security

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// The users every test here creates through the localhost exception and
// then as the admin (setupUsers).
const (
	adminPwd = "adminpw"
	seedsPwd = "seedspw"
	roPwd    = "ropw"
)

// seedDBs are the databases the seed scripts of test/clients use; the
// seeds user has readWrite on each.
var seedDBs = []string{"seed000", "seed001", "supershot", "seed003", "event_db", "event_db_sh", "seed003tx", "work", "data"}

// runMongosh runs mongosh with args (a URI, flags, --eval or a script)
// and returns its output and exit error.
func runMongosh(t *testing.T, args ...string) (string, error) {
	t.Helper()
	bin := requireTool(t, "mongosh")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--quiet", "--norc"}, args...)...)
	cmd.Env = append(os.Environ(), "MONGOSH_SKIP_NODE_VERSION_CHECK=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// mustMongosh is runMongosh that fails the test unless mongosh exits 0
// having printed want.
func mustMongosh(t *testing.T, want string, args ...string) string {
	t.Helper()
	out, err := runMongosh(t, args...)
	if err != nil || !strings.Contains(out, want) {
		t.Fatalf("mongosh %v: %v\n%s", args, err, out)
	}
	return out
}

// mustPython runs /usr/bin/python3 (pymongo 3.11) with args and fails
// the test unless it exits 0 having printed want.
func mustPython(t *testing.T, want string, args ...string) string {
	t.Helper()
	py := requirePymongo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, py, args...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), want) {
		t.Fatalf("python %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// authURI is s's URI for user with password pwd, authenticating against
// source, with the default database db and extra options.
func (s *server) authURI(user, pwd, source, db string, opts url.Values) string {
	q := url.Values{"directConnection": {"true"}, "authSource": {source}}
	for k, v := range opts {
		q[k] = v
	}
	return "mongodb://" + url.UserPassword(user, pwd).String() + "@" + s.addr + "/" + db + "?" + q.Encode()
}

// setupUsers creates, through mongosh, the admin user (root) with the
// localhost exception, checks the exception is over, authenticates with
// db.auth() and creates the seeds user (readWrite on the seeds'
// databases, plus clusterMonitor and hostManager for seed 004's
// serverStatus and setParameter), a read-only user of appdb, and data
// in appdb and in another database, then runs then (more mongosh code,
// which may use the users) in the same process and returns the output.
// tls are mongosh's TLS flags, if any.
func setupUsers(t *testing.T, s *server, then string, tls ...string) string {
	t.Helper()
	roles := make([]string, 0, len(seedDBs)+2)
	for _, d := range seedDBs {
		roles = append(roles, `{role: "readWrite", db: "`+d+`"}`)
	}
	roles = append(roles, `"clusterMonitor"`, `"hostManager"`)
	script := `const admin = db.getSiblingDB("admin");
admin.createUser({user: "admin", pwd: "` + adminPwd + `", roles: ["root"]});
let code = 0;
try { admin.createUser({user: "late", pwd: "x", roles: []}); } catch (e) { code = e.code; }
if (code !== 13) throw new Error("a second user without credentials: code " + code);
if (admin.auth("admin", "` + adminPwd + `").ok !== 1) throw new Error("db.auth as admin");
admin.createUser({user: "seeds", pwd: "` + seedsPwd + `", roles: [` + strings.Join(roles, ", ") + `]});
const app = db.getSiblingDB("appdb");
app.createUser({user: "ro", pwd: "` + roPwd + `", roles: [{role: "read", db: "appdb"}]});
app.items.insertMany([{_id: 1}, {_id: 2}]);
db.getSiblingDB("other").secrets.insertOne({_id: 1});
print("setup OK");
` + then
	args := append(append([]string{}, tls...), "mongodb://127.0.0.1:"+port(s)+"/?directConnection=true", "--eval", script)
	return mustMongosh(t, "setup OK", args...)
}

// mongoshCode defines wantCode(what, f, code), which throws an error
// naming what unless f throws an error with that code.
const mongoshCode = `function wantCode(what, f, want) {
  let code = 0;
  try { f(); } catch (e) { code = e.code; }
  if (code !== want) throw new Error(what + ": code " + code + ", want " + want);
}
`

// jsValue is v as a JavaScript literal (JSON).
func jsValue(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// setupUsersGo is setupUsers through the Go driver, for the tests whose
// subject is not the setup (a mongosh start costs about 0.7 s of CPU):
// the same users and data, and the same check that the localhost
// exception ends with the first user. setupUsers, in TestAuthOverTLS,
// still covers the exception and db.auth() through mongosh.
func setupUsersGo(t *testing.T, s *server) {
	t.Helper()
	ctx := context.Background()
	anon := goClient(t, "mongodb://"+s.addr+"/?directConnection=true")
	if err := anon.Database("admin").RunCommand(ctx, bson.D{{Key: "createUser", Value: "admin"}, {Key: "pwd", Value: adminPwd},
		{Key: "roles", Value: bson.A{"root"}}}).Err(); err != nil {
		t.Fatalf("createUser admin through the localhost exception: %v", err)
	}
	err := anon.Database("admin").RunCommand(ctx, bson.D{{Key: "createUser", Value: "late"}, {Key: "pwd", Value: "x"}, {Key: "roles", Value: bson.A{}}}).Err()
	if codeOf(err) != 13 {
		t.Fatalf("a second user without credentials: %v", err)
	}
	admin := goClient(t, s.authURI("admin", adminPwd, "admin", "", nil))
	roles := bson.A{}
	for _, d := range seedDBs {
		roles = append(roles, bson.D{{Key: "role", Value: "readWrite"}, {Key: "db", Value: d}})
	}
	roles = append(roles, "clusterMonitor", "hostManager")
	for _, c := range []struct {
		db  string
		cmd bson.D
	}{
		{"admin", bson.D{{Key: "createUser", Value: "seeds"}, {Key: "pwd", Value: seedsPwd}, {Key: "roles", Value: roles}}},
		{"appdb", bson.D{{Key: "createUser", Value: "ro"}, {Key: "pwd", Value: roPwd}, {Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "read"}, {Key: "db", Value: "appdb"}}}}}},
		{"appdb", bson.D{{Key: "insert", Value: "items"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}}}}},
		{"other", bson.D{{Key: "insert", Value: "secrets"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}}},
	} {
		if err := admin.Database(c.db).RunCommand(ctx, c.cmd).Err(); err != nil {
			t.Fatalf("setup %s on %s: %v", c.cmd[0].Key, c.db, err)
		}
	}
}

// rootClient creates the first user, admin with root, through the
// localhost exception of a server started with --auth, and returns a Go
// driver client authenticated as it.
func rootClient(t *testing.T, s *server) *mongo.Client {
	t.Helper()
	anon := goClient(t, s.uri(nil))
	if err := anon.Database("admin").RunCommand(t.Context(), bson.D{{Key: "createUser", Value: "admin"}, {Key: "pwd", Value: adminPwd},
		{Key: "roles", Value: bson.A{"root"}}}).Err(); err != nil {
		t.Fatalf("createUser admin through the localhost exception: %v", err)
	}
	return goClient(t, s.authURI("admin", adminPwd, "admin", "", nil))
}

// goClient connects the Go driver with uri.
func goClient(t *testing.T, uri string) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(5 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c
}

// codeOf is the server error code of err, 0 for none.
func codeOf(err error) int {
	var se mongo.ServerError
	if errors.As(err, &se) {
		for _, c := range []int{13, 18} {
			if se.HasErrorCode(c) {
				return c
			}
		}
		return -1
	}
	return 0
}

// TestAuthUnauthenticatedRefused: with `lode serve --auth`, once the
// first user exists an unauthenticated Go driver client can still
// handshake, ping and ask buildInfo, and every data or administration
// command fails with Unauthorized (13).
func TestAuthUnauthenticatedRefused(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--auth")
	setupUsersGo(t, s)
	c := connect(t, s, nil)
	ctx := context.Background()
	for _, ok := range []bson.D{{{Key: "hello", Value: 1}}, {{Key: "ping", Value: 1}}, {{Key: "buildInfo", Value: 1}}} {
		if err := c.Database("admin").RunCommand(ctx, ok).Err(); err != nil {
			t.Errorf("unauthenticated %v: %v", ok, err)
		}
	}
	refused := []struct {
		db  string
		cmd bson.D
	}{
		{"appdb", bson.D{{Key: "find", Value: "items"}}},
		{"appdb", bson.D{{Key: "insert", Value: "items"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 9}}}}}},
		{"appdb", bson.D{{Key: "update", Value: "items"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}}}}}}},
		{"appdb", bson.D{{Key: "delete", Value: "items"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{}}, {Key: "limit", Value: 0}}}}}},
		{"appdb", bson.D{{Key: "findAndModify", Value: "items"}, {Key: "query", Value: bson.D{}}, {Key: "remove", Value: true}}},
		{"appdb", bson.D{{Key: "aggregate", Value: "items"}, {Key: "pipeline", Value: bson.A{}}, {Key: "cursor", Value: bson.D{}}}},
		{"appdb", bson.D{{Key: "count", Value: "items"}}},
		{"appdb", bson.D{{Key: "distinct", Value: "items"}, {Key: "key", Value: "_id"}}},
		{"appdb", bson.D{{Key: "listCollections", Value: 1}}},
		{"appdb", bson.D{{Key: "listCollections", Value: 1}, {Key: "nameOnly", Value: true}, {Key: "authorizedCollections", Value: true}}},
		{"appdb", bson.D{{Key: "listIndexes", Value: "items"}}},
		{"appdb", bson.D{{Key: "createIndexes", Value: "items"}, {Key: "indexes", Value: bson.A{bson.D{{Key: "key", Value: bson.D{{Key: "x", Value: 1}}}, {Key: "name", Value: "x_1"}}}}}},
		{"appdb", bson.D{{Key: "dropIndexes", Value: "items"}, {Key: "index", Value: "*"}}},
		{"appdb", bson.D{{Key: "create", Value: "new"}}},
		{"appdb", bson.D{{Key: "drop", Value: "items"}}},
		{"appdb", bson.D{{Key: "dropDatabase", Value: 1}}},
		{"appdb", bson.D{{Key: "collMod", Value: "items"}}},
		{"appdb", bson.D{{Key: "collStats", Value: "items"}}},
		{"appdb", bson.D{{Key: "dbStats", Value: 1}}},
		{"appdb", bson.D{{Key: "validate", Value: "items"}}},
		{"appdb", bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "items"}}}}},
		{"appdb", bson.D{{Key: "getMore", Value: int64(1)}, {Key: "collection", Value: "items"}}},
		{"appdb", bson.D{{Key: "killCursors", Value: "items"}, {Key: "cursors", Value: bson.A{int64(1)}}}},
		{"appdb", bson.D{{Key: "usersInfo", Value: 1}}},
		{"appdb", bson.D{{Key: "createUser", Value: "intruder"}, {Key: "pwd", Value: "x"}, {Key: "roles", Value: bson.A{}}}},
		{"appdb", bson.D{{Key: "updateUser", Value: "ro"}, {Key: "pwd", Value: "x"}}},
		{"appdb", bson.D{{Key: "dropUser", Value: "ro"}}},
		{"admin", bson.D{{Key: "createUser", Value: "intruder"}, {Key: "pwd", Value: "x"}, {Key: "roles", Value: bson.A{"root"}}}},
		{"admin", bson.D{{Key: "listDatabases", Value: 1}}},
		{"admin", bson.D{{Key: "renameCollection", Value: "appdb.items"}, {Key: "to", Value: "appdb.moved"}}},
		{"admin", bson.D{{Key: "serverStatus", Value: 1}}},
		{"admin", bson.D{{Key: "getLog", Value: "global"}}},
		{"admin", bson.D{{Key: "hostInfo", Value: 1}}},
		{"admin", bson.D{{Key: "getCmdLineOpts", Value: 1}}},
		{"admin", bson.D{{Key: "currentOp", Value: 1}}},
		{"admin", bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: 1}}},
		{"admin", bson.D{{Key: "getParameter", Value: "*"}}},
		{"admin", bson.D{{Key: "setParameter", Value: 1}, {Key: "cursorTimeoutMillis", Value: 1000}}},
		{"admin", bson.D{{Key: "fsync", Value: 1}}},
		{"admin", bson.D{{Key: "getDefaultRWConcern", Value: 1}}},
		{"admin", bson.D{{Key: "killAllSessions", Value: bson.A{}}}},
		{"admin", bson.D{{Key: "startSession", Value: 1}}},
	}
	for _, r := range refused {
		err := c.Database(r.db).RunCommand(ctx, r.cmd).Err()
		if codeOf(err) != 13 {
			t.Errorf("unauthenticated %s on %s: got %v, want Unauthorized (13)", r.cmd[0].Key, r.db, err)
		}
	}
	// Nothing changed: the admin still sees the data and no intruder.
	admin := goClient(t, s.authURI("admin", adminPwd, "admin", "", nil))
	if n, err := admin.Database("appdb").Collection("items").CountDocuments(ctx, bson.D{}); err != nil || n != 2 {
		t.Errorf("appdb.items after the refusals: %d, %v", n, err)
	}
	var info struct {
		Users []bson.Raw `bson:"users"`
	}
	if err := admin.Database("admin").RunCommand(ctx, bson.D{{Key: "usersInfo", Value: "intruder"}}).Decode(&info); err != nil || len(info.Users) != 0 {
		t.Errorf("usersInfo intruder: %v %v", info.Users, err)
	}
}

// TestAuthSeedScripts: the seeds' own shell and Python code (test/clients)
// runs as written in mongosh and pymongo 3.11 when the URI carries the
// credentials of a user with readWrite on the seeds' databases.
func TestAuthSeedScripts(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--auth", "--ttl-monitor-sleep", "1s")
	setupUsersGo(t, s)
	uri := s.authURI("seeds", seedsPwd, "admin", "", nil)
	scripts := []struct {
		script, ok string
	}{
		{"seed000_recent.js", "seed000 OK"},
		{"seed001_bucket.js", "seed001 OK"},
		{"seed002_metadata.js", "seed002 OK"},
		{"seed003_shell.js", "seed003 shell OK"},
		{"seed003_hits.js", "seed003 hits (mongosh) OK"},
		{"seed004_queue.js", "seed004 OK explain"},
		{"seed003_hits.py", "seed003 hits OK"},
		{"seed003_orders.py", "seed003 orders OK"},
		{"seed003_transfer.py", "seed003 transfer OK"},
		{"seed003_eventlog.py", "seed003 eventlog OK"},
	}
	if !testenv.Acceptance() {
		// Every day one shell and one Python script; all ten under
		// LODE_ACCEPTANCE=1 (CI), as test/clients runs them without auth.
		scripts = []struct{ script, ok string }{scripts[1], scripts[7]}
	}
	// The shell scripts run in one mongosh process, then seed001 once
	// more without credentials: it is refused at its first command.
	var batch []testenv.BatchScript
	for _, tc := range scripts {
		if strings.HasSuffix(tc.script, ".js") {
			batch = append(batch, testenv.BatchScript{Name: tc.script, URI: uri, File: "../clients/" + tc.script})
		}
	}
	const anon = "seed001_bucket.js without credentials"
	batch = append(batch, testenv.BatchScript{Name: anon, URI: "mongodb://" + s.addr + "/?directConnection=true", File: "../clients/seed001_bucket.js"})
	runs := map[string]batchRun{}
	if _, err := testenv.LookTool("mongosh"); err == nil || requireClients() {
		for i, r := range mongoshBatch(t, batch) {
			runs[batch[i].Name] = r
		}
	}
	for _, tc := range scripts {
		t.Run(tc.script, func(t *testing.T) {
			script := "../clients/" + tc.script
			if strings.HasSuffix(tc.script, ".py") {
				mustPython(t, tc.ok, script, uri)
				return
			}
			requireTool(t, "mongosh")
			if r := runs[tc.script]; !r.passed || !strings.Contains(r.out, tc.ok) {
				t.Errorf("mongosh %s did not finish with %q:\n%s", tc.script, tc.ok, r.out)
			}
		})
	}
	// The user's roles bound it: it cannot write a database of no seed.
	_, err := goClient(t, uri).Database("appdb").Collection("items").InsertOne(context.Background(), bson.D{})
	if codeOf(err) != 13 {
		t.Errorf("seeds user writing appdb: %v", err)
	}
	t.Run("without credentials", func(t *testing.T) {
		requireTool(t, "mongosh")
		if r := runs[anon]; r.passed || !strings.Contains(r.out, "requires authentication") {
			t.Errorf("%s: want it refused (requires authentication):\n%s", anon, r.out)
		}
	})
}

// The read-only user's checks, in each client's language: reading appdb
// works, writing it and reading another database fail with code 13, and
// listDatabases shows it appdb alone. roMongosh defines roChecks(db),
// which runs them on db's connection.
const (
	roMongosh = `function roChecks(db) {
const app = db.getSiblingDB("appdb");
if (app.items.countDocuments({}) !== 2) throw new Error("read appdb");
function code(f) { try { f(); return 0; } catch (e) { return e.code; } }
print("insert=" + code(() => app.items.insertOne({_id: 3})));
print("update=" + code(() => app.items.updateOne({_id: 1}, {$set: {x: 1}})));
print("otherdb=" + code(() => db.getSiblingDB("other").secrets.findOne()));
print("dbs=" + db.adminCommand({listDatabases: 1, nameOnly: true}).databases.map(d => d.name).join(","));
print("colls=" + app.getCollectionNames().join(","));
print("ro OK");
}
`
	roPython = `import sys, pymongo
from pymongo.errors import OperationFailure
c = pymongo.MongoClient(sys.argv[1], serverSelectionTimeoutMS=5000)
assert c.appdb.items.count_documents({}) == 2
def code(f):
    try:
        f()
        return 0
    except OperationFailure as e:
        return e.code
print("insert=%d" % code(lambda: c.appdb.items.insert_one({"_id": 3})))
print("update=%d" % code(lambda: c.appdb.items.update_one({"_id": 1}, {"$set": {"x": 1}})))
print("otherdb=%d" % code(lambda: c.other.secrets.find_one()))
print("dbs=" + ",".join(c.list_database_names()))
print("colls=" + ",".join(c.appdb.list_collection_names()))
print("ro OK")`
)

// TestAuthReadOnlyUser: a user with read on appdb reads it, and can
// neither write it nor read another database (13), through mongosh,
// pymongo and the Go driver; it authenticates with mongosh
// --username/--password --authenticationMechanism, SCRAM-SHA-1 and
// SCRAM-SHA-256 connection strings and db.auth(), with pymongo's
// authMechanism SCRAM-SHA-1 and SCRAM-SHA-256; a wrong password is
// AuthenticationFailed (18) in mongosh, pymongo and the Go driver.
//
// One mongosh process (a start costs about a second of CPU) makes every
// mongosh check: it starts authenticated by the flags, runs the
// read-only checks, then opens a connection per mechanism, with the
// right and a wrong password, and one without credentials for
// db.auth(). mongosh turns its flags into the same driver options as
// the URI's, so the server sees the same SCRAM conversation either way.
// One Python process likewise makes every pymongo check.
func TestAuthReadOnlyUser(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--auth")
	setupUsersGo(t, s)
	uri := s.authURI("ro", roPwd, "appdb", "appdb", nil)
	plain := "mongodb://" + s.addr + "/appdb?directConnection=true"
	var mechs [][3]string
	for _, mech := range []string{"SCRAM-SHA-256", "SCRAM-SHA-1"} {
		o := url.Values{"authMechanism": {mech}}
		mechs = append(mechs, [3]string{mech, s.authURI("ro", roPwd, "appdb", "appdb", o), s.authURI("ro", "wrong", "appdb", "appdb", o)})
	}
	want := []string{"insert=13", "update=13", "otherdb=13", "dbs=appdb\n", "colls=items\n", "ro OK"}
	t.Run("mongosh", func(t *testing.T) {
		out := mustMongosh(t, "mechanisms OK", "--username", "ro", "--password", roPwd, "--authenticationDatabase", "appdb",
			"--authenticationMechanism", "SCRAM-SHA-256", plain, "--eval", roMongosh+mongoshCode+`
roChecks(db);
for (const [mech, good, bad] of `+jsValue(t, mechs)+`) {
  if (new Mongo(good).getDB("appdb").items.countDocuments({}) !== 2) throw new Error(mech + ": read appdb");
  wantCode(mech + " with a wrong password", () => new Mongo(bad).getDB("appdb").items.findOne(), 18);
}
const app = new Mongo(`+jsValue(t, plain)+`).getDB("appdb");
wantCode("db.auth with a wrong password", () => app.auth("ro", "wrong"), 18);
if (app.auth("ro", "`+roPwd+`").ok !== 1) throw new Error("db.auth");
if (app.items.countDocuments({}) !== 2) throw new Error("read after db.auth");
print("mechanisms OK");`)
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("read-only user in mongosh: no %q in\n%s", w, out)
			}
		}
	})
	t.Run("pymongo", func(t *testing.T) {
		// The read-only checks on argv[1], then, for each mechanism,
		// the good URI reads and the wrong password is
		// AuthenticationFailed.
		py := roPython + `
args = sys.argv[2:]
for mech, good, bad in zip(args[0::3], args[1::3], args[2::3]):
    assert pymongo.MongoClient(good, serverSelectionTimeoutMS=5000).appdb.items.count_documents({}) == 2, mech
    try:
        pymongo.MongoClient(bad, serverSelectionTimeoutMS=5000).appdb.items.count_documents({})
        print("%s wrong password accepted" % mech)
    except OperationFailure as e:
        print("%s bad=%d" % (mech, e.code))
`
		args := []string{"-c", py, uri}
		for _, m := range mechs {
			args = append(args, m[:]...)
		}
		out := mustPython(t, "ro OK", args...)
		for _, w := range append(want, "SCRAM-SHA-1 bad=18", "SCRAM-SHA-256 bad=18") {
			if !strings.Contains(out, w) {
				t.Errorf("read-only user in pymongo: no %q in\n%s", w, out)
			}
		}
	})
	ctx := context.Background()
	c := goClient(t, uri)
	items := c.Database("appdb").Collection("items")
	if n, err := items.CountDocuments(ctx, bson.D{}); err != nil || n != 2 {
		t.Fatalf("Go driver read: %d %v", n, err)
	}
	_, err := items.InsertOne(ctx, bson.D{{Key: "_id", Value: 3}})
	if codeOf(err) != 13 {
		t.Errorf("Go driver insert: %v", err)
	}
	err = c.Database("other").Collection("secrets").FindOne(ctx, bson.D{}).Err()
	if codeOf(err) != 13 {
		t.Errorf("Go driver read of another database: %v", err)
	}
	if names, err := c.ListDatabaseNames(ctx, bson.D{}); err != nil || len(names) != 1 || names[0] != "appdb" {
		t.Errorf("Go driver listDatabases: %v %v", names, err)
	}
	_, err = c.ListDatabaseNames(ctx, bson.D{}, options.ListDatabases().SetAuthorizedDatabases(false))
	if codeOf(err) != 13 {
		t.Errorf("Go driver listDatabases with authorizedDatabases false: %v", err)
	}
	for _, mech := range []string{"SCRAM-SHA-1", "SCRAM-SHA-256"} {
		o := url.Values{"authMechanism": {mech}}
		c := goClient(t, s.authURI("ro", "wrong", "appdb", "appdb", o))
		if err := c.Ping(context.Background(), nil); codeOf(err) != 18 {
			t.Errorf("Go driver %s with a wrong password: %v", mech, err)
		}
	}
}

// TestAuthOverTLS: --auth with requireTLS: mongosh --tls --tlsCAFile
// creates the first user over TLS through the localhost exception and
// authenticates with db.auth(); then, in the same mongosh process, the
// read-only user authenticates over TLS with a URI (tls=true,
// tlsCAFile) and a wrong password is 18 over TLS too, in mongosh and
// the Go driver. (--username/--password are
// TestAuthReadOnlyUser's; mongosh passes them to the
// driver as the URI's credentials.)
func TestAuthOverTLS(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	s := startServer(t, "--auth", "--tls-mode", "requireTLS", "--tls-cert-file", p.server)
	uri := s.authURI("ro", roPwd, "appdb", "appdb", p.tlsURI())
	wrong := s.authURI("ro", "wrong", "appdb", "appdb", p.tlsURI())
	out := setupUsers(t, s, roMongosh+mongoshCode+`
roChecks(new Mongo(`+jsValue(t, uri)+`).getDB("appdb"));
wantCode("a wrong password over TLS", () => new Mongo(`+jsValue(t, wrong)+`).getDB("appdb").items.findOne(), 18);
print("tls OK");`, "--tls", "--tlsCAFile", p.ca)
	for _, w := range []string{"ro OK", "insert=13", "otherdb=13", "tls OK"} {
		if !strings.Contains(out, w) {
			t.Errorf("read-only user over TLS: no %q in\n%s", w, out)
		}
	}
	c := goClient(t, wrong)
	if err := c.Ping(context.Background(), nil); codeOf(err) != 18 {
		t.Errorf("Go driver over TLS with a wrong password: %v", err)
	}
}
