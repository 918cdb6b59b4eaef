package server

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/xdg-go/scram"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/wire"
)

// rawConn is one wire-protocol connection that sends commands as given,
// without the implicit session a driver adds (as mongod's jstests do
// with disableImplicitSessions), so cursor ownership is what decides.
type rawConn struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
	id int32
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawConn{t: t, nc: nc, r: bufio.NewReader(nc)}
}

// run sends cmd to db and returns the reply, ok or not.
func (c *rawConn) run(db string, cmd bson.D) bson.Raw {
	c.t.Helper()
	body, err := bson.Marshal(append(slices.Clone(cmd), bson.E{Key: "$db", Value: db}))
	if err != nil {
		c.t.Fatal(err)
	}
	c.id++
	_ = c.nc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.nc.Write(wire.AppendMsg(nil, c.id, 0, 0, body)); err != nil {
		c.t.Fatal(err)
	}
	m, err := wire.ReadMessage(c.r)
	if err != nil {
		c.t.Fatal(err)
	}
	reply, err := m.(*wire.Msg).Merged()
	if err != nil {
		c.t.Fatal(err)
	}
	return bson.Raw(reply)
}

// ok runs cmd and fails the test unless it succeeds.
func (c *rawConn) ok(db string, cmd bson.D) bson.Raw {
	c.t.Helper()
	r := c.run(db, cmd)
	if v, _ := r.Lookup("ok").AsFloat64OK(); v != 1 {
		c.t.Fatalf("%v: %v", cmd, r)
	}
	return r
}

// refused runs cmd and checks it fails with code and errmsg.
func (c *rawConn) refused(db string, cmd bson.D, code int32, msg string) {
	c.t.Helper()
	r := c.run(db, cmd)
	got, _ := r.Lookup("code").Int32OK()
	errmsg, _ := r.Lookup("errmsg").StringValueOK()
	if got != code || errmsg != msg {
		c.t.Errorf("%v: got %v, want code %d %q", cmd, r, code, msg)
	}
}

// login authenticates with SCRAM-SHA-256 through saslStart and
// saslContinue and returns the code of a failure (0 on success).
func (c *rawConn) login(user, pwd, db string) int32 {
	c.t.Helper()
	cl, err := scram.SHA256.NewClient(user, pwd, "")
	if err != nil {
		c.t.Fatal(err)
	}
	conv := cl.NewConversation()
	out, err := conv.Step("")
	if err != nil {
		c.t.Fatal(err)
	}
	r := c.run(db, bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "SCRAM-SHA-256"},
		{Key: "payload", Value: bson.Binary{Data: []byte(out)}}, {Key: "options", Value: bson.D{{Key: "skipEmptyExchange", Value: true}}}})
	for {
		if code, ok := r.Lookup("code").Int32OK(); ok {
			return code
		}
		_, payload := r.Lookup("payload").Binary()
		if out, err = conv.Step(string(payload)); err != nil {
			c.t.Fatalf("scram step: %v (%v)", err, r)
		}
		if done, _ := r.Lookup("done").BooleanOK(); done {
			return 0
		}
		r = c.run(db, bson.D{{Key: "saslContinue", Value: 1}, {Key: "conversationId", Value: r.Lookup("conversationId").Int32()},
			{Key: "payload", Value: bson.Binary{Data: []byte(out)}}})
	}
}

// loginAs dials and authenticates, failing the test if it cannot.
func loginAs(t *testing.T, addr, user, pwd, db string) *rawConn {
	t.Helper()
	c := dialRaw(t, addr)
	if code := c.login(user, pwd, db); code != 0 {
		t.Fatalf("login %s@%s: code %d", user, db, code)
	}
	return c
}

