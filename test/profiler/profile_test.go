package profiler_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestProfileCommand checks the profile command's replies against
// mongod 7.0's: {was, slowms, sampleRate, ok}, the previous settings; a
// level outside 0..2 only reads; a filter adds the note.
func TestProfileCommand(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	var r bson.M
	if err := db.RunCommand(ctx, bson.D{{Key: "profile", Value: -1}}).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r["was"] != int32(0) || r["slowms"] != int32(100) || r["sampleRate"] != 1.0 {
		t.Fatalf("profile -1: %v", r)
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "profile", Value: 1}, {Key: "slowms", Value: 5}, {Key: "sampleRate", Value: 0.5}}).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r["was"] != int32(0) || r["slowms"] != int32(100) || r["sampleRate"] != 1.0 {
		t.Fatalf("profile 1 reply shows the old settings: %v", r)
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "profile", Value: 7}}).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r["was"] != int32(1) || r["slowms"] != int32(5) || r["sampleRate"] != 0.5 {
		t.Fatalf("profile 7 reads: %v", r)
	}
	// slowms is the server's, the level the database's.
	if err := db.Client().Database("other").RunCommand(ctx, bson.D{{Key: "profile", Value: -1}}).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r["was"] != int32(0) || r["slowms"] != int32(5) {
		t.Fatalf("other db: %v", r)
	}
	filter := bson.D{{Key: "millis", Value: bson.D{{Key: "$gte", Value: 0}}}}
	if err := db.RunCommand(ctx, bson.D{{Key: "profile", Value: 0}, {Key: "filter", Value: filter}, {Key: "sampleRate", Value: 1.0}}).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if _, ok := r["note"]; !ok {
		t.Fatalf("a filter in the request adds the note: %v", r)
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "profile", Value: 0}, {Key: "filter", Value: "unset"}}).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r["filter"] == nil || r["note"] == nil {
		t.Fatalf("the old filter and the note: %v", r)
	}
	err := db.RunCommand(ctx, bson.D{{Key: "profile", Value: 0}, {Key: "sampleRate", Value: 1.5}}).Err()
	ce := testenv.WantCmdError(t, err, 2, "BadValue")
	if ce.Message != "'sampleRate' must be between 0.0 and 1.0 inclusive" {
		t.Fatalf("message: %q", ce.Message)
	}
	err = db.RunCommand(ctx, bson.D{{Key: "profile", Value: 0}, {Key: "filter", Value: "x"}}).Err()
	testenv.WantCmdError(t, err, 2, "BadValue")
	err = db.RunCommand(ctx, bson.D{{Key: "profile", Value: 0}, {Key: "bogus", Value: 1}}).Err()
	testenv.WantCmdError(t, err, 40415, "Location40415")
}

