package server

import (
	"encoding/base64"
	"os"
	"strconv"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// idlFieldBase is the command testdata/idl_fields.txt sets a field of,
// with the database it runs on. $CURSOR stands for an open cursor's id.
var idlFieldBase = map[string]struct {
	db  string
	cmd bson.D
}{
	"ping":      {"t", bson.D{{Key: "ping", Value: 1}}},
	"find":      {"t", bson.D{{Key: "find", Value: "c"}}},
	"aggregate": {"t", bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{}}, {Key: "cursor", Value: bson.D{}}}},
	"count":     {"t", bson.D{{Key: "count", Value: "c"}}},
	"distinct":  {"t", bson.D{{Key: "distinct", Value: "c"}, {Key: "key", Value: "a"}}},
	"getMore":   {"t", bson.D{{Key: "getMore", Value: "$CURSOR"}, {Key: "collection", Value: "c"}}},
	"insert":    {"t", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 2}}}}}},
	"update": {"t", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: 1}}},
		{Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: 1}}}}}}}}}},
	"delete": {"t", bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "limit", Value: 1}}}}}},
	"findAndModify": {"t", bson.D{{Key: "findAndModify", Value: "c"}, {Key: "query", Value: bson.D{{Key: "_id", Value: 1}}},
		{Key: "update", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "b", Value: 1}}}}}}},
	"create":                   {"t", bson.D{{Key: "create", Value: "n"}}},
	"createIndexes":            {"t", bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{bson.D{{Key: "key", Value: bson.D{{Key: "b", Value: 1}}}, {Key: "name", Value: "b_1"}}}}}},
	"listCollections":          {"t", bson.D{{Key: "listCollections", Value: 1}}},
	"listIndexes":              {"t", bson.D{{Key: "listIndexes", Value: "c"}}},
	"listDatabases":            {"admin", bson.D{{Key: "listDatabases", Value: 1}}},
	"dropIndexes":              {"t", bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: "a_1"}}},
	"drop":                     {"t", bson.D{{Key: "drop", Value: "c"}}},
	"dropDatabase":             {"t", bson.D{{Key: "dropDatabase", Value: 1}}},
	"renameCollection":         {"admin", bson.D{{Key: "renameCollection", Value: "t.c"}, {Key: "to", Value: "t.r"}}},
	"collMod":                  {"t", bson.D{{Key: "collMod", Value: "c"}}},
	"collMod.index":            {"t", bson.D{{Key: "collMod", Value: "c"}, {Key: "index", Value: bson.D{{Key: "name", Value: "a_1"}}}}},
	"killCursors":              {"t", bson.D{{Key: "killCursors", Value: "c"}, {Key: "cursors", Value: bson.A{}}}},
	"explain":                  {"t", bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "c"}}}}},
	"dbStats":                  {"t", bson.D{{Key: "dbStats", Value: 1}}},
	"collStats":                {"t", bson.D{{Key: "collStats", Value: "c"}}},
	"validate":                 {"t", bson.D{{Key: "validate", Value: "c"}}},
	"connectionStatus":         {"t", bson.D{{Key: "connectionStatus", Value: 1}}},
	"createUser":               {"t", bson.D{{Key: "createUser", Value: "nu"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{}}}},
	"updateUser":               {"t", bson.D{{Key: "updateUser", Value: "u1"}}},
	"dropUser":                 {"t", bson.D{{Key: "dropUser", Value: "u1"}}},
	"dropAllUsersFromDatabase": {"t", bson.D{{Key: "dropAllUsersFromDatabase", Value: 1}}},
	"grantRolesToUser":         {"t", bson.D{{Key: "grantRolesToUser", Value: "u1"}, {Key: "roles", Value: bson.A{"read"}}}},
	"revokeRolesFromUser":      {"t", bson.D{{Key: "revokeRolesFromUser", Value: "u1"}, {Key: "roles", Value: bson.A{"read"}}}},
	"createRole":               {"t", bson.D{{Key: "createRole", Value: "nr"}, {Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{}}}},
	"updateRole":               {"t", bson.D{{Key: "updateRole", Value: "r1"}}},
	"dropRole":                 {"t", bson.D{{Key: "dropRole", Value: "r1"}}},
	"dropAllRolesFromDatabase": {"t", bson.D{{Key: "dropAllRolesFromDatabase", Value: 1}}},
	"grantPrivilegesToRole": {"t", bson.D{{Key: "grantPrivilegesToRole", Value: "r1"}, {Key: "privileges", Value: bson.A{bson.D{
		{Key: "resource", Value: bson.D{{Key: "db", Value: "t"}, {Key: "collection", Value: ""}}}, {Key: "actions", Value: bson.A{"find"}}}}}}},
	"revokePrivilegesFromRole": {"t", bson.D{{Key: "revokePrivilegesFromRole", Value: "r1"}, {Key: "privileges", Value: bson.A{bson.D{
		{Key: "resource", Value: bson.D{{Key: "db", Value: "t"}, {Key: "collection", Value: ""}}}, {Key: "actions", Value: bson.A{"find"}}}}}}},
	"grantRolesToRole":    {"t", bson.D{{Key: "grantRolesToRole", Value: "r1"}, {Key: "roles", Value: bson.A{"read"}}}},
	"revokeRolesFromRole": {"t", bson.D{{Key: "revokeRolesFromRole", Value: "r1"}, {Key: "roles", Value: bson.A{"read"}}}},
	"usersInfo":           {"t", bson.D{{Key: "usersInfo", Value: 1}}},
	"rolesInfo":           {"t", bson.D{{Key: "rolesInfo", Value: 1}}},
	"replSetGetConfig":    {"admin", bson.D{{Key: "replSetGetConfig", Value: 1}}},
	"replSetResizeOplog":  {"admin", bson.D{{Key: "replSetResizeOplog", Value: 1}}},
	"getDefaultRWConcern": {"admin", bson.D{{Key: "getDefaultRWConcern", Value: 1}}},
	"setDefaultRWConcern": {"admin", bson.D{{Key: "setDefaultRWConcern", Value: 1}, {Key: "defaultWriteConcern", Value: bson.D{{Key: "w", Value: 1}}}}},
	"fsync":               {"admin", bson.D{{Key: "fsync", Value: 1}}},
	"compact":             {"t", bson.D{{Key: "compact", Value: "c"}}},
	"logRotate":           {"admin", bson.D{{Key: "logRotate", Value: 1}}},
	"shutdown":            {"admin", bson.D{{Key: "shutdown", Value: 1}}},
	"killOp":              {"admin", bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: 1}}},
	"applyOps":            {"admin", bson.D{{Key: "applyOps", Value: bson.A{}}}},
	"currentOp":           {"admin", bson.D{{Key: "currentOp", Value: 1}}},
	"profile":             {"t", bson.D{{Key: "profile", Value: -1}}},
	"authenticate":        {"$external", bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "MONGODB-X509"}}},
}

