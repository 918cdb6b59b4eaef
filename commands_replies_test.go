package lode_test

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// replyCheck inspects one command reply; err is the command's error.
type replyCheck func(t *testing.T, r bson.Raw, err error)

// ok1 fails unless the command succeeded.
func ok1(t *testing.T, r bson.Raw, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("command failed: %v", err)
	}
	if v, e := r.LookupErr("ok"); e != nil || v.Type != bson.TypeDouble || v.Double() != 1 {
		t.Fatalf("want ok: 1.0, got %v", r)
	}
}

// field returns a field of r by dotted path, failing if it is missing.
func field(t *testing.T, r bson.Raw, path string) bson.RawValue {
	t.Helper()
	v, err := r.LookupErr(strings.Split(path, ".")...)
	if err != nil {
		t.Fatalf("reply lacks %s: %v", path, r)
	}
	return v
}

// wantInt32 checks an int32 field.
func wantInt32(t *testing.T, r bson.Raw, path string, want int32) {
	t.Helper()
	v := field(t, r, path)
	if got, ok := v.Int32OK(); !ok || got != want {
		t.Fatalf("%s = %v (%v), want int32 %d", path, v, v.Type, want)
	}
}

// wantAbsent checks that r has no field name at the top level.
func wantAbsent(t *testing.T, r bson.Raw, name string) {
	t.Helper()
	if _, err := r.LookupErr(name); err == nil {
		t.Fatalf("reply must not have %s: %v", name, r)
	}
}

// wantCode checks a command error's code and codeName.
func wantCmdCode(t *testing.T, err error, code int32, name string) mongo.CommandError {
	t.Helper()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != code || ce.Name != name {
		t.Fatalf("want error %d %s, got %v", code, name, err)
	}
	return ce
}

// firstBatch returns cursor.firstBatch as documents.
func firstBatch(t *testing.T, r bson.Raw) []bson.Raw {
	t.Helper()
	vals, err := field(t, r, "cursor.firstBatch").Array().Values()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]bson.Raw, len(vals))
	for i, v := range vals {
		out[i] = v.Document()
	}
	return out
}

// helloShape checks the fields MongoDB 7.0's hello/isMaster carry for a
// writable primary (issue 2 wants no topologyVersion: Lode does not do
// streaming hello).
func helloShape(primaryField string) replyCheck {
	return func(t *testing.T, r bson.Raw, err error) {
		ok1(t, r, err)
		if !field(t, r, primaryField).Boolean() {
			t.Fatalf("%s must be true: %v", primaryField, r)
		}
		wantInt32(t, r, "maxBsonObjectSize", 16777216)
		wantInt32(t, r, "maxMessageSizeBytes", 48000000)
		wantInt32(t, r, "maxWriteBatchSize", 100000)
		wantInt32(t, r, "logicalSessionTimeoutMinutes", 30)
		wantInt32(t, r, "minWireVersion", 0)
		wantInt32(t, r, "maxWireVersion", 21)
		if lt := field(t, r, "localTime").Time(); time.Since(lt).Abs() > time.Minute {
			t.Fatalf("localTime %v is not now", lt)
		}
		if id, ok := field(t, r, "connectionId").Int32OK(); !ok || id <= 0 {
			t.Fatalf("connectionId must be a positive int32: %v", r)
		}
		if field(t, r, "readOnly").Boolean() {
			t.Fatal("readOnly must be false")
		}
		wantAbsent(t, r, "topologyVersion")
	}
}