// TestSystemProfile profiles a database at level 2 and reads
// system.profile: a capped collection of 1 MiB holding mongod's entry
// shape, newest last ($natural: -1 reads it newest first).
func TestSystemProfile(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("events")
	testenv.InsertBatches(t, coll, 200, func(i int) any {
		return bson.D{{Key: "_id", Value: i}, {Key: "cat", Value: i % 10}, {Key: "ts", Value: i}}
	})
	testenv.CreateIndex(t, coll, bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: -1}})
	if err := db.RunCommand(ctx, bson.D{{Key: "profile", Value: 2}}).Err(); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Find(ctx, bson.D{{Key: "cat", Value: 3}}, options.Find().SetSort(bson.D{{Key: "ts", Value: -1}}).SetLimit(5))
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.M
	if err := cur.All(ctx, &got); err != nil || len(got) != 5 {
		t.Fatalf("find: %v %d", err, len(got))
	}
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 7}}, bson.D{{Key: "$set", Value: bson.D{{Key: "cat", Value: 99}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1000}, {Key: "cat", Value: 1}, {Key: "ts", Value: 5}}); err != nil {
		t.Fatal(err)
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "profile", Value: 0}}).Err(); err != nil {
		t.Fatal(err)
	}
	var opts bson.M
	specs, err := db.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "system.profile"}})
	if err != nil || len(specs) != 1 {
		t.Fatalf("system.profile listed: %v %v", err, specs)
	}
	if err := bson.Unmarshal(specs[0].Options, &opts); err != nil || opts["capped"] != true || opts["size"] != int64(1<<20) {
		t.Fatalf("system.profile options: %v %v", err, opts)
	}
	prof := db.Collection("system.profile")
	cur, err = prof.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "$natural", Value: -1}}))
	if err != nil {
		t.Fatal(err)
	}
	var entries []bson.M
	if err := cur.All(ctx, &entries); err != nil {
		t.Fatal(err)
	}
	var q, u, ins bson.M
	for _, e := range entries {
		switch e["op"] {
		case "query":
			q = e
		case "update":
			u = e
		case "insert":
			ins = e
		}
	}
	// mongod's write figures: the update moves one cat_ts key, the
	// insert writes a key in each of the two indexes.
	if ins == nil || ins["ninserted"] != int32(1) || ins["keysInserted"] != int32(2) {
		t.Errorf("insert entry: %v", ins)
	}
	// mongod's profiler shows the OP_MSG body (CurOp is given
	// request.body): the documents the driver sent in a document
	// sequence are not in it.
	if cmd, _ := ins["command"].(bson.D); len(cmd) == 0 || cmd[0].Key != "insert" || cmd[0].Value != "events" {
		t.Errorf("an insert entry's command: %v", ins["command"])
	} else {
		for _, e := range cmd {
			if e.Key == "documents" {
				t.Errorf("an insert entry's command is the body, without the documents: %v", cmd)
			}
		}
	}
	if q == nil || u == nil {
		t.Fatalf("want a query and an update entry, got %v", entries)
	}
	for _, f := range []string{"op", "ns", "command", "keysExamined", "docsExamined", "nreturned", "responseLength", "millis", "ts", "client", "allUsers", "user", "numYield", "locks", "protocol", "planSummary"} {
		if _, ok := q[f]; !ok {
			t.Errorf("query entry lacks %s: %v", f, q)
		}
	}
	if q["ns"] != "test.events" || q["planSummary"] != "IXSCAN { cat: 1, ts: -1 }" || q["nreturned"] != int32(5) ||
		q["keysExamined"] != int32(5) || q["docsExamined"] != int32(5) || q["protocol"] != "op_msg" {
		t.Errorf("query entry: %v", q)
	}
	if _, ok := q["ts"].(bson.DateTime); !ok {
		t.Errorf("ts is a date: %T", q["ts"])
	}
	if u["nMatched"] != int32(1) || u["nModified"] != int32(1) || u["planSummary"] != "IDHACK" ||
		u["keysInserted"] != int32(1) || u["keysDeleted"] != int32(1) {
		t.Errorf("update entry: %v", u)
	}
	if cmd, _ := u["command"].(bson.D); len(cmd) < 2 || cmd[0].Key != "q" || cmd[1].Key != "u" {
		t.Errorf("an update entry's command is its statement: %v", u["command"])
	}
	// Level 0: nothing more is written.
	n := testenv.Count(t, prof, bson.D{})
	if _, err := coll.CountDocuments(ctx, bson.D{}); err != nil {
		t.Fatal(err)
	}
	if m := testenv.Count(t, prof, bson.D{}); m != n {
		t.Fatalf("level 0 profiled: %d -> %d", n, m)
	}
}

// TestProfileLevelOne profiles only what is slower than slowms, or, with
// a filter, only what the filter matches.
func TestProfileLevelOne(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("c")
	testenv.InsertBatches(t, coll, 10, func(i int) any { return bson.D{{Key: "_id", Value: i}} })
	if err := db.RunCommand(ctx, bson.D{{Key: "profile", Value: 1}, {Key: "slowms", Value: 60000}}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	prof := db.Collection("system.profile")
	if n := testenv.Count(t, prof, bson.D{}); n != 0 {
		t.Fatalf("nothing is slower than 60 s, got %d entries", n)
	}
	filter := bson.D{{Key: "op", Value: "query"}, {Key: "nreturned", Value: bson.D{{Key: "$gte", Value: 2}}}}
	if err := db.RunCommand(ctx, bson.D{{Key: "profile", Value: 1}, {Key: "filter", Value: filter}}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 4}}}})
	if err != nil {
		t.Fatal(err)
	}
	var all []bson.M
	if err := cur.All(ctx, &all); err != nil {
		t.Fatal(err)
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "profile", Value: 0}, {Key: "filter", Value: "unset"}}).Err(); err != nil {
		t.Fatal(err)
	}
	var entries []bson.M
	cur, err = prof.Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.All(ctx, &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0]["nreturned"] != int32(4) {
		t.Fatalf("the filter profiles the find returning 4 only: %v", entries)
	}
}