// addUser stores a user with password "pw" and the given roles.
func addUser(t *testing.T, s *Server, name, db string, roles ...auth.RoleName) {
	t.Helper()
	creds, err := credentials(name, "pw", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.users.CreateUser(context.Background(), &auth.User{Name: name, DB: db, UserID: auth.NewUserID(), Creds: creds, Roles: roles}); err != nil {
		t.Fatal(err)
	}
}

// addRole stores a user-defined role with the given privileges.
func addRole(t *testing.T, s *Server, name, db string, privs ...auth.Privilege) {
	t.Helper()
	if err := s.users.CreateRole(context.Background(), &auth.Role{Name: name, DB: db, Privileges: privs}); err != nil {
		t.Fatal(err)
	}
}

func cursorID(t *testing.T, r bson.Raw) int64 {
	t.Helper()
	id, ok := r.Lookup("cursor", "id").Int64OK()
	if !ok || id == 0 {
		t.Fatalf("no open cursor in %v", r)
	}
	return id
}

// TestCursorOwnership follows mongod's jstests/auth/getMore.js: a getMore
// or killCursors by another user is refused (13) and leaves the cursor to
// its owner, for find, aggregate and listCollections cursors alike; the
// owner loses the cursor when a role it needed is revoked; killAnyCursor
// kills anyone's cursor.
func TestCursorOwnership(t *testing.T) {
	s, addr := listenServer(t, Config{Auth: true})
	addUser(t, s, "admin", "admin", auth.RoleName{Role: "root", DB: "admin"})
	addUser(t, s, "alice", "t", auth.RoleName{Role: "readWrite", DB: "t"})
	addUser(t, s, "mallory", "t", auth.RoleName{Role: "readWrite", DB: "t"})
	addUser(t, s, "killer", "admin", auth.RoleName{Role: "hostManager", DB: "admin"})
	admin := loginAs(t, addr, "admin", "pw", "admin")
	admin.ok("t", bson.D{{Key: "insert", Value: "foo"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 0}}, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}}}})
	alice := loginAs(t, addr, "alice", "pw", "t")
	mallory := loginAs(t, addr, "mallory", "pw", "t")

	opens := []struct {
		what string
		cmd  bson.D
		coll string
	}{
		{"find", bson.D{{Key: "find", Value: "foo"}, {Key: "batchSize", Value: 0}}, "foo"},
		{"aggregate", bson.D{{Key: "aggregate", Value: "foo"}, {Key: "pipeline", Value: bson.A{}}, {Key: "cursor", Value: bson.D{{Key: "batchSize", Value: 0}}}}, "foo"},
		{"listCollections", bson.D{{Key: "listCollections", Value: 1}, {Key: "cursor", Value: bson.D{{Key: "batchSize", Value: 0}}}}, "$cmd.listCollections"},
		{"listIndexes", bson.D{{Key: "listIndexes", Value: "foo"}, {Key: "cursor", Value: bson.D{{Key: "batchSize", Value: 0}}}}, "foo"},
	}
	for _, o := range opens {
		id := cursorID(t, alice.ok("t", o.cmd))
		getMore := bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: o.coll}}
		mallory.refused("t", getMore, 13, fmt.Sprintf("cursor id %d was not created by the authenticated user", id))
		mallory.refused("t", bson.D{{Key: "killCursors", Value: o.coll}, {Key: "cursors", Value: bson.A{id}}}, 13,
			"not authorized to kill cursor on t."+o.coll)
		// The refusals left the cursor to its owner.
		alice.ok("t", getMore)
	}

	// killCursors: the owner may, and killAnyCursor may kill anyone's.
	id := cursorID(t, alice.ok("t", bson.D{{Key: "find", Value: "foo"}, {Key: "batchSize", Value: 0}}))
	r := loginAs(t, addr, "killer", "pw", "admin").ok("t", bson.D{{Key: "killCursors", Value: "foo"}, {Key: "cursors", Value: bson.A{id, int64(12345)}}})
	if k, _ := r.Lookup("cursorsKilled", "0").Int64OK(); k != id {
		t.Errorf("killAnyCursor: %v", r)
	}
	if nf, _ := r.Lookup("cursorsNotFound", "0").Int64OK(); nf != 12345 {
		t.Errorf("unknown id: %v", r)
	}
	id = cursorID(t, mallory.ok("t", bson.D{{Key: "find", Value: "foo"}, {Key: "batchSize", Value: 0}}))
	r = mallory.ok("t", bson.D{{Key: "killCursors", Value: "foo"}, {Key: "cursors", Value: bson.A{id}}})
	if k, _ := r.Lookup("cursorsKilled", "0").Int64OK(); k != id {
		t.Errorf("owner's killCursors: %v", r)
	}

	// A role revoked since the cursor opened stops it.
	id = cursorID(t, alice.ok("t", bson.D{{Key: "find", Value: "foo"}, {Key: "batchSize", Value: 0}}))
	admin.ok("t", bson.D{{Key: "revokeRolesFromUser", Value: "alice"}, {Key: "roles", Value: bson.A{"readWrite"}}})
	alice.refused("t", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "foo"}}, 13,
		fmt.Sprintf("not authorized for getMore with cursor id %d", id))

	// Without authentication getMore is refused before any cursor lookup.
	dialRaw(t, addr).refused("t", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "foo"}}, 13, "Command getMore requires authentication")
}