// TestCommandReplyShapes runs server and collection commands through the
// Go driver and checks the reply shapes MongoDB 7.0 documents.
func TestCommandReplyShapes(t *testing.T) {
	db, d := open(t)
	c := ctx(t)
	admin := db.Client().Database("admin")
	coll := d.Collection("shapes")
	if _, err := coll.InsertMany(c, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.A{1, 2, 3, 4, 5}},
			{Key: "s", Value: bson.A{bson.D{{Key: "k", Value: 1}, {Key: "v", Value: "a"}}, bson.D{{Key: "k", Value: 2}, {Key: "v", Value: "b"}}}}},
		bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: bson.A{7, 8}}},
		bson.D{{Key: "_id", Value: 3}, {Key: "a", Value: bson.A{9}}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := d.CreateCollection(c, "other"); err != nil {
		t.Fatal(err)
	}
	ids := func(t *testing.T, docs []bson.Raw) string {
		var s []string
		for _, d := range docs {
			s = append(s, d.String())
		}
		return strings.Join(s, ",")
	}

	cases := []struct {
		name  string
		db    *mongo.Database
		cmd   bson.D
		check replyCheck
	}{
		{"hello", admin, bson.D{{Key: "hello", Value: 1}, {Key: "helloOk", Value: true}}, func(t *testing.T, r bson.Raw, err error) {
			helloShape("isWritablePrimary")(t, r, err)
			if !field(t, r, "helloOk").Boolean() {
				t.Fatal("helloOk must echo true")
			}
			wantAbsent(t, r, "ismaster")
		}},
		{"hello without helloOk", admin, bson.D{{Key: "hello", Value: 1}}, func(t *testing.T, r bson.Raw, err error) {
			helloShape("isWritablePrimary")(t, r, err)
			wantAbsent(t, r, "helloOk")
		}},
		{"isMaster", admin, bson.D{{Key: "isMaster", Value: 1}}, func(t *testing.T, r bson.Raw, err error) {
			helloShape("ismaster")(t, r, err)
			wantAbsent(t, r, "isWritablePrimary")
		}},
		{"buildInfo", admin, bson.D{{Key: "buildInfo", Value: 1}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			v := field(t, r, "version").StringValue()
			if !regexp.MustCompile(`^7\.0\.\d+$`).MatchString(v) {
				t.Fatalf("version %q is not 7.0.x", v)
			}
			arr, _ := field(t, r, "versionArray").Array().Values()
			want := strings.Split(v, ".")
			if len(arr) != 4 || fmt.Sprint(arr[0].Int32(), ".", arr[1].Int32(), ".", arr[2].Int32()) != strings.Join(want, ".") || arr[3].Int32() != 0 {
				t.Fatalf("versionArray %v does not match %s", arr, v)
			}
			wantInt32(t, r, "bits", 64)
			wantInt32(t, r, "maxBsonObjectSize", 16777216)
			field(t, r, "gitVersion")
			field(t, r, "storageEngines")
		}},
		{"getParameter *", admin, bson.D{{Key: "getParameter", Value: "*"}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			if v := field(t, r, "featureCompatibilityVersion.version").StringValue(); v != "7.0" {
				t.Fatalf("FCV %q", v)
			}
			if len(mustElems(t, r)) < 5 {
				t.Fatalf("getParameter '*' returns too few parameters: %v", r)
			}
		}},
		{"getParameter featureCompatibilityVersion", admin, bson.D{{Key: "getParameter", Value: 1}, {Key: "featureCompatibilityVersion", Value: 1}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			if v := field(t, r, "featureCompatibilityVersion.version").StringValue(); v != "7.0" {
				t.Fatalf("FCV %q", v)
			}
			wantAbsent(t, r, "logLevel")
		}},
		{"getParameter unknown", admin, bson.D{{Key: "getParameter", Value: 1}, {Key: "noSuchParameter", Value: 1}}, func(t *testing.T, r bson.Raw, err error) {
			wantCmdCode(t, err, 72, "InvalidOptions")
		}},
		{"hostInfo", admin, bson.D{{Key: "hostInfo", Value: 1}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			field(t, r, "system.currentTime").Time()
			if field(t, r, "system.hostname").StringValue() == "" {
				t.Fatal("hostname empty")
			}
			if n, ok := field(t, r, "system.numCores").Int32OK(); !ok || n < 1 {
				t.Fatalf("numCores: %v", r)
			}
			field(t, r, "os.type")
			field(t, r, "extra")
		}},
		{"whatsmyuri", admin, bson.D{{Key: "whatsmyuri", Value: 1}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			if you := field(t, r, "you").StringValue(); !regexp.MustCompile(`^127\.0\.0\.1:\d+$`).MatchString(you) {
				t.Fatalf("you = %q", you)
			}
		}},
		{"connectionStatus", admin, bson.D{{Key: "connectionStatus", Value: 1}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			for _, f := range []string{"authInfo.authenticatedUsers", "authInfo.authenticatedUserRoles"} {
				if vals, _ := field(t, r, f).Array().Values(); len(vals) != 0 {
					t.Fatalf("%s must be empty without auth: %v", f, r)
				}
			}
		}},
		{"getLog *", admin, bson.D{{Key: "getLog", Value: "*"}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			names, _ := field(t, r, "names").Array().Values()
			if len(names) != 2 || names[0].StringValue() != "global" || names[1].StringValue() != "startupWarnings" {
				t.Fatalf("names = %v", names)
			}
		}},
		{"getLog global", admin, bson.D{{Key: "getLog", Value: "global"}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			lines, _ := field(t, r, "log").Array().Values()
			total := field(t, r, "totalLinesWritten").AsInt64()
			if len(lines) == 0 || total < int64(len(lines)) {
				t.Fatalf("log has %d lines, totalLinesWritten %d", len(lines), total)
			}
			if !strings.HasPrefix(lines[0].StringValue(), `{"t":{"$date":`) {
				t.Fatalf("log lines are mongod's JSON: %q", lines[0].StringValue())
			}
		}},
		{"getLog unknown", admin, bson.D{{Key: "getLog", Value: "nosuchlog"}}, func(t *testing.T, r bson.Raw, err error) {
			ce := wantCmdCode(t, err, 96, "OperationFailed")
			if ce.Message != "No log named 'nosuchlog'" {
				t.Fatalf("message %q", ce.Message)
			}
		}},
		{"killCursors not found", d, bson.D{{Key: "killCursors", Value: "shapes"}, {Key: "cursors", Value: bson.A{int64(987654321)}}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			nf, _ := field(t, r, "cursorsNotFound").Array().Values()
			if len(nf) != 1 || nf[0].Int64() != 987654321 {
				t.Fatalf("cursorsNotFound: %v", r)
			}
			for _, f := range []string{"cursorsKilled", "cursorsAlive", "cursorsUnknown"} {
				if v, _ := field(t, r, f).Array().Values(); len(v) != 0 {
					t.Fatalf("%s: %v", f, r)
				}
			}
		}},
		{"killCursors without cursors", d, bson.D{{Key: "killCursors", Value: "shapes"}}, func(t *testing.T, r bson.Raw, err error) {
			ce := wantCmdCode(t, err, 40414, "Location40414")
			if ce.Message != "BSON field 'killCursors.cursors' is missing but a required field" {
				t.Fatalf("message %q", ce.Message)
			}
		}},
		{"killAllSessions", admin, bson.D{{Key: "killAllSessions", Value: bson.A{}}}, ok1},
		{"listCollections filter nameOnly", d, bson.D{{Key: "listCollections", Value: 1}, {Key: "filter", Value: bson.D{{Key: "name", Value: "other"}}}, {Key: "nameOnly", Value: true}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			b := firstBatch(t, r)
			if len(b) != 1 || b[0].Lookup("name").StringValue() != "other" || b[0].Lookup("type").StringValue() != "collection" {
				t.Fatalf("firstBatch: %v", b)
			}
			if len(mustElems(t, b[0])) != 2 {
				t.Fatalf("nameOnly entries hold only name and type: %v", b[0])
			}
			if ns := field(t, r, "cursor.ns").StringValue(); ns != "test.$cmd.listCollections" {
				t.Fatalf("cursor.ns = %q", ns)
			}
			if field(t, r, "cursor.id").Int64() != 0 {
				t.Fatal("exhausted cursor must have id 0")
			}
		}},
		{"listCollections full entry", d, bson.D{{Key: "listCollections", Value: 1}, {Key: "filter", Value: bson.D{{Key: "name", Value: "shapes"}}}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			b := firstBatch(t, r)
			if len(b) != 1 {
				t.Fatalf("firstBatch: %v", b)
			}
			if _, ok := b[0].Lookup("options").DocumentOK(); !ok {
				t.Fatalf("entry lacks options: %v", b[0])
			}
			if b[0].Lookup("info", "readOnly").Boolean() {
				t.Fatalf("info.readOnly: %v", b[0])
			}
			if st, _ := b[0].Lookup("info", "uuid").Binary(); st != 4 {
				t.Fatalf("info.uuid must be a UUID: %v", b[0])
			}
			if b[0].Lookup("idIndex", "name").StringValue() != "_id_" {
				t.Fatalf("idIndex: %v", b[0])
			}
		}},
		{"listCollections cursor batchSize 0", d, bson.D{{Key: "listCollections", Value: 1}, {Key: "cursor", Value: bson.D{{Key: "batchSize", Value: 0}}}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			if b := firstBatch(t, r); len(b) != 0 || field(t, r, "cursor.id").Int64() == 0 {
				t.Fatalf("batchSize 0 returns an empty first batch and an open cursor: %v", r)
			}
		}},
		{"find $slice", d, bson.D{{Key: "find", Value: "shapes"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "projection", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$slice", Value: bson.A{1, 2}}}}, {Key: "s", Value: 0}}}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			if got := ids(t, firstBatch(t, r)); got != `{"_id": {"$numberInt":"1"},"a": [{"$numberInt":"2"},{"$numberInt":"3"}]}` {
				t.Fatalf("$slice [1, 2]: %s", got)
			}
		}},
		{"find $slice negative", d, bson.D{{Key: "find", Value: "shapes"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "projection", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$slice", Value: -2}}}, {Key: "_id", Value: 0}, {Key: "s", Value: 0}}}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			if got := ids(t, firstBatch(t, r)); got != `{"a": [{"$numberInt":"4"},{"$numberInt":"5"}]}` {
				t.Fatalf("$slice -2: %s", got)
			}
		}},
		{"find $elemMatch", d, bson.D{{Key: "find", Value: "shapes"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "projection", Value: bson.D{{Key: "s", Value: bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "k", Value: 2}}}}}}}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			if got := ids(t, firstBatch(t, r)); got != `{"_id": {"$numberInt":"1"},"s": [{"k": {"$numberInt":"2"},"v": "b"}]}` {
				t.Fatalf("$elemMatch: %s", got)
			}
		}},
		{"find positional", d, bson.D{{Key: "find", Value: "shapes"}, {Key: "filter", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 8}}}}}, {Key: "projection", Value: bson.D{{Key: "a.$", Value: 1}}}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			if got := ids(t, firstBatch(t, r)); got != `{"_id": {"$numberInt":"2"},"a": [{"$numberInt":"8"}]},{"_id": {"$numberInt":"3"},"a": [{"$numberInt":"9"}]}` {
				t.Fatalf("a.$: %s", got)
			}
		}},
		{"find positional without array in filter", d, bson.D{{Key: "find", Value: "shapes"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "projection", Value: bson.D{{Key: "a.$", Value: 1}}}}, func(t *testing.T, r bson.Raw, err error) {
			wantCmdCode(t, err, 51246, "Location51246")
		}},
		{"find singleBatch", d, bson.D{{Key: "find", Value: "shapes"}, {Key: "batchSize", Value: 1}, {Key: "singleBatch", Value: true}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			if b := firstBatch(t, r); len(b) != 1 || field(t, r, "cursor.id").Int64() != 0 {
				t.Fatalf("singleBatch returns one batch and closes the cursor: %v", r)
			}
		}},
		{"find batchSize keeps cursor", d, bson.D{{Key: "find", Value: "shapes"}, {Key: "batchSize", Value: 1}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			if b := firstBatch(t, r); len(b) != 1 || field(t, r, "cursor.id").Int64() == 0 || field(t, r, "cursor.ns").StringValue() != "test.shapes" {
				t.Fatalf("batchSize 1 over 3 documents: %v", r)
			}
		}},
		{"find comment", d, bson.D{{Key: "find", Value: "shapes"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: 3}}}, {Key: "comment", Value: bson.D{{Key: "why", Value: "test"}}}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			if b := firstBatch(t, r); len(b) != 1 {
				t.Fatalf("comment must not change the result: %v", r)
			}
		}},
		{"update arrayFilters", d, bson.D{{Key: "update", Value: "shapes"}, {Key: "updates", Value: bson.A{bson.D{
			{Key: "q", Value: bson.D{{Key: "_id", Value: 1}}},
			{Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "s.$[e].v", Value: "z"}}}}},
			{Key: "arrayFilters", Value: bson.A{bson.D{{Key: "e.k", Value: bson.D{{Key: "$gte", Value: 2}}}}}},
		}}}}, func(t *testing.T, r bson.Raw, err error) {
			ok1(t, r, err)
			wantInt32(t, r, "n", 1)
			wantInt32(t, r, "nModified", 1)
			var doc bson.Raw
			if err := coll.FindOne(c, bson.D{{Key: "_id", Value: 1}}).Decode(&doc); err != nil {
				t.Fatal(err)
			}
			if got := doc.Lookup("s").String(); got != `[{"k": {"$numberInt":"1"},"v": "a"},{"k": {"$numberInt":"2"},"v": "z"}]` {
				t.Fatalf("after arrayFilters update: %s", got)
			}
		}},
		{"update arrayFilters unused identifier", d, bson.D{{Key: "update", Value: "shapes"}, {Key: "updates", Value: bson.A{bson.D{
			{Key: "q", Value: bson.D{{Key: "_id", Value: 1}}},
			{Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}},
			{Key: "arrayFilters", Value: bson.A{bson.D{{Key: "e.k", Value: 2}}}},
		}}}}, func(t *testing.T, r bson.Raw, err error) {
			var we mongo.WriteException
			if !errors.As(err, &we) || len(we.WriteErrors) != 1 || we.WriteErrors[0].Code != 9 ||
				we.WriteErrors[0].Message != "The array filter for identifier 'e' was not used in the update { $set: { x: 1 } }" {
				t.Fatalf("unused array filter: %v", err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.db.RunCommand(c, tc.cmd).Raw()
			tc.check(t, r, err)
		})
	}
}