// idlFieldCase is one line of testdata/idl_fields.txt.
type idlFieldCase struct {
	line                int
	cmd, field, value   string
	want                string // ok, any, or an error code
	commandName, nested string // "update", "updates" for update.updates
}

func readIDLFields(t *testing.T) []idlFieldCase {
	t.Helper()
	data, err := os.ReadFile("testdata/idl_fields.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []idlFieldCase
	for i, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l == "" || l[0] == '#' {
			continue
		}
		parts := strings.Split(l, " | ")
		if len(parts) != 4 {
			t.Fatalf("line %d: want 4 fields separated by ' | ': %q", i+1, l)
		}
		c := idlFieldCase{line: i + 1, cmd: parts[0], field: parts[1], value: parts[2], want: parts[3]}
		c.commandName, c.nested, _ = strings.Cut(c.cmd, ".")
		out = append(out, c)
	}
	return out
}

// setField sets key to v in d, in place of an existing key or at the end.
func setField(d bson.D, key string, v any) bson.D {
	out := append(bson.D(nil), d...)
	for i := range out {
		if out[i].Key == key {
			out[i].Value = v
			return out
		}
	}
	return append(out, bson.E{Key: key, Value: v})
}

// idlFieldSetup creates t.c ({_id: 1, a: 1}, index a_1), user u1 and role
// r1, and returns t.c's UUID.
func idlFieldSetup(t *testing.T, s *Server) bson.Binary {
	t.Helper()
	wantCode(t, "insert", runCmd(t, s, bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}}}}}), 0)
	wantCode(t, "index", runCmd(t, s, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{bson.D{{Key: "key", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "name", Value: "a_1"}}}}}), 0)
	wantCode(t, "user", runCmd(t, s, bson.D{{Key: "createUser", Value: "u1"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{}}}), 0)
	wantCode(t, "role", runCmd(t, s, bson.D{{Key: "createRole", Value: "r1"}, {Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{}}}), 0)
	r := runCmd(t, s, bson.D{{Key: "listCollections", Value: 1}, {Key: "filter", Value: bson.D{{Key: "name", Value: "c"}}}})
	st, data := r.Lookup("cursor", "firstBatch", "0", "info", "uuid").Binary()
	if len(data) != 16 {
		t.Fatalf("no UUID for t.c: %v", r)
	}
	return bson.Binary{Subtype: st, Data: data}
}

