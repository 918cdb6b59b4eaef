// Package sessions_test checks logical sessions as mongod 7.0 has them,
// through the Go driver: $listLocalSessions over the session cache, the
// cache's refresh into config.system.sessions (refreshLogicalSessionCacheNow
// and the periodic one) with its TTL index, $listSessions over that
// collection, and killSessions, killAllSessions, killAllSessionsByPattern
// and endSessions.
package sessions_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

var noAuthUID = sha256.Sum256(nil)

// aggregate runs pipeline on db ({aggregate: 1}) and returns the documents.
func aggregate(t *testing.T, ctx context.Context, db *mongo.Database, pipeline bson.A) ([]bson.Raw, error) {
	t.Helper()
	cur, err := db.Aggregate(ctx, pipeline)
	if err != nil {
		return nil, err
	}
	var out []bson.Raw
	err = cur.All(ctx, &out)
	return out, err
}

// sessionID returns the lsid.id of a driver session.
func sessionID(t *testing.T, s *mongo.Session) []byte {
	t.Helper()
	_, data := s.ID().Lookup("id").Binary()
	return data
}

// find returns the record of session id among docs, or nil.
func find(docs []bson.Raw, id []byte) bson.Raw {
	for _, d := range docs {
		_, got := d.Lookup("_id", "id").Binary()
		if bytes.Equal(got, id) {
			return d
		}
	}
	return nil
}