// mustElems returns the elements of a document.
func mustElems(t *testing.T, r bson.Raw) []bson.RawElement {
	t.Helper()
	el, err := r.Elements()
	if err != nil {
		t.Fatal(err)
	}
	return el
}

// TestKillCursorsKillsOpenCursor opens a cursor through find with a small
// batch and kills it: cursorsKilled names it and a getMore then fails with
// CursorNotFound.
func TestKillCursorsKillsOpenCursor(t *testing.T) {
	_, d := open(t)
	c := ctx(t)
	for i := 0; i < 5; i++ {
		if _, err := d.Collection("kc").InsertOne(c, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := d.RunCommand(c, bson.D{{Key: "find", Value: "kc"}, {Key: "batchSize", Value: 2}}).Raw()
	ok1(t, r, err)
	id := field(t, r, "cursor.id").Int64()
	if id == 0 {
		t.Fatal("cursor must stay open")
	}
	r, err = d.RunCommand(c, bson.D{{Key: "killCursors", Value: "kc"}, {Key: "cursors", Value: bson.A{id}}}).Raw()
	ok1(t, r, err)
	killed, _ := field(t, r, "cursorsKilled").Array().Values()
	if len(killed) != 1 || killed[0].Int64() != id {
		t.Fatalf("cursorsKilled: %v", r)
	}
	err = d.RunCommand(c, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "kc"}}).Err()
	ce := wantCmdCode(t, err, 43, "CursorNotFound")
	if ce.Message != fmt.Sprintf("cursor id %d not found", id) {
		t.Fatalf("getMore after kill: %q", ce.Message)
	}
}

