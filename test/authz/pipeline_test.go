// Package authz_test checks, through the Go driver, that every namespace
// a command reads or writes is authorized, whatever database it is in and
// however deep in a pipeline it is named (issue 30). The expectations are
// mongod 7.0's: docs/authorization.md lists what each stage and command
// needs.
package authz_test

import (
	"errors"
	"sort"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/test/testenv"
)

type (
	d = bson.D
	a = bson.A
)

// Outcomes besides an error code.
const (
	ok          = 0  // the command succeeds
	notRefused  = -1 // anything but Unauthorized
	unauthzd    = 13 // Unauthorized
	failedParse = 9  // FailedToParse: mongod's lite parse refuses it before any check
)

// fixture is a server with authorization on: root, and app, whose only
// role is readWrite on database A. B.secret and the users' credentials
// (admin.system.users) and the oplog (local.oplog.rs) hold what app must
// not read.
type fixture struct {
	root, app *mongo.Client
	uri       string
}

func open(t *testing.T) *fixture {
	t.Helper()
	db, err := lode.Open(t.TempDir(), lode.WithAuth("admin", "pw"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := testenv.Ctx(t)
	root := db.Client()
	for _, w := range []struct{ db, coll string }{{"A", "a"}, {"B", "secret"}} {
		if _, err := root.Database(w.db).Collection(w.coll).InsertOne(ctx, d{{Key: "_id", Value: 1}, {Key: "n", Value: 1}, {Key: "loc", Value: d{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: a{0, 0}}}}}); err != nil {
			t.Fatal(err)
		}
	}
	testenv.CreateIndex(t, root.Database("A").Collection("a"), d{{Key: "loc", Value: "2dsphere"}})
	if err := root.Database("A").RunCommand(ctx, d{{Key: "createUser", Value: "app"}, {Key: "pwd", Value: "apppw"}, {Key: "roles", Value: a{"readWrite"}}}).Err(); err != nil {
		t.Fatal(err)
	}
	return &fixture{root: root, app: connect(t, db.URI(), "app", "apppw", "A"), uri: db.URI()}
}

// connect is a driver client authenticated as user of database source.
func connect(t *testing.T, uri, user, pwd, source string) *mongo.Client {
	t.Helper()
	o := options.Client().ApplyURI(uri).SetServerSelectionTimeout(5 * time.Second).SetRetryWrites(false).
		SetAuth(options.Credential{Username: user, Password: pwd, AuthSource: source})
	c, err := mongo.Connect(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Disconnect(testenv.Ctx(t)) })
	return c
}

// attempt is one command app runs, and what mongod answers.
type attempt struct {
	label string
	db    string
	cmd   d
	want  int
}

func aggr(coll any, stages ...d) d {
	p := a{}
	for _, s := range stages {
		p = append(p, s)
	}
	return d{{Key: "aggregate", Value: coll}, {Key: "pipeline", Value: p}, {Key: "cursor", Value: d{}}}
}

func st(name string, spec any) d { return d{{Key: name, Value: spec}} }

func ns(db, coll string) d { return d{{Key: "db", Value: db}, {Key: "coll", Value: coll}} }

// lookupFrom is a $lookup of from with an empty pipeline.
func lookupFrom(from any) d {
	return st("$lookup", d{{Key: "from", Value: from}, {Key: "pipeline", Value: a{}}, {Key: "as", Value: "u"}})
}

var (
	oplog     = lookupFrom(ns("local", "oplog.rs"))
	users     = lookupFrom(ns("admin", "system.users"))
	otherDB   = lookupFrom(ns("B", "secret"))
	sameDB    = lookupFrom("a")
	emptySpec = d{}
)

// run runs at and checks its outcome.
func (f *fixture) run(t *testing.T, at attempt) { t.Helper(); runAs(t, f.app, at) }