// TestCursorOwnershipNeedsAuth: without authorization cursors belong to
// nobody, so any connection may continue one (mongod without --auth).
func TestCursorOwnershipNeedsAuth(t *testing.T) {
	_, addr := listenServer(t, Config{})
	a, b := dialRaw(t, addr), dialRaw(t, addr)
	a.ok("t", bson.D{{Key: "insert", Value: "foo"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 0}}}}})
	id := cursorID(t, a.ok("t", bson.D{{Key: "find", Value: "foo"}, {Key: "batchSize", Value: 0}}))
	b.ok("t", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "foo"}})
}

func dbNames(t *testing.T, r bson.Raw) []string {
	t.Helper()
	vals, err := r.Lookup("databases").Array().Values()
	if err != nil {
		t.Fatalf("%v: %v", r, err)
	}
	var out []string
	for _, v := range vals {
		out = append(out, v.Document().Lookup("name").StringValue())
	}
	return out
}

// TestListDatabasesAuthorizedDatabases: a user with listDatabases on the
// cluster sees every database; others see the databases they hold a
// privilege in, and authorizedDatabases: false is refused to them.
func TestListDatabasesAuthorizedDatabases(t *testing.T) {
	s, addr := listenServer(t, Config{Auth: true})
	addUser(t, s, "admin", "admin", auth.RoleName{Role: "root", DB: "admin"})
	addUser(t, s, "reader", "other", auth.RoleName{Role: "read", DB: "other"})
	addUser(t, s, "anyreader", "admin", auth.RoleName{Role: "readAnyDatabase", DB: "admin"})
	addRole(t, s, "findThird", "admin", auth.Privilege{Resource: auth.Pattern{Kind: auth.PatternCollection, DB: "third", Coll: "c"}, Actions: auth.Actions(auth.ActFind)})
	addUser(t, s, "narrow", "admin", auth.RoleName{Role: "findThird", DB: "admin"})
	admin := loginAs(t, addr, "admin", "pw", "admin")
	for _, ns := range [][2]string{{"other", "x"}, {"third", "c"}, {"fourth", "y"}} {
		admin.ok(ns[0], bson.D{{Key: "insert", Value: ns[1]}, {Key: "documents", Value: bson.A{bson.D{}}}})
	}
	list := bson.D{{Key: "listDatabases", Value: 1}}
	listAll := bson.D{{Key: "listDatabases", Value: 1}, {Key: "authorizedDatabases", Value: false}}
	listOwn := bson.D{{Key: "listDatabases", Value: 1}, {Key: "authorizedDatabases", Value: true}, {Key: "nameOnly", Value: true}}

	reader := loginAs(t, addr, "reader", "pw", "other")
	for _, cmd := range []bson.D{list, listOwn} {
		if got := dbNames(t, reader.ok("admin", cmd)); !slices.Equal(got, []string{"other"}) {
			t.Errorf("read@other %v: %v", cmd, got)
		}
	}
	reader.refused("admin", listAll, 13, "Insufficient permissions to list all databases")
	if got := dbNames(t, loginAs(t, addr, "narrow", "pw", "admin").ok("admin", list)); !slices.Equal(got, []string{"third"}) {
		t.Errorf("find on third.c: %v", got)
	}
	for _, c := range []*rawConn{admin, loginAs(t, addr, "anyreader", "pw", "admin")} {
		for _, cmd := range []bson.D{list, listAll} {
			got := dbNames(t, c.ok("admin", cmd))
			for _, want := range []string{"admin", "fourth", "other", "third"} {
				if !slices.Contains(got, want) {
					t.Errorf("with listDatabases %v: %v lacks %s", cmd, got, want)
				}
			}
		}
	}
}

func collNames(t *testing.T, r bson.Raw) []string {
	t.Helper()
	vals, _ := r.Lookup("cursor", "firstBatch").Array().Values()
	var out []string
	for _, v := range vals {
		out = append(out, v.Document().Lookup("name").StringValue())
	}
	slices.Sort(out)
	return out
}