// Every field mongod 7.0 accepts for a command Lode serves is known to
// Lode: applied, or refused with NotImplemented (238) when Lode cannot
// give its meaning, never an unknown field (40415); made-up fields still
// are unknown.
func TestIDLFields(t *testing.T) {
	for _, c := range readIDLFields(t) {
		t.Run(strconv.Itoa(c.line)+"_"+c.cmd+"."+c.field, func(t *testing.T) {
			// Each line has its own server on an in-memory filesystem:
			// the cases are independent and check command parsing, not
			// storage, so they run in parallel.
			t.Parallel()
			base, ok := idlFieldBase[c.cmd]
			if !ok {
				if base, ok = idlFieldBase[c.commandName]; !ok {
					t.Fatalf("line %d: no base command for %s", c.line, c.cmd)
				}
			}
			s := newMemTestServer(t)
			uuid := idlFieldSetup(t, s)
			text := strings.ReplaceAll(c.value, "$UUID", `{"$binary": {"base64": "`+base64.StdEncoding.EncodeToString(uuid.Data)+`", "subType": "04"}}`)
			var wrapped bson.D
			if err := bson.UnmarshalExtJSON([]byte(`{"v": `+text+`}`), false, &wrapped); err != nil {
				t.Fatalf("line %d: value %s: %v", c.line, c.value, err)
			}
			val := wrapped[0].Value
			cmd := append(bson.D(nil), base.cmd...)
			if cmd[0].Value == "$CURSOR" {
				r := runCmd(t, s, bson.D{{Key: "find", Value: "c"}, {Key: "batchSize", Value: 0}})
				cmd[0].Value = r.Lookup("cursor", "id").Int64()
			}
			switch {
			case c.nested == "":
				cmd = setField(cmd, c.field, val)
			default:
				for i := range cmd {
					if cmd[i].Key != c.nested {
						continue
					}
					switch x := cmd[i].Value.(type) {
					case bson.A:
						a := append(bson.A(nil), x...)
						a[0] = setField(a[0].(bson.D), c.field, val)
						cmd[i].Value = a
					case bson.D:
						cmd[i].Value = setField(x, c.field, val)
					}
				}
			}
			reply := runCmdOn(t, s, base.db, cmd)
			checkIDLReply(t, c, cmd, reply)
		})
	}
}

func checkIDLReply(t *testing.T, c idlFieldCase, cmd bson.D, reply bsoncore.Document) {
	t.Helper()
	ok := reply.Lookup("ok").Double() == 1
	code, _ := reply.Lookup("code").AsInt64OK()
	if !ok && code == 0 { // a write error
		if we, err := reply.LookupErr("writeErrors"); err == nil {
			code, _ = we.Array().Index(0).Document().Lookup("code").AsInt64OK()
		}
	} else if ok {
		if we, err := reply.LookupErr("writeErrors"); err == nil {
			ok = false
			code, _ = we.Array().Index(0).Document().Lookup("code").AsInt64OK()
		}
	}
	if c.want != "40415" && c.want != "197" && code == 40415 {
		t.Fatalf("line %d: %v: unknown field: %v", c.line, cmd, reply)
	}
	switch c.want {
	case "ok":
		if !ok {
			t.Fatalf("line %d: %v: want success, got %v", c.line, cmd, reply)
		}
	case "any":
	default:
		want, err := strconv.ParseInt(c.want, 10, 64)
		if err != nil {
			t.Fatalf("line %d: bad want %q", c.line, c.want)
		}
		if ok || code != want {
			t.Fatalf("line %d: %v: want code %d, got %v", c.line, cmd, want, reply)
		}
	}
}