// runAs runs at as the user of c.
func runAs(t *testing.T, c *mongo.Client, at attempt) {
	t.Helper()
	var out bson.Raw
	err := c.Database(at.db).RunCommand(testenv.Ctx(t), at.cmd).Decode(&out)
	code := 0
	if err != nil {
		var ce mongo.CommandError
		if !errors.As(err, &ce) {
			t.Errorf("%s: %v", at.label, err)
			return
		}
		code = int(ce.Code)
		if code == unauthzd && ce.Name != "Unauthorized" {
			t.Errorf("%s: codeName %q", at.label, ce.Name)
		}
	}
	switch {
	case at.want == notRefused && code != unauthzd:
	case code == at.want:
	default:
		t.Errorf("%s: got %v (code %d), want code %d", at.label, err, code, at.want)
	}
}

// explained is at run through explain, which needs what the command
// needs.
func explained(at attempt) attempt {
	at.label = "explain " + at.label
	cmd := d{}
	for _, e := range at.cmd {
		if e.Key != "cursor" {
			cmd = append(cmd, e)
		}
	}
	at.cmd = d{{Key: "explain", Value: cmd}}
	return at
}

// stageAttempts gives, for every stage Lode knows, its forms that read or
// write another namespace (another database, the cluster, the users'
// credentials, the oplog) with mongod's answer to a user with readWrite
// on A only, and a form in A that user may run.
var stageAttempts = map[string][]attempt{
	"$match":       {{"", "A", aggr("a", st("$match", emptySpec)), ok}},
	"$project":     {{"", "A", aggr("a", st("$project", d{{Key: "n", Value: 1}})), ok}},
	"$addFields":   {{"", "A", aggr("a", st("$addFields", d{{Key: "x", Value: 1}})), ok}},
	"$set":         {{"", "A", aggr("a", st("$set", d{{Key: "x", Value: 1}})), ok}},
	"$unset":       {{"", "A", aggr("a", st("$unset", "n")), ok}},
	"$group":       {{"", "A", aggr("a", st("$group", d{{Key: "_id", Value: nil}})), ok}},
	"$sort":        {{"", "A", aggr("a", st("$sort", d{{Key: "_id", Value: 1}})), ok}},
	"$limit":       {{"", "A", aggr("a", st("$limit", 1)), ok}},
	"$skip":        {{"", "A", aggr("a", st("$skip", 1)), ok}},
	"$unwind":      {{"", "A", aggr("a", st("$unwind", "$n")), ok}},
	"$count":       {{"", "A", aggr("a", st("$count", "c")), ok}},
	"$sortByCount": {{"", "A", aggr("a", st("$sortByCount", "$n")), ok}},
	"$replaceRoot": {{"", "A", aggr("a", st("$replaceRoot", d{{Key: "newRoot", Value: "$$ROOT"}})), ok}},
	"$replaceWith": {{"", "A", aggr("a", st("$replaceWith", "$$ROOT")), ok}},
	"$bucket":      {{"", "A", aggr("a", st("$bucket", d{{Key: "groupBy", Value: "$n"}, {Key: "boundaries", Value: a{0, 10}}, {Key: "default", Value: "o"}})), ok}},
	"$bucketAuto":  {{"", "A", aggr("a", st("$bucketAuto", d{{Key: "groupBy", Value: "$n"}, {Key: "buckets", Value: 1}})), ok}},
	"$sample":      {{"", "A", aggr("a", st("$sample", d{{Key: "size", Value: 1}})), ok}},
	"$redact":      {{"", "A", aggr("a", st("$redact", "$$KEEP")), ok}},
	"$geoNear": {{"", "A", aggr("a", st("$geoNear", d{{Key: "near", Value: d{{Key: "type", Value: "Point"}, {Key: "coordinates", Value: a{0, 0}}}},
		{Key: "distanceField", Value: "dist"}, {Key: "key", Value: "loc"}})), ok}},
	"$densify": {{"", "A", aggr("a", st("$densify", d{{Key: "field", Value: "n"}, {Key: "range", Value: d{{Key: "step", Value: 1}, {Key: "bounds", Value: "full"}}}})), ok}},
	"$_internalDensify": {{"", "A", aggr("a", st("$sort", d{{Key: "n", Value: 1}}),
		st("$_internalDensify", d{{Key: "field", Value: "n"}, {Key: "range", Value: d{{Key: "step", Value: 1}, {Key: "bounds", Value: "full"}}}})), ok}},
	"$setWindowFields": {{"", "A", aggr("a", st("$setWindowFields", d{{Key: "sortBy", Value: d{{Key: "n", Value: 1}}},
		{Key: "output", Value: d{{Key: "r", Value: d{{Key: "$documentNumber", Value: d{}}}}}}})), ok}},
	"$_internalSetWindowFields": {{"", "A", aggr("a", st("$sort", d{{Key: "n", Value: 1}}), st("$_internalSetWindowFields", d{{Key: "sortBy", Value: d{{Key: "n", Value: 1}}},
		{Key: "output", Value: d{{Key: "r", Value: d{{Key: "$documentNumber", Value: d{}}}}}}})), ok}},
	"$fill":                  {{"", "A", aggr("a", st("$fill", d{{Key: "output", Value: d{{Key: "n", Value: d{{Key: "value", Value: 0}}}}}})), ok}},
	"$documents":             {{"", "A", aggr(1, st("$documents", a{d{{Key: "x", Value: 1}}})), ok}},
	"$_internalUnpackBucket": {{"", "A", aggr("nobuckets", st("$_internalUnpackBucket", d{{Key: "timeField", Value: "t"}, {Key: "bucketMaxSpanSeconds", Value: int32(3600)}})), ok}},
	"$_unpackBucket":         {{"", "A", aggr("nobuckets", st("$_unpackBucket", d{{Key: "timeField", Value: "t"}})), ok}},
	"$_internalBoundedSort": {{"", "A", aggr("nobuckets", st("$_internalUnpackBucket", d{{Key: "timeField", Value: "t"}, {Key: "bucketMaxSpanSeconds", Value: int32(3600)}}),
		st("$_internalBoundedSort", d{{Key: "sortKey", Value: d{{Key: "t", Value: 1}}}, {Key: "bound", Value: d{{Key: "base", Value: "min"}, {Key: "offsetSeconds", Value: 0}}}})), ok}},
	"$lookup": {
		{"same database", "A", aggr("a", sameDB), ok},
		{"from admin.system.users", "A", aggr("a", users), failedParse},
		{"from local.oplog.rs", "A", aggr("a", oplog), unauthzd},
		{"from another user database", "A", aggr("a", otherDB), failedParse},
		{"equality form from local.oplog.rs", "A", aggr("a", st("$lookup", d{{Key: "from", Value: ns("local", "oplog.rs")},
			{Key: "localField", Value: "n"}, {Key: "foreignField", Value: "ts"}, {Key: "as", Value: "u"}})), unauthzd},
		{"from {db: A, coll: a}", "A", aggr("a", lookupFrom(ns("A", "a"))), failedParse},
		{"from config.cache.chunks", "A", aggr("a", lookupFrom(ns("config", "cache.chunks.A.a"))), unauthzd},
		{"$documents sub-pipeline", "A", aggr("a", st("$lookup", d{{Key: "pipeline", Value: a{st("$documents", a{d{}})}}, {Key: "as", Value: "u"}})), ok},
	},
	"$graphLookup": {
		{"same database", "A", aggr("a", st("$graphLookup", d{{Key: "from", Value: "a"}, {Key: "startWith", Value: "$n"},
			{Key: "connectFromField", Value: "n"}, {Key: "connectToField", Value: "_id"}, {Key: "as", Value: "g"}})), ok},
		{"from another database", "A", aggr("a", st("$graphLookup", d{{Key: "from", Value: ns("B", "secret")}, {Key: "startWith", Value: "$n"},
			{Key: "connectFromField", Value: "n"}, {Key: "connectToField", Value: "_id"}, {Key: "as", Value: "g"}})), failedParse},
	},
	"$unionWith": {
		{"same database", "A", aggr("a", st("$unionWith", "a")), ok},
		{"oplog in its pipeline", "A", aggr("a", st("$unionWith", d{{Key: "coll", Value: "a"}, {Key: "pipeline", Value: a{oplog}}})), unauthzd},
		{"system.users in its pipeline", "A", aggr("a", st("$unionWith", d{{Key: "coll", Value: "a"}, {Key: "pipeline", Value: a{users}}})), failedParse},
	},
	"$facet": {
		{"same database", "A", aggr("a", st("$facet", d{{Key: "f", Value: a{sameDB}}})), ok},
		{"oplog in a facet", "A", aggr("a", st("$facet", d{{Key: "f", Value: a{st("$match", emptySpec)}}, {Key: "g", Value: a{oplog}}})), unauthzd},
		{"another database in a facet", "A", aggr("a", st("$facet", d{{Key: "f", Value: a{otherDB}}})), failedParse},
	},
	"$out": {
		{"same database", "A", aggr("a", st("$out", "o")), ok},
		{"to another database", "A", aggr("a", st("$out", ns("B", "o"))), unauthzd},
		{"to admin.system.users", "A", aggr("a", st("$out", ns("admin", "system.users"))), notRefused},
	},
	"$merge": {
		{"same database", "A", aggr("a", st("$merge", "m")), ok},
		{"into another database", "A", aggr("a", st("$merge", d{{Key: "into", Value: ns("B", "m")}})), unauthzd},
		{"into another database, fail when matched", "A", aggr("a", st("$merge", d{{Key: "into", Value: ns("B", "secret")},
			{Key: "whenMatched", Value: "fail"}})), unauthzd},
		{"into another database, discard when not matched", "A", aggr("a", st("$merge", d{{Key: "into", Value: ns("B", "secret")},
			{Key: "whenMatched", Value: "replace"}, {Key: "whenNotMatched", Value: "discard"}})), unauthzd},
	},
	"$collStats": {
		{"own collection", "A", aggr("a", st("$collStats", d{{Key: "count", Value: d{}}})), ok},
		{"another database", "B", aggr("secret", st("$collStats", d{{Key: "count", Value: d{}}})), unauthzd},
	},
	// readWrite has no indexStats (mongod's built-in roles).
	"$indexStats": {{"own collection", "A", aggr("a", st("$indexStats", d{})), unauthzd}},
	// readWrite has no planCacheRead either.
	"$planCacheStats": {{"own collection", "A", aggr("a", st("$planCacheStats", d{})), unauthzd}},
	"$currentOp":      {{"", "admin", aggr(1, st("$currentOp", d{{Key: "allUsers", Value: true}})), unauthzd}},
	"$queryStats":     {{"", "admin", aggr(1, st("$queryStats", d{})), unauthzd}},
	"$changeStream": {
		{"own collection", "A", aggr("a", st("$changeStream", d{})), ok},
		{"another database's collection", "B", aggr("secret", st("$changeStream", d{})), unauthzd},
		{"another database", "B", aggr(1, st("$changeStream", d{})), unauthzd},
		{"the cluster", "admin", aggr(1, st("$changeStream", d{{Key: "allChangesForCluster", Value: true}})), unauthzd},
	},
	"$listSearchIndexes": {
		{"own collection", "A", aggr("a", st("$listSearchIndexes", d{})), 6047401},
		{"another database", "B", aggr("secret", st("$listSearchIndexes", d{})), unauthzd},
	},
	// The Atlas Search stages read the collection, then are refused.
	"$search": {
		{"own collection", "A", aggr("a", st("$search", d{})), 6047401},
		{"another database", "B", aggr("secret", st("$search", d{})), unauthzd},
	},
	"$searchMeta": {
		{"own collection", "A", aggr("a", st("$searchMeta", d{})), 6047401},
		{"another database", "B", aggr("secret", st("$searchMeta", d{})), unauthzd},
	},
	"$vectorSearch": {
		{"own collection", "A", aggr("a", st("$vectorSearch", d{})), 6047401},
		{"another database", "B", aggr("secret", st("$vectorSearch", d{})), unauthzd},
	},
	"$listLocalSessions": {{"all users", "admin", aggr(1, st("$listLocalSessions", d{{Key: "allUsers", Value: true}})), unauthzd}},
	"$listSessions":      {{"all users", "config", aggr("system.sessions", st("$listSessions", d{{Key: "allUsers", Value: true}})), unauthzd}},
}