// TestListLocalSessions: the session cache lists a session used since the
// last refresh in mongod's shape; the stage's options and placement are
// checked as mongod checks them.
func TestListLocalSessions(t *testing.T) {
	t.Parallel()
	db, _ := testenv.Open(t)
	ctx := testenv.Ctx(t)
	c := db.Client()
	admin := c.Database("admin")
	sess, err := c.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	sctx := mongo.NewSessionContext(ctx, sess)
	if err := c.Database("test").RunCommand(sctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	id := sessionID(t, sess)
	for _, spec := range []bson.D{{}, {{Key: "allUsers", Value: true}}, {{Key: "users", Value: bson.A{bson.D{{Key: "user", Value: ""}, {Key: "db", Value: ""}}}}}} {
		docs, err := aggregate(t, ctx, admin, bson.A{bson.D{{Key: "$listLocalSessions", Value: spec}}})
		if err != nil {
			t.Fatalf("%v: %v", spec, err)
		}
		rec := find(docs, id)
		if rec == nil {
			t.Fatalf("%v: session missing from %v", spec, docs)
		}
		sub, uid := rec.Lookup("_id", "uid").Binary()
		if sub != 0 || !bytes.Equal(uid, noAuthUID[:]) {
			t.Fatalf("uid %x (subtype %d), want sha256(\"\")", uid, sub)
		}
		if _, ok := rec.Lookup("lastUse").DateTimeOK(); !ok {
			t.Fatalf("lastUse not a date: %v", rec)
		}
		if _, err := rec.LookupErr("user"); err == nil {
			t.Fatalf("user field without authentication: %v", rec)
		}
	}
	// Another user's sessions: none are theirs.
	docs, err := aggregate(t, ctx, admin, bson.A{bson.D{{Key: "$listLocalSessions", Value: bson.D{{Key: "users", Value: bson.A{bson.D{{Key: "user", Value: "x"}, {Key: "db", Value: "y"}}}}}}}})
	if err != nil || len(docs) != 0 {
		t.Fatalf("users x@y: %v %v", docs, err)
	}
	// mongod requires {aggregate: 1}, on any database.
	if _, err := aggregate(t, ctx, c.Database("test"), bson.A{bson.D{{Key: "$listLocalSessions", Value: bson.D{}}}}); err != nil {
		t.Fatalf("on test: %v", err)
	}
	for _, tc := range []struct {
		name string
		run  func() error
		code int32
	}{
		{"on a collection", func() error {
			_, err := c.Database("test").Collection("c").Aggregate(ctx, bson.A{bson.D{{Key: "$listLocalSessions", Value: bson.D{}}}})
			return err
		}, 73},
		{"not first", func() error {
			_, err := aggregate(t, ctx, admin, bson.A{bson.D{{Key: "$listLocalSessions", Value: bson.D{}}}, bson.D{{Key: "$listLocalSessions", Value: bson.D{}}}})
			return err
		}, 40602},
		{"allUsers and users", func() error {
			_, err := aggregate(t, ctx, admin, bson.A{bson.D{{Key: "$listLocalSessions", Value: bson.D{{Key: "allUsers", Value: true}, {Key: "users", Value: bson.A{bson.D{{Key: "user", Value: "a"}, {Key: "db", Value: "b"}}}}}}}})
			return err
		}, 12},
		{"not an object", func() error {
			_, err := aggregate(t, ctx, admin, bson.A{bson.D{{Key: "$listLocalSessions", Value: 1}}})
			return err
		}, 14},
		{"allUsers not a bool", func() error {
			_, err := aggregate(t, ctx, admin, bson.A{bson.D{{Key: "$listLocalSessions", Value: bson.D{{Key: "allUsers", Value: 1}}}}})
			return err
		}, 14},
		{"unknown option", func() error {
			_, err := aggregate(t, ctx, admin, bson.A{bson.D{{Key: "$listLocalSessions", Value: bson.D{{Key: "bogus", Value: true}}}}})
			return err
		}, 40415},
		{"user without db", func() error {
			_, err := aggregate(t, ctx, admin, bson.A{bson.D{{Key: "$listLocalSessions", Value: bson.D{{Key: "users", Value: bson.A{bson.D{{Key: "user", Value: "a"}}}}}}}})
			return err
		}, 40414},
		{"in $facet", func() error {
			_, err := c.Database("test").Collection("c").Aggregate(ctx, bson.A{bson.D{{Key: "$facet", Value: bson.D{{Key: "x", Value: bson.A{bson.D{{Key: "$listLocalSessions", Value: bson.D{}}}}}}}}})
			return err
		}, 40600},
		{"$listSessions elsewhere", func() error {
			_, err := c.Database("test").Collection("c").Aggregate(ctx, bson.A{bson.D{{Key: "$listSessions", Value: bson.D{}}}})
			return err
		}, 73},
	} {
		testenv.WantCode(t, tc.name, tc.run(), tc.code)
	}
}

// TestSessionsCollection: refreshLogicalSessionCacheNow (a test command)
// flushes the cache into config.system.sessions with its TTL index and
// empties it; $listSessions reads the collection; endSessions deletes the
// record at the next refresh.
func TestSessionsCollection(t *testing.T) {
	t.Parallel()
	db, _ := testenv.Open(t, lode.WithTestCommands())
	ctx := testenv.Ctx(t)
	c := db.Client()
	admin := c.Database("admin")
	sess, err := c.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	sctx := mongo.NewSessionContext(ctx, sess)
	if _, err := c.Database("test").Collection("c").InsertOne(sctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	id := sessionID(t, sess)
	before := time.Now().Add(-time.Second)
	if err := admin.RunCommand(ctx, bson.D{{Key: "refreshLogicalSessionCacheNow", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	// The cache was emptied: the session is listed again only once used.
	docs, err := aggregate(t, ctx, admin, bson.A{bson.D{{Key: "$listLocalSessions", Value: bson.D{{Key: "allUsers", Value: true}}}}})
	if err != nil || find(docs, id) != nil {
		t.Fatalf("after refresh: %v %v", docs, err)
	}
	sys := c.Database("config").Collection("system.sessions")
	for _, spec := range []bson.D{{}, {{Key: "allUsers", Value: true}}} {
		cur, err := sys.Aggregate(ctx, bson.A{bson.D{{Key: "$listSessions", Value: spec}}})
		if err != nil {
			t.Fatal(err)
		}
		var recs []bson.Raw
		if err := cur.All(ctx, &recs); err != nil {
			t.Fatal(err)
		}
		rec := find(recs, id)
		if rec == nil {
			t.Fatalf("$listSessions %v: session missing from %v", spec, recs)
		}
		if lu := rec.Lookup("lastUse").Time(); lu.Before(before) {
			t.Fatalf("lastUse %v before the refresh", lu)
		}
	}
	cur, err := sys.Aggregate(ctx, bson.A{bson.D{{Key: "$listSessions", Value: bson.D{{Key: "users", Value: bson.A{bson.D{{Key: "user", Value: "x"}, {Key: "db", Value: "y"}}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if cur.RemainingBatchLength() != 0 {
		t.Fatalf("x@y has sessions")
	}
	cur.Close(ctx)
	// The TTL index: lsidTTLIndex on lastUse, 30 minutes.
	ixs, err := sys.Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ix := range ixs {
		if ix.Name == "lsidTTLIndex" {
			found = true
			if ix.ExpireAfterSeconds == nil || *ix.ExpireAfterSeconds != 1800 {
				t.Fatalf("lsidTTLIndex expireAfterSeconds %v, want 1800", ix.ExpireAfterSeconds)
			}
		}
	}
	if !found {
		t.Fatalf("no lsidTTLIndex in %v", ixs)
	}
	// serverStatus reports the refresh as mongod's
	// logicalSessionRecordCache does.
	st := testenv.ServerStatus(t, c).Lookup("logicalSessionRecordCache").Document()
	if st.Lookup("sessionsCollectionJobCount").AsInt64() < 1 || st.Lookup("lastSessionsCollectionJobEntriesRefreshed").AsInt64() < 1 ||
		st.Lookup("sessionCatalogSize").AsInt64() < 1 {
		t.Fatalf("logicalSessionRecordCache: %v", st)
	}
	// endSessions: the record goes at the next refresh.
	sess.EndSession(ctx) // the driver pools it; end it on the server
	if err := admin.RunCommand(ctx, bson.D{{Key: "endSessions", Value: bson.A{bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: id}}}}}}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.RunCommand(ctx, bson.D{{Key: "refreshLogicalSessionCacheNow", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Database("test").RunCommand(ctx, bson.D{{Key: "reapLogicalSessionCacheNow", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	n, err := sys.CountDocuments(ctx, bson.D{{Key: "_id.id", Value: bson.Binary{Subtype: 4, Data: id}}})
	if err != nil || n != 0 {
		t.Fatalf("ended session's record: %d %v", n, err)
	}
}

// TestSessionParameters: without test commands refreshLogicalSessionCacheNow
// does not exist; logicalSessionRefreshMillis and
// localLogicalSessionTimeoutMinutes are startup parameters, reported by
// getParameter, refused by setParameter, and honoured: the periodic
// refresh writes the collection, and the timeout is hello's and the TTL
// index's.
func TestSessionParameters(t *testing.T) {
	t.Parallel()
	ctx := testenv.Ctx(t)
	{
		db, _ := testenv.Open(t)
		for _, name := range []string{"refreshLogicalSessionCacheNow", "reapLogicalSessionCacheNow"} {
			err := db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: name, Value: 1}}).Err()
			testenv.WantCode(t, name+" without test commands", err, 59)
		}
	}
	if _, err := lode.Open(t.TempDir(), lode.WithSetParameter("localLogicalSessionTimeoutMinutes", "0")); err == nil {
		t.Fatal("Open accepted localLogicalSessionTimeoutMinutes=0")
	}
	db, _ := testenv.Open(t, lode.WithSetParameter("logicalSessionRefreshMillis", "100"),
		lode.WithSetParameter("localLogicalSessionTimeoutMinutes", "7"))
	c := db.Client()
	admin := c.Database("admin")
	var p bson.Raw
	if err := admin.RunCommand(ctx, bson.D{{Key: "getParameter", Value: 1}, {Key: "logicalSessionRefreshMillis", Value: 1}, {Key: "localLogicalSessionTimeoutMinutes", Value: 1}}).Decode(&p); err != nil {
		t.Fatal(err)
	}
	if p.Lookup("logicalSessionRefreshMillis").AsInt64() != 100 || p.Lookup("localLogicalSessionTimeoutMinutes").AsInt64() != 7 {
		t.Fatalf("getParameter: %v", p)
	}
	err := admin.RunCommand(ctx, bson.D{{Key: "setParameter", Value: 1}, {Key: "localLogicalSessionTimeoutMinutes", Value: 5}}).Err()
	testenv.WantCode(t, "setParameter at runtime", err, 20)
	var hello bson.Raw
	if err := admin.RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		t.Fatal(err)
	}
	if hello.Lookup("logicalSessionTimeoutMinutes").AsInt64() != 7 {
		t.Fatalf("hello: %v", hello)
	}
	sess, err := c.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	if err := c.Database("test").RunCommand(mongo.NewSessionContext(ctx, sess), bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	sys := c.Database("config").Collection("system.sessions")
	filter := bson.D{{Key: "_id.id", Value: bson.Binary{Subtype: 4, Data: sessionID(t, sess)}}}
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := sys.CountDocuments(ctx, filter)
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the periodic refresh did not write the session")
		}
		time.Sleep(50 * time.Millisecond)
	}
	ixs, err := sys.Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ix := range ixs {
		if ix.Name == "lsidTTLIndex" && (ix.ExpireAfterSeconds == nil || *ix.ExpireAfterSeconds != 420) {
			t.Fatalf("lsidTTLIndex: %+v", ix)
		}
	}
}

// TestKillSessions: killSessions, killAllSessionsByPattern and
// killAllSessions abort the sessions' transactions and kill their
// cursors; patterns and users that match nothing kill nothing.
func TestKillSessions(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	c := db.Client()
	admin := c.Database("admin")
	coll := d.Collection("c")
	docs := make([]any, 5)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	lsidOf := func(s *mongo.Session) bson.D {
		return bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: sessionID(t, s)}}}
	}
	fullLsid := func(s *mongo.Session) bson.D {
		return append(lsidOf(s), bson.E{Key: "uid", Value: bson.Binary{Subtype: 0, Data: noAuthUID[:]}})
	}
	// killer runs cmd while a session has an open transaction and an
	// open cursor; killed says whether both must be gone after.
	check := func(name string, cmd func(s *mongo.Session) bson.D, killed bool) {
		t.Helper()
		sess, err := c.StartSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.EndSession(ctx)
		sctx := mongo.NewSessionContext(ctx, sess)
		cur, err := coll.Find(sctx, bson.D{}, options.Find().SetBatchSize(1))
		if err != nil {
			t.Fatal(err)
		}
		defer cur.Close(ctx)
		if err := sess.StartTransaction(); err != nil {
			t.Fatal(err)
		}
		if _, err := coll.InsertOne(sctx, bson.D{{Key: "_id", Value: name}}); err != nil {
			t.Fatal(err)
		}
		if err := admin.RunCommand(ctx, cmd(sess)).Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		err = sess.CommitTransaction(ctx)
		n := 0
		for cur.Next(sctx) {
			n++
		}
		if killed {
			testenv.WantCode(t, name+": commit", err, 251)
			testenv.WantCode(t, name+": getMore", cur.Err(), 43)
			return
		}
		if err != nil || cur.Err() != nil || n < 5 {
			t.Fatalf("%s killed the session: commit %v, cursor %v after %d", name, err, cur.Err(), n)
		}
	}
	check("killSessions", func(s *mongo.Session) bson.D {
		return bson.D{{Key: "killSessions", Value: bson.A{lsidOf(s)}}}
	}, true)
	check("killSessions other", func(*mongo.Session) bson.D {
		return bson.D{{Key: "killSessions", Value: bson.A{bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}}}}}
	}, false)
	check("killAllSessionsByPattern lsid", func(s *mongo.Session) bson.D {
		return bson.D{{Key: "killAllSessionsByPattern", Value: bson.A{bson.D{{Key: "lsid", Value: fullLsid(s)}}}}}
	}, true)
	check("killAllSessionsByPattern uid", func(*mongo.Session) bson.D {
		return bson.D{{Key: "killAllSessionsByPattern", Value: bson.A{bson.D{{Key: "uid", Value: bson.Binary{Data: noAuthUID[:]}}}}}}
	}, true)
	check("killAllSessionsByPattern other uid", func(*mongo.Session) bson.D {
		return bson.D{{Key: "killAllSessionsByPattern", Value: bson.A{bson.D{{Key: "uid", Value: bson.Binary{Data: make([]byte, 32)}}}}}}
	}, false)
	check("killAllSessions user", func(*mongo.Session) bson.D {
		return bson.D{{Key: "killAllSessions", Value: bson.A{bson.D{{Key: "user", Value: "x"}, {Key: "db", Value: "y"}}}}}
	}, false)
	check("killAllSessions", func(*mongo.Session) bson.D {
		return bson.D{{Key: "killAllSessions", Value: bson.A{}}}
	}, true)
	err := admin.RunCommand(ctx, bson.D{{Key: "killAllSessionsByPattern", Value: bson.A{bson.D{{Key: "users", Value: bson.A{}}}}}}).Err()
	testenv.WantCode(t, "impersonation", err, 238)
	err = admin.RunCommand(ctx, bson.D{{Key: "killAllSessionsByPattern", Value: bson.A{bson.D{{Key: "bogus", Value: 1}}}}}).Err()
	testenv.WantCode(t, "unknown pattern field", err, 40415)
	err = admin.RunCommand(ctx, bson.D{{Key: "killAllSessions", Value: bson.A{bson.D{{Key: "user", Value: "x"}}}}}).Err()
	testenv.WantCode(t, "user without db", err, 40414)
	zero := bson.Binary{Subtype: 4, Data: make([]byte, 16)}
	err = admin.RunCommand(ctx, bson.D{{Key: "killSessions", Value: bson.A{bson.D{{Key: "id", Value: zero}, {Key: "txnUUID", Value: zero}}}}}).Err()
	testenv.WantCode(t, "internal session lsid", err, 238)
	err = admin.RunCommand(ctx, bson.D{{Key: "endSessions", Value: bson.A{bson.D{{Key: "id", Value: zero}, {Key: "bogus", Value: 1}}}}}).Err()
	testenv.WantCode(t, "unknown lsid field", err, 40415)
}

// TestSessionsAuth: under authentication a session belongs to its user
// (uid sha256("user@db"), user {name: "user@db"}); listing one's own
// sessions needs no privilege, allUsers and other users need
// listSessions.
func TestSessionsAuth(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := lode.Open(dir, lode.WithAuth("admin", "pw"), lode.WithTestCommands())
	if err != nil {
		t.Fatal(err)
	}
	ctx := testenv.Ctx(t)
	root := db.Client()
	if err := root.Database("test").RunCommand(ctx, bson.D{{Key: "createUser", Value: "app"}, {Key: "pwd", Value: "apppw"},
		{Key: "roles", Value: bson.A{"readWrite"}}}).Err(); err != nil {
		t.Fatal(err)
	}
	app, err := mongo.Connect(options.Client().ApplyURI(db.URI()).SetAuth(options.Credential{Username: "app", Password: "apppw", AuthSource: "test"}))
	if err != nil {
		t.Fatal(err)
	}
	defer app.Disconnect(ctx)
	sess, err := app.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	if _, err := app.Database("test").Collection("c").InsertOne(mongo.NewSessionContext(ctx, sess), bson.D{}); err != nil {
		t.Fatal(err)
	}
	id := sessionID(t, sess)
	uid := sha256.Sum256([]byte("app@test"))
	docs, err := aggregate(t, ctx, app.Database("admin"), bson.A{bson.D{{Key: "$listLocalSessions", Value: bson.D{}}}})
	if err != nil {
		t.Fatal(err)
	}
	rec := find(docs, id)
	if rec == nil {
		t.Fatalf("own session missing: %v", docs)
	}
	if _, got := rec.Lookup("_id", "uid").Binary(); !bytes.Equal(got, uid[:]) {
		t.Fatalf("uid %x, want sha256(app@test)", got)
	}
	if name := rec.Lookup("user", "name").StringValue(); name != "app@test" {
		t.Fatalf("user %q", name)
	}
	for _, d := range docs {
		if _, got := d.Lookup("_id", "uid").Binary(); !bytes.Equal(got, uid[:]) {
			t.Fatalf("another user's session listed: %v", d)
		}
	}
	self := bson.D{{Key: "users", Value: bson.A{bson.D{{Key: "user", Value: "app"}, {Key: "db", Value: "test"}}}}}
	if _, err := aggregate(t, ctx, app.Database("admin"), bson.A{bson.D{{Key: "$listLocalSessions", Value: self}}}); err != nil {
		t.Fatalf("users: [self]: %v", err)
	}
	_, err = aggregate(t, ctx, app.Database("admin"), bson.A{bson.D{{Key: "$listLocalSessions", Value: bson.D{{Key: "allUsers", Value: true}}}}})
	testenv.WantCode(t, "allUsers without listSessions", err, 13)
	// root (listSessions) sees app's session.
	docs, err = aggregate(t, ctx, root.Database("admin"), bson.A{bson.D{{Key: "$listLocalSessions", Value: bson.D{{Key: "allUsers", Value: true}}}}})
	if err != nil || find(docs, id) == nil {
		t.Fatalf("root allUsers: %v %v", docs, err)
	}
	if err := root.Database("admin").RunCommand(ctx, bson.D{{Key: "refreshLogicalSessionCacheNow", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	// $listSessions, an initial source, needs no find on
	// config.system.sessions (as in mongod, any user lists their own
	// records); allUsers needs listSessions.
	appSys := app.Database("config").Collection("system.sessions")
	cur, err := appSys.Aggregate(ctx, bson.A{bson.D{{Key: "$listSessions", Value: bson.D{}}}})
	if err != nil {
		t.Fatalf("app $listSessions: %v", err)
	}
	var recs []bson.Raw
	if err := cur.All(ctx, &recs); err != nil {
		t.Fatal(err)
	}
	if rec := find(recs, id); rec == nil || rec.Lookup("user", "name").StringValue() != "app@test" {
		t.Fatalf("app $listSessions: %v", recs)
	}
	for _, r := range recs {
		if _, got := r.Lookup("_id", "uid").Binary(); !bytes.Equal(got, uid[:]) {
			t.Fatalf("another user's record listed: %v", r)
		}
	}
	_, err = appSys.Aggregate(ctx, bson.A{bson.D{{Key: "$listSessions", Value: bson.D{{Key: "allUsers", Value: true}}}}})
	testenv.WantCode(t, "$listSessions allUsers without listSessions", err, 13)
	_, err = appSys.Find(ctx, bson.D{})
	testenv.WantCode(t, "find on config.system.sessions", err, 13)
	cur, err = root.Database("config").Collection("system.sessions").Aggregate(ctx, bson.A{bson.D{{Key: "$listSessions", Value: bson.D{{Key: "allUsers", Value: true}}}}})
	if err != nil {
		t.Fatalf("root $listSessions allUsers: %v", err)
	}
	recs = nil
	if err := cur.All(ctx, &recs); err != nil || find(recs, id) == nil {
		t.Fatalf("root $listSessions allUsers: %v %v", recs, err)
	}
	// killSessions naming another user's uid needs killAnySession.
	other := bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: id}}, {Key: "uid", Value: bson.Binary{Data: make([]byte, 32)}}}
	err = app.Database("admin").RunCommand(ctx, bson.D{{Key: "killSessions", Value: bson.A{other}}}).Err()
	testenv.WantCode(t, "killSessions spoofed uid", err, 13)
	err = app.Database("admin").RunCommand(ctx, bson.D{{Key: "killAllSessions", Value: bson.A{}}}).Err()
	testenv.WantCode(t, "killAllSessions without killAnySession", err, 13)
	// config.system.sessions is a collection like any: reopened without
	// authentication, the data directory still holds the record, with
	// its user.
	app.Disconnect(ctx)
	db.Close()
	db, err = lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var got bson.Raw
	if err := db.Client().Database("config").Collection("system.sessions").FindOne(ctx, bson.D{{Key: "_id.id", Value: bson.Binary{Subtype: 4, Data: id}}}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if name := got.Lookup("user", "name").StringValue(); name != "app@test" {
		t.Fatalf("record %v", got)
	}
	if _, u := got.Lookup("_id", "uid").Binary(); !bytes.Equal(u, uid[:]) {
		t.Fatalf("record %v", got)
	}
}

// TestKillSessionsInterrupts: killSessions interrupts a command running in
// the session (a getMore waiting on a tailable cursor) with Interrupted
// (11601), as mongod's killSessions kills the session's operations.
func TestKillSessionsInterrupts(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	c := db.Client()
	coll := testenv.CreateCapped(t, d, "events", 1<<20, 0)
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	sess, err := c.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	sctx := mongo.NewSessionContext(ctx, sess)
	cur, err := coll.Find(sctx, bson.D{}, options.Find().SetCursorType(options.TailableAwait).SetMaxAwaitTime(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(ctx)
	if !cur.Next(sctx) {
		t.Fatal(cur.Err())
	}
	done := make(chan error, 1)
	go func() {
		cur.TryNext(sctx)
		done <- cur.Err()
	}()
	admin := c.Database("admin")
	deadline := time.Now().Add(10 * time.Second)
	for {
		ops, err := aggregate(t, ctx, admin, bson.A{
			bson.D{{Key: "$currentOp", Value: bson.D{}}},
			bson.D{{Key: "$match", Value: bson.D{{Key: "op", Value: "getmore"}, {Key: "ns", Value: "test.events"}}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(ops) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the getMore never ran")
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	lsid := bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: sessionID(t, sess)}}}
	if err := admin.RunCommand(ctx, bson.D{{Key: "killSessions", Value: bson.A{lsid}}}).Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		testenv.WantCode(t, "interrupted getMore", err, 11601)
	case <-time.After(10 * time.Second):
		t.Fatal("the getMore was not interrupted")
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("killSessions took %v", time.Since(start))
	}
}