// Fields that were accepted and ignored and are now applied.
func TestIDLFieldEffects(t *testing.T) {
	s := newTestServer(t)
	uuid := idlFieldSetup(t, s)

	// listIndexes: includeIndexBuildInfo wraps each (ready) index as
	// {spec}; with includeBuildUUIDs too it is InvalidOptions.
	r := runCmd(t, s, bson.D{{Key: "listIndexes", Value: "c"}, {Key: "includeIndexBuildInfo", Value: true}})
	wantCode(t, "listIndexes includeIndexBuildInfo", r, 0)
	if name := r.Lookup("cursor", "firstBatch", "0", "spec", "name").StringValue(); name != "_id_" {
		t.Fatalf("listIndexes includeIndexBuildInfo: %v", r)
	}
	r = runCmd(t, s, bson.D{{Key: "listIndexes", Value: "c"}, {Key: "includeBuildUUIDs", Value: true}})
	if name := r.Lookup("cursor", "firstBatch", "0", "name").StringValue(); name != "_id_" {
		t.Fatalf("listIndexes includeBuildUUIDs: %v", r)
	}
	// Key patterns: a wildcard key is refused, not indexed as a field
	// named "$**"; other '$' names are mongod's CannotCreateIndex.
	ci := func(key string) bsoncore.Document {
		return runCmd(t, s, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{bson.D{{Key: "key", Value: bson.D{{Key: key, Value: 1}}}, {Key: "name", Value: "k"}}}}})
	}
	wantCode(t, "wildcard", ci("$**"), 238)
	wantCode(t, "path wildcard", ci("a.$**"), 238)
	wantCode(t, "dollar field", ci("a.$b"), 67)
	ciType := func(typ string) bsoncore.Document {
		return runCmd(t, s, bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{bson.D{{Key: "key", Value: bson.D{{Key: "t", Value: typ}}}, {Key: "name", Value: "t"}}}}})
	}
	wantCode(t, "index type hashed", ciType("hashed"), 0)
	wantCode(t, "drop the hashed index", runCmd(t, s, bson.D{{Key: "dropIndexes", Value: "c"}, {Key: "index", Value: "t"}}), 0)
	wantCode(t, "index type text", ciType("text"), 0)
	wantCode(t, "unknown index type", ciType("bogus"), 67)
	wantCode(t, "listIndexes both", runCmd(t, s, bson.D{{Key: "listIndexes", Value: "c"}, {Key: "includeIndexBuildInfo", Value: true}, {Key: "includeBuildUUIDs", Value: true}}), 72)

	// usersInfo: showCustomData, showAuthenticationRestrictions, filter.
	wantCode(t, "createUser u2", runCmd(t, s, bson.D{{Key: "createUser", Value: "u2"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{}},
		{Key: "customData", Value: bson.D{{Key: "k", Value: 1}}}}), 0)
	users := func(extra ...bson.E) []bsoncore.Value {
		r := runCmd(t, s, append(bson.D{{Key: "usersInfo", Value: 1}}, extra...))
		wantCode(t, "usersInfo", r, 0)
		vals, _ := r.Lookup("users").Array().Values()
		return vals
	}
	if u := users(bson.E{Key: "filter", Value: bson.D{{Key: "user", Value: "u2"}}}); len(u) != 1 || u[0].Document().Lookup("customData", "k").Int32() != 1 {
		t.Fatalf("usersInfo filter: %v", u)
	}
	if u := users(bson.E{Key: "filter", Value: bson.D{{Key: "user", Value: "u2"}}}, bson.E{Key: "showCustomData", Value: false}); len(u) != 1 || u[0].Document().Lookup("customData").Type != 0 {
		t.Fatalf("usersInfo showCustomData false: %v", u)
	}
	for _, u := range users(bson.E{Key: "showAuthenticationRestrictions", Value: true}) {
		if u.Document().Lookup("authenticationRestrictions").Type != bsoncore.TypeArray {
			t.Fatalf("usersInfo showAuthenticationRestrictions: %v", u)
		}
	}
	wantCode(t, "usersInfo bad filter", runCmd(t, s, bson.D{{Key: "usersInfo", Value: 1}, {Key: "filter", Value: bson.D{{Key: "$bogus", Value: 1}}}}), 2)

	// updateUser mechanisms without a password keeps a subset.
	wantCode(t, "updateUser mechanisms", runCmd(t, s, bson.D{{Key: "updateUser", Value: "u2"}, {Key: "mechanisms", Value: bson.A{"SCRAM-SHA-256"}}}), 0)
	u := users(bson.E{Key: "filter", Value: bson.D{{Key: "user", Value: "u2"}}})
	if m, _ := u[0].Document().Lookup("mechanisms").Array().Values(); len(m) != 1 || m[0].StringValue() != "SCRAM-SHA-256" {
		t.Fatalf("updateUser mechanisms: %v", u)
	}
	wantCode(t, "updateUser mechanisms superset", runCmd(t, s, bson.D{{Key: "updateUser", Value: "u2"}, {Key: "mechanisms", Value: bson.A{"SCRAM-SHA-1"}}}), 2)

	// currentOp: a $currentOp stage option is a filter field in the
	// command, as in mongod; the command itself is an active entry.
	r = runCmdOn(t, s, "admin", bson.D{{Key: "currentOp", Value: 1}})
	if n, _ := r.Lookup("inprog").Array().Values(); len(n) == 0 {
		t.Fatalf("currentOp lists nothing: %v", r)
	}
	r = runCmdOn(t, s, "admin", bson.D{{Key: "currentOp", Value: 1}, {Key: "idleCursors", Value: true}})
	if n, _ := r.Lookup("inprog").Array().Values(); len(n) != 0 {
		t.Fatalf("currentOp idleCursors: true is a filter: %v", r)
	}

	// renameCollection checks the source's collectionUUID.
	wantCode(t, "rename with UUID", runCmdOn(t, s, "admin", bson.D{{Key: "renameCollection", Value: "t.c"}, {Key: "to", Value: "t.d"}, {Key: "collectionUUID", Value: uuid}}), 0)
	wantCode(t, "rename moved UUID", runCmdOn(t, s, "admin", bson.D{{Key: "renameCollection", Value: "t.c"}, {Key: "to", Value: "t.e"}, {Key: "collectionUUID", Value: uuid}}), 361)
	wantCode(t, "find renamed by UUID", runCmd(t, s, bson.D{{Key: "find", Value: "d"}, {Key: "collectionUUID", Value: uuid}}), 0)
	wantCode(t, "explain find by UUID", runCmd(t, s, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "d"}, {Key: "collectionUUID", Value: uuid}}}}), 0)
	wantCode(t, "explain find by old UUID", runCmd(t, s, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "e"}, {Key: "collectionUUID", Value: uuid}}}}), 361)
}