// TestEveryStageAuthorized walks every stage of agg's registry as a user
// with readWrite on one database: a stage added without an entry here
// fails the test.
func TestEveryStageAuthorized(t *testing.T) {
	f := open(t)
	names := agg.StageNames()
	sort.Strings(names)
	for _, name := range names {
		ats, found := stageAttempts[name]
		if !found {
			t.Errorf("stage %s has no entry in stageAttempts: say what it reads and writes", name)
			continue
		}
		for _, at := range ats {
			at.label = name + " " + at.label
			f.run(t, at)
			if at.want != ok && at.want != notRefused {
				f.run(t, explained(at))
			}
		}
	}
	for name := range stageAttempts {
		if !contains(names, name) {
			t.Errorf("stageAttempts names %s, which agg does not know", name)
		}
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// TestLookupForeignDatabaseAttack is issue 30's report: $lookup's from:
// {db, coll} gave a user of one database every user's SCRAM keys, any
// database and the oplog. mongod restricts the form to its internal
// namespaces (FailedToParse otherwise) and checks find on each at any
// depth.
func TestLookupForeignDatabaseAttack(t *testing.T) {
	f := open(t)
	inLookup := func(inner d) d {
		return st("$lookup", d{{Key: "from", Value: "a"}, {Key: "pipeline", Value: a{inner}}, {Key: "as", Value: "x"}})
	}
	for _, at := range []attempt{
		{"admin.system.users", "A", aggr("a", users), failedParse},
		{"local.oplog.rs", "A", aggr("a", oplog), unauthzd},
		{"another user database", "A", aggr("a", otherDB), failedParse},
		{"oplog in $facet", "A", aggr("a", st("$facet", d{{Key: "f", Value: a{oplog}}})), unauthzd},
		{"oplog in $unionWith's pipeline", "A", aggr("a", st("$unionWith", d{{Key: "coll", Value: "a"}, {Key: "pipeline", Value: a{oplog}}})), unauthzd},
		{"oplog in a $lookup in a $lookup", "A", aggr("a", inLookup(inLookup(oplog))), unauthzd},
		{"oplog in a $lookup in $unionWith in $facet", "A", aggr("a", st("$facet", d{{Key: "f", Value: a{
			st("$unionWith", d{{Key: "coll", Value: "a"}, {Key: "pipeline", Value: a{inLookup(oplog)}}})}}})), unauthzd},
		{"system.users in a $lookup in a $lookup", "A", aggr("a", inLookup(inLookup(users))), failedParse},
		{"$lookup of another database's collection by a string", "A", aggr("a", lookupFrom("B.secret")), ok},
	} {
		f.run(t, at)
		f.run(t, explained(at))
	}
	// The internal namespaces stay readable to who may read them.
	runAs(t, f.root, attempt{"root's $lookup of the oplog", "A", aggr("a", oplog), ok})
	// The string names a collection of A called "B.secret", empty: the
	// join reads nothing of B.
	cur, err := f.app.Database("A").Collection("a").Aggregate(testenv.Ctx(t), a{lookupFrom("B.secret")})
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.M
	if err := cur.All(testenv.Ctx(t), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0]["u"].(bson.A)) != 0 {
		t.Errorf("$lookup from \"B.secret\" in A: %v", got)
	}
}

// TestViewPipelinesAuthorized: defining a view (create, collMod, and
// create through applyOps) needs find on every namespace its pipeline
// reads, at any depth and through views (mongod's
// checkAuthForCreateOrModifyView); what mongod refuses to parse is
// refused first.
func TestViewPipelinesAuthorized(t *testing.T) {
	f := open(t)
	view := func(name, on string, stages ...d) d {
		p := a{}
		for _, s := range stages {
			p = append(p, s)
		}
		return d{{Key: "create", Value: name}, {Key: "viewOn", Value: on}, {Key: "pipeline", Value: p}}
	}
	for _, at := range []attempt{
		{"view on a $lookup of the oplog", "A", view("v1", "a", oplog), unauthzd},
		{"view on a $lookup of admin.system.users", "A", view("v2", "a", users), failedParse},
		{"view on a $lookup of another database", "A", view("v3", "a", otherDB), failedParse},
		{"view on the oplog in $facet", "A", view("v4", "a", st("$facet", d{{Key: "f", Value: a{oplog}}})), unauthzd},
		{"view on the oplog in $unionWith's pipeline", "A", view("v5", "a", st("$unionWith", d{{Key: "coll", Value: "a"}, {Key: "pipeline", Value: a{oplog}}})), unauthzd},
		{"plain view", "A", view("ok", "a", st("$match", emptySpec)), ok},
		{"view over a view, reading the oplog", "A", view("v6", "ok", oplog), unauthzd},
		{"view over a view", "A", view("ok2", "ok", sameDB), ok},
		{"collMod of a view to read the oplog", "A", d{{Key: "collMod", Value: "ok"}, {Key: "viewOn", Value: "a"}, {Key: "pipeline", Value: a{oplog}}}, unauthzd},
		{"applyOps creating a view that reads the oplog", "admin", d{{Key: "applyOps", Value: a{d{{Key: "op", Value: "c"}, {Key: "ns", Value: "A.$cmd"},
			{Key: "o", Value: view("v7", "a", oplog)}}}}}, unauthzd},
		{"applyOps collMod of a view to read the oplog", "admin", d{{Key: "applyOps", Value: a{d{{Key: "op", Value: "c"}, {Key: "ns", Value: "A.$cmd"},
			{Key: "o", Value: d{{Key: "collMod", Value: "ok"}, {Key: "viewOn", Value: "a"}, {Key: "pipeline", Value: a{oplog}}}}}}}}, unauthzd},
	} {
		f.run(t, at)
	}
	names, err := f.root.Database("A").ListCollectionNames(testenv.Ctx(t), d{})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	if want := []string{"a", "ok", "ok2", "system.views"}; !equal(names, want) {
		t.Errorf("collections of A: %v, want %v", names, want)
	}
}

func equal(x, y []string) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// TestCrossDatabaseCommandsAuthorized: the commands that name a namespace
// of another database check it (renameCollection across databases,
// applyOps entries, explain of each explainable one).
func TestCrossDatabaseCommandsAuthorized(t *testing.T) {
	f := open(t)
	for _, at := range []attempt{
		{"renameCollection out of A", "admin", d{{Key: "renameCollection", Value: "A.a"}, {Key: "to", Value: "B.stolen"}}, unauthzd},
		{"renameCollection into A", "admin", d{{Key: "renameCollection", Value: "B.secret"}, {Key: "to", Value: "A.stolen"}}, unauthzd},
		{"applyOps insert into another database", "admin", d{{Key: "applyOps", Value: a{d{{Key: "op", Value: "i"}, {Key: "ns", Value: "B.secret"},
			{Key: "o", Value: d{{Key: "_id", Value: 2}}}}}}}, unauthzd},
		{"applyOps renameCollection into A", "admin", d{{Key: "applyOps", Value: a{d{{Key: "op", Value: "c"}, {Key: "ns", Value: "admin.$cmd"},
			{Key: "o", Value: d{{Key: "renameCollection", Value: "B.secret"}, {Key: "to", Value: "A.stolen"}}}}}}}, unauthzd},
		{"explain find on another database", "B", d{{Key: "explain", Value: d{{Key: "find", Value: "secret"}}}}, unauthzd},
		{"explain aggregate writing another database", "A", explained(attempt{cmd: aggr("a", st("$out", ns("B", "o")))}).cmd, unauthzd},
	} {
		f.run(t, at)
	}
}

// TestRenameWithinDatabaseAuthorized follows mongod's
// checkAuthForRenameCollectionCommand: renameCollectionSameDB renames
// within the database only when the user can read the source or cannot
// read the target either (a rename must not expose what it cannot read),
// and dropTarget needs dropCollection on the target.
func TestRenameWithinDatabaseAuthorized(t *testing.T) {
	f := open(t)
	ctx := testenv.Ctx(t)
	for _, c := range []string{"hidden", "public", "hidden2"} {
		if _, err := f.root.Database("A").Collection(c).InsertOne(ctx, d{{Key: "c", Value: c}}); err != nil {
			t.Fatal(err)
		}
	}
	priv := func(coll string, acts ...string) d {
		l := a{}
		for _, x := range acts {
			l = append(l, x)
		}
		return d{{Key: "resource", Value: d{{Key: "db", Value: "A"}, {Key: "collection", Value: coll}}}, {Key: "actions", Value: l}}
	}
	for _, cmd := range []d{
		{{Key: "createRole", Value: "renamer"}, {Key: "roles", Value: a{}}, {Key: "privileges", Value: a{
			priv("", "renameCollectionSameDB"), priv("public", "find")}}},
		{{Key: "createUser", Value: "ren"}, {Key: "pwd", Value: "renpw"}, {Key: "roles", Value: a{"renamer"}}},
	} {
		if err := f.root.Database("A").RunCommand(ctx, cmd).Err(); err != nil {
			t.Fatal(err)
		}
	}
	ren := connect(t, f.uri, "ren", "renpw", "A")
	rename := func(from, to string, dropTarget bool) d {
		return d{{Key: "renameCollection", Value: from}, {Key: "to", Value: to}, {Key: "dropTarget", Value: dropTarget}}
	}
	for _, at := range []attempt{
		{"an unreadable collection onto a readable one", "admin", rename("A.hidden", "A.public", true), unauthzd},
		{"dropTarget without dropCollection", "admin", rename("A.public", "A.hidden", true), unauthzd},
		{"an unreadable collection to an unreadable name", "admin", rename("A.hidden", "A.hidden3", false), ok},
		{"a readable collection", "admin", rename("A.public", "A.public2", false), ok},
	} {
		runAs(t, ren, at)
	}
}

// TestLookupForeignDatabaseFormRefused: without authorization too, mongod
// refuses $lookup's from: {db, coll} for a user namespace when it parses
// the pipeline.
func TestLookupForeignDatabaseFormRefused(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	if _, err := db.Collection("a").InsertOne(ctx, d{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		from any
		msg  string
	}{
		{ns("admin", "system.users"), "$lookup with syntax {from: {db:<>, coll:<>},..} is not supported for db: admin and coll: system.users"},
		{ns("test", "a"), "$lookup with syntax {from: {db:<>, coll:<>},..} is not supported for db: test and coll: a"},
		{1, "$lookup 'from' field must be a string, but found int"},
	} {
		_, err := db.Collection("a").Aggregate(ctx, a{lookupFrom(c.from)})
		if ce := testenv.WantCmdError(t, err, failedParse, "FailedToParse"); ce.Message != c.msg {
			t.Errorf("from %v: %q, want %q", c.from, ce.Message, c.msg)
		}
	}
	cur, err := db.Collection("a").Aggregate(ctx, a{oplog})
	if err != nil {
		t.Fatalf("$lookup from local.oplog.rs: %v", err)
	}
	cur.Close(ctx)
}