// TestMaxTimeMSExpires runs a find that scans many documents under a 1 ms
// limit: MongoDB answers 50 MaxTimeMSExpired "operation exceeded time
// limit", and the same query without the limit succeeds.
func TestMaxTimeMSExpires(t *testing.T) {
	_, d := open(t)
	c := ctx(t)
	coll := d.Collection("slow")
	docs := make([]any, 0, 1000)
	for i := 0; i < 60000; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "s", Value: fmt.Sprintf("value-%d", i)}})
		if len(docs) == cap(docs) {
			if _, err := coll.InsertMany(c, docs); err != nil {
				t.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	// No document matches, so the whole collection is scanned.
	filter := bson.D{{Key: "$expr", Value: bson.D{{Key: "$eq", Value: bson.A{
		bson.D{{Key: "$concat", Value: bson.A{"$s", "-", "$s"}}}, "none"}}}}}
	err := d.RunCommand(c, bson.D{{Key: "find", Value: "slow"}, {Key: "filter", Value: filter}, {Key: "maxTimeMS", Value: 1}}).Err()
	ce := wantCmdCode(t, err, 50, "MaxTimeMSExpired")
	if ce.Message != "operation exceeded time limit" {
		t.Fatalf("message %q", ce.Message)
	}
	r, err := d.RunCommand(c, bson.D{{Key: "find", Value: "slow"}, {Key: "filter", Value: filter}, {Key: "maxTimeMS", Value: 60000}}).Raw()
	ok1(t, r, err)
	if len(firstBatch(t, r)) != 0 {
		t.Fatal("no document matches")
	}
	// maxTimeMS must be an integral number in [0, 2^31-1] (mongod's
	// parseMaxTimeMS).
	for _, tc := range []struct {
		v    any
		want string
	}{
		{"x", "maxTimeMS must be a number"},
		{43.15, "maxTimeMS has non-integral value"},
		{-1, "-1 value for maxTimeMS is out of range"},
		{int64(math.MaxInt64), "9223372036854775807 value for maxTimeMS is out of range"},
		{int64(math.MaxInt32) + 1, "2147483648 value for maxTimeMS is out of range"},
	} {
		err = d.RunCommand(c, bson.D{{Key: "find", Value: "slow"}, {Key: "maxTimeMS", Value: tc.v}}).Err()
		if ce := wantCmdCode(t, err, 2, "BadValue"); ce.Message != tc.want {
			t.Fatalf("maxTimeMS %v: %q, want %q", tc.v, ce.Message, tc.want)
		}
	}
}

// TestWriteBatchLimit sends write commands with 100,001 statements, one
// over MongoDB's maxWriteBatchSize: each fails whole with 16 InvalidLength,
// and 100,000 statements are accepted.
func TestWriteBatchLimit(t *testing.T) {
	_, d := open(t)
	c := ctx(t)
	stmts := func(n int, f func(i int) bson.D) bson.A {
		a := make(bson.A, n)
		for i := range a {
			a[i] = f(i)
		}
		return a
	}
	doc := func(i int) bson.D { return bson.D{{Key: "_id", Value: i}} }
	del := func(i int) bson.D { return bson.D{{Key: "q", Value: doc(i)}, {Key: "limit", Value: 1}} }
	upd := func(i int) bson.D {
		return bson.D{{Key: "q", Value: doc(i)}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}}}
	}
	for _, cmd := range []bson.D{
		{{Key: "insert", Value: "batch"}, {Key: "documents", Value: stmts(100001, doc)}},
		{{Key: "update", Value: "batch"}, {Key: "updates", Value: stmts(100001, upd)}},
		{{Key: "delete", Value: "batch"}, {Key: "deletes", Value: stmts(100001, del)}},
	} {
		err := d.RunCommand(c, cmd).Err()
		ce := wantCmdCode(t, err, 16, "InvalidLength")
		if ce.Message != "Write batch sizes must be between 1 and 100000. Got 100001 operations." {
			t.Fatalf("%s: %q", cmd[0].Key, ce.Message)
		}
	}
	if n, err := d.Collection("batch").CountDocuments(c, bson.D{}); err != nil || n != 0 {
		t.Fatalf("a refused batch must write nothing: %d %v", n, err)
	}
	r, err := d.RunCommand(c, bson.D{{Key: "insert", Value: "batch"}, {Key: "documents", Value: stmts(100000, doc)}}).Raw()
	ok1(t, r, err)
	wantInt32(t, r, "n", 100000)
}