// TestProfileGetMore checks a getMore's entry: op "getmore", the cursor
// id, its own figures and the command that opened the cursor.
func TestProfileGetMore(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("c")
	testenv.InsertBatches(t, coll, 5, func(i int) any { return bson.D{{Key: "_id", Value: i}} })
	if err := db.RunCommand(ctx, bson.D{{Key: "profile", Value: 2}}).Err(); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(3))
	if err != nil {
		t.Fatal(err)
	}
	var all []bson.M
	if err := cur.All(ctx, &all); err != nil || len(all) != 5 {
		t.Fatalf("find: %v %d", err, len(all))
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "profile", Value: 0}}).Err(); err != nil {
		t.Fatal(err)
	}
	var g bson.M
	if err := db.Collection("system.profile").FindOne(ctx, bson.D{{Key: "op", Value: "getmore"}}).Decode(&g); err != nil {
		t.Fatal(err)
	}
	orig, _ := g["originatingCommand"].(bson.D)
	if g["ns"] != "test.c" || g["nreturned"] != int32(2) || g["cursorExhausted"] != true || g["cursorid"] == nil ||
		len(orig) == 0 || orig[0].Key != "find" {
		t.Errorf("getmore entry: %v", g)
	}
	// The find and its getMore split the scan of the 5 documents (the
	// scan reads ahead, so not necessarily 3 and 2).
	var f bson.M
	if err := db.Collection("system.profile").FindOne(ctx, bson.D{{Key: "op", Value: "query"}}).Decode(&f); err != nil {
		t.Fatal(err)
	}
	if n := f["docsExamined"].(int32) + g["docsExamined"].(int32); n != 5 || f["nreturned"] != int32(3) {
		t.Errorf("find %v and getmore %v examined %d documents", f, g, n)
	}
}

// TestPlanSummaries checks the planSummary forms mongod 7.0 reports:
// COUNT_SCAN for a count the index answers, IXSCAN with the key pattern,
// IDHACK for an _id equality, COLLSCAN, and RECORD_STORE_FAST_COUNT for
// a count without a filter.
func TestPlanSummaries(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("p")
	testenv.InsertBatches(t, coll, 20, func(i int) any {
		return bson.D{{Key: "_id", Value: i}, {Key: "cat", Value: i % 4}, {Key: "v", Value: i}}
	})
	testenv.CreateIndex(t, coll, bson.D{{Key: "cat", Value: 1}})
	if err := db.RunCommand(ctx, bson.D{{Key: "profile", Value: 2}}).Err(); err != nil {
		t.Fatal(err)
	}
	cmds := []bson.D{
		{{Key: "count", Value: "p"}, {Key: "query", Value: bson.D{{Key: "cat", Value: 1}}}, {Key: "comment", Value: "COUNT_SCAN { cat: 1 }"}},
		{{Key: "count", Value: "p"}, {Key: "comment", Value: "RECORD_STORE_FAST_COUNT"}},
		{{Key: "find", Value: "p"}, {Key: "filter", Value: bson.D{{Key: "cat", Value: 1}, {Key: "v", Value: 5}}}, {Key: "comment", Value: "IXSCAN { cat: 1 }"}},
		{{Key: "find", Value: "p"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: 3}}}, {Key: "comment", Value: "IDHACK"}},
		{{Key: "find", Value: "p"}, {Key: "filter", Value: bson.D{{Key: "v", Value: 3}}}, {Key: "comment", Value: "COLLSCAN"}},
	}
	for _, c := range cmds {
		if err := db.RunCommand(ctx, c).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "profile", Value: 0}}).Err(); err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		want := c[len(c)-1].Value.(string)
		var e bson.M
		if err := db.Collection("system.profile").FindOne(ctx, bson.D{{Key: "command.comment", Value: want}}).Decode(&e); err != nil {
			t.Fatalf("%s: %v", want, err)
		}
		if e["planSummary"] != want {
			t.Errorf("planSummary %v, want %s", e["planSummary"], want)
		}
	}
}