// TestListCollectionsAuthorizedCollections: authorizedCollections with
// nameOnly lets a user with any privilege in the database list the
// collections it has privileges on; without them listCollections needs
// the listCollections action.
func TestListCollectionsAuthorizedCollections(t *testing.T) {
	s, addr := listenServer(t, Config{Auth: true})
	addUser(t, s, "admin", "admin", auth.RoleName{Role: "root", DB: "admin"})
	addRole(t, s, "findA", "admin", auth.Privilege{Resource: auth.Pattern{Kind: auth.PatternCollection, DB: "t", Coll: "a"}, Actions: auth.Actions(auth.ActFind)})
	addUser(t, s, "narrow", "admin", auth.RoleName{Role: "findA", DB: "admin"})
	addUser(t, s, "reader", "t", auth.RoleName{Role: "read", DB: "t"})
	addUser(t, s, "stranger", "u", auth.RoleName{Role: "read", DB: "u"})
	admin := loginAs(t, addr, "admin", "pw", "admin")
	for _, c := range []string{"a", "b"} {
		admin.ok("t", bson.D{{Key: "create", Value: c}})
	}
	own := bson.D{{Key: "listCollections", Value: 1}, {Key: "nameOnly", Value: true}, {Key: "authorizedCollections", Value: true}}
	plain := bson.D{{Key: "listCollections", Value: 1}}
	ownFull := bson.D{{Key: "listCollections", Value: 1}, {Key: "authorizedCollections", Value: true}}

	narrow := loginAs(t, addr, "narrow", "pw", "admin")
	if got := collNames(t, narrow.ok("t", own)); !slices.Equal(got, []string{"a"}) {
		t.Errorf("authorizedCollections with find on t.a: %v", got)
	}
	narrow.refused("t", plain, 13, "Not authorized to list collections on db: t")
	narrow.refused("t", ownFull, 13, "Not authorized to list collections on db: t")
	reader := loginAs(t, addr, "reader", "pw", "t")
	for _, cmd := range []bson.D{own, plain, ownFull} {
		if got := collNames(t, reader.ok("t", cmd)); !slices.Equal(got, []string{"a", "b"}) {
			t.Errorf("read@t %v: %v", cmd, got)
		}
	}
	loginAs(t, addr, "stranger", "pw", "u").refused("t", own, 13, "Not authorized to list collections on db: t")
}

// TestUpdateUserOwnPasswordAndCustomData: updateUser on oneself needs
// changeOwnPassword / changeOwnCustomData (no built-in role grants them;
// MongoDB's tutorial makes a role for it), changing
// another user needs changePassword / changeCustomData, and replacing
// one's roles needs revokeRole everywhere.
func TestUpdateUserOwnPasswordAndCustomData(t *testing.T) {
	s, addr := listenServer(t, Config{Auth: true})
	addUser(t, s, "admin", "admin", auth.RoleName{Role: "root", DB: "admin"})
	addRole(t, s, "changeOwn", "admin", auth.Privilege{Resource: auth.Pattern{Kind: auth.PatternAnyNormal},
		Actions: auth.Actions(auth.ActChangeOwnPassword, auth.ActChangeOwnCustomData)})
	addUser(t, s, "plain", "t", auth.RoleName{Role: "readWrite", DB: "t"})
	addUser(t, s, "self", "t", auth.RoleName{Role: "readWrite", DB: "t"}, auth.RoleName{Role: "changeOwn", DB: "admin"})

	plain := loginAs(t, addr, "plain", "pw", "t")
	plain.refused("t", bson.D{{Key: "updateUser", Value: "plain"}, {Key: "pwd", Value: "new"}}, 13, "Not authorized to change password of user: plain@t")
	plain.refused("t", bson.D{{Key: "updateUser", Value: "plain"}, {Key: "customData", Value: bson.D{{Key: "k", Value: 1}}}}, 13,
		"Not authorized to change customData of user: plain@t")

	self := loginAs(t, addr, "self", "pw", "t")
	self.refused("t", bson.D{{Key: "updateUser", Value: "plain"}, {Key: "pwd", Value: "new"}}, 13, "Not authorized to change password of user: plain@t")
	self.refused("t", bson.D{{Key: "updateUser", Value: "self"}, {Key: "roles", Value: bson.A{"read"}}}, 13,
		"In order to use updateUser to set roles array, must be authorized to revoke any role in the system")
	self.ok("t", bson.D{{Key: "updateUser", Value: "self"}, {Key: "pwd", Value: "new"}, {Key: "customData", Value: bson.D{{Key: "title", Value: "x"}}}})
	r := self.ok("t", bson.D{{Key: "usersInfo", Value: "self"}})
	if v, _ := r.Lookup("users", "0", "customData", "title").StringValueOK(); v != "x" {
		t.Errorf("usersInfo after changing own customData: %v", r)
	}
	if code := dialRaw(t, addr).login("self", "pw", "t"); code != 18 {
		t.Errorf("old password: code %d, want 18", code)
	}
	loginAs(t, addr, "self", "new", "t")

	// A user administrator changes anyone's.
	loginAs(t, addr, "admin", "pw", "admin").ok("t", bson.D{{Key: "updateUser", Value: "plain"}, {Key: "pwd", Value: "other"},
		{Key: "customData", Value: bson.D{}}, {Key: "roles", Value: bson.A{"read"}}})
	loginAs(t, addr, "plain", "other", "t")
}