// The Stable API arguments: apiStrict refuses commands outside API
// Version 1 and the unstable fields of find and aggregate.
func TestAPIStrict(t *testing.T) {
	s := newTestServer(t)
	idlFieldSetup(t, s)
	v1 := bson.D{{Key: "apiVersion", Value: "1"}}
	strict := append(v1, bson.E{Key: "apiStrict", Value: true})
	with := func(cmd bson.D, extra bson.D) bson.D { return append(append(bson.D(nil), cmd...), extra...) }
	find := bson.D{{Key: "find", Value: "c"}}
	wantCode(t, "find v1", runCmd(t, s, with(find, v1)), 0)
	wantCode(t, "find strict", runCmd(t, s, with(find, strict)), 0)
	wantCode(t, "find deprecation errors", runCmd(t, s, with(find, append(strict, bson.E{Key: "apiDeprecationErrors", Value: true}))), 0)
	wantCode(t, "find tailable strict", runCmd(t, s, with(find, append(strict, bson.E{Key: "noCursorTimeout", Value: true}))), 323)
	wantCode(t, "find tailable not strict", runCmd(t, s, with(find, append(v1, bson.E{Key: "noCursorTimeout", Value: true}))), 0)
	wantCode(t, "aggregate explain strict", runCmd(t, s, with(bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{}}, {Key: "explain", Value: true}}, strict)), 323)
	wantCode(t, "dbStats strict", runCmd(t, s, with(bson.D{{Key: "dbStats", Value: 1}}, strict)), 323)
	wantCode(t, "dbStats v1", runCmd(t, s, with(bson.D{{Key: "dbStats", Value: 1}}, v1)), 0)
	wantCode(t, "distinct strict", runCmd(t, s, with(bson.D{{Key: "distinct", Value: "c"}, {Key: "key", Value: "a"}}, strict)), 323)
	wantCode(t, "listDatabases strict", runCmdOn(t, s, "admin", with(bson.D{{Key: "listDatabases", Value: 1}}, strict)), 0)
	wantCode(t, "findandmodify alias strict", runCmd(t, s, with(bson.D{{Key: "findandmodify", Value: "c"}, {Key: "query", Value: bson.D{}}, {Key: "remove", Value: true}}, strict)), 0)
	wantCode(t, "apiVersion type", runCmd(t, s, with(find, bson.D{{Key: "apiVersion", Value: 1}})), 14)
	wantCode(t, "apiStrict type", runCmd(t, s, with(find, bson.D{{Key: "apiVersion", Value: "1"}, {Key: "apiStrict", Value: 1}})), 14)
}
