package admin_test

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// replyCheck inspects one command reply; err is the command's error.
type replyCheck func(t *testing.T, r bson.Raw, err error)

// helloShape checks the fields MongoDB 7.0's hello/isMaster carry for a
// writable primary (issue 2 wants no topologyVersion: Lode does not do
// streaming hello).
func helloShape(primaryField string) replyCheck {
	return func(t *testing.T, r bson.Raw, err error) {
		testenv.WantOK(t, r, err)
		if !testenv.Field(t, r, primaryField).Boolean() {
			t.Fatalf("%s must be true: %v", primaryField, r)
		}
		testenv.WantInt32(t, r, "maxBsonObjectSize", 16777216)
		testenv.WantInt32(t, r, "maxMessageSizeBytes", 48000000)
		testenv.WantInt32(t, r, "maxWriteBatchSize", 100000)
		testenv.WantInt32(t, r, "logicalSessionTimeoutMinutes", 30)
		testenv.WantInt32(t, r, "minWireVersion", 0)
		testenv.WantInt32(t, r, "maxWireVersion", 21)
		if lt := testenv.Field(t, r, "localTime").Time(); time.Since(lt).Abs() > time.Minute {
			t.Fatalf("localTime %v is not now", lt)
		}
		if id, ok := testenv.Field(t, r, "connectionId").Int32OK(); !ok || id <= 0 {
			t.Fatalf("connectionId must be a positive int32: %v", r)
		}
		if testenv.Field(t, r, "readOnly").Boolean() {
			t.Fatal("readOnly must be false")
		}
		testenv.WantAbsent(t, r, "topologyVersion")
	}
}

// TestCommandReplyShapes runs server and collection commands through the
// Go driver and checks the reply shapes MongoDB 7.0 documents.
func TestCommandReplyShapes(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	c := testenv.Ctx(t)
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
			if !testenv.Field(t, r, "helloOk").Boolean() {
				t.Fatal("helloOk must echo true")
			}
			testenv.WantAbsent(t, r, "ismaster")
		}},
		{"hello without helloOk", admin, bson.D{{Key: "hello", Value: 1}}, func(t *testing.T, r bson.Raw, err error) {
			helloShape("isWritablePrimary")(t, r, err)
			testenv.WantAbsent(t, r, "helloOk")
		}},
		{"isMaster", admin, bson.D{{Key: "isMaster", Value: 1}}, func(t *testing.T, r bson.Raw, err error) {
			helloShape("ismaster")(t, r, err)
			testenv.WantAbsent(t, r, "isWritablePrimary")
		}},
		{"buildInfo", admin, bson.D{{Key: "buildInfo", Value: 1}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			v := testenv.Field(t, r, "version").StringValue()
			if !regexp.MustCompile(`^7\.0\.\d+$`).MatchString(v) {
				t.Fatalf("version %q is not 7.0.x", v)
			}
			arr, _ := testenv.Field(t, r, "versionArray").Array().Values()
			want := strings.Split(v, ".")
			if len(arr) != 4 || fmt.Sprint(arr[0].Int32(), ".", arr[1].Int32(), ".", arr[2].Int32()) != strings.Join(want, ".") || arr[3].Int32() != 0 {
				t.Fatalf("versionArray %v does not match %s", arr, v)
			}
			testenv.WantInt32(t, r, "bits", 64)
			testenv.WantInt32(t, r, "maxBsonObjectSize", 16777216)
			testenv.Field(t, r, "gitVersion")
			testenv.Field(t, r, "storageEngines")
		}},
		{"getParameter *", admin, bson.D{{Key: "getParameter", Value: "*"}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			if v := testenv.Field(t, r, "featureCompatibilityVersion.version").StringValue(); v != "7.0" {
				t.Fatalf("FCV %q", v)
			}
			if len(mustElems(t, r)) < 5 {
				t.Fatalf("getParameter '*' returns too few parameters: %v", r)
			}
		}},
		{"getParameter featureCompatibilityVersion", admin, bson.D{{Key: "getParameter", Value: 1}, {Key: "featureCompatibilityVersion", Value: 1}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			if v := testenv.Field(t, r, "featureCompatibilityVersion.version").StringValue(); v != "7.0" {
				t.Fatalf("FCV %q", v)
			}
			testenv.WantAbsent(t, r, "logLevel")
		}},
		{"getParameter unknown", admin, bson.D{{Key: "getParameter", Value: 1}, {Key: "noSuchParameter", Value: 1}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantCmdError(t, err, 72, "InvalidOptions")
		}},
		{"hostInfo", admin, bson.D{{Key: "hostInfo", Value: 1}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			testenv.Field(t, r, "system.currentTime").Time()
			if testenv.Field(t, r, "system.hostname").StringValue() == "" {
				t.Fatal("hostname empty")
			}
			if n, ok := testenv.Field(t, r, "system.numCores").Int32OK(); !ok || n < 1 {
				t.Fatalf("numCores: %v", r)
			}
			testenv.Field(t, r, "os.type")
			testenv.Field(t, r, "extra")
		}},
		{"whatsmyuri", admin, bson.D{{Key: "whatsmyuri", Value: 1}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			if you := testenv.Field(t, r, "you").StringValue(); !regexp.MustCompile(`^127\.0\.0\.1:\d+$`).MatchString(you) {
				t.Fatalf("you = %q", you)
			}
		}},
		{"connectionStatus", admin, bson.D{{Key: "connectionStatus", Value: 1}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			for _, f := range []string{"authInfo.authenticatedUsers", "authInfo.authenticatedUserRoles"} {
				if vals, _ := testenv.Field(t, r, f).Array().Values(); len(vals) != 0 {
					t.Fatalf("%s must be empty without auth: %v", f, r)
				}
			}
		}},
		{"getLog *", admin, bson.D{{Key: "getLog", Value: "*"}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			names, _ := testenv.Field(t, r, "names").Array().Values()
			if len(names) != 2 || names[0].StringValue() != "global" || names[1].StringValue() != "startupWarnings" {
				t.Fatalf("names = %v", names)
			}
		}},
		{"getLog global", admin, bson.D{{Key: "getLog", Value: "global"}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			lines, _ := testenv.Field(t, r, "log").Array().Values()
			total := testenv.Field(t, r, "totalLinesWritten").AsInt64()
			if len(lines) == 0 || total < int64(len(lines)) {
				t.Fatalf("log has %d lines, totalLinesWritten %d", len(lines), total)
			}
			if !strings.HasPrefix(lines[0].StringValue(), `{"t":{"$date":`) {
				t.Fatalf("log lines are mongod's JSON: %q", lines[0].StringValue())
			}
		}},
		{"getLog unknown", admin, bson.D{{Key: "getLog", Value: "nosuchlog"}}, func(t *testing.T, r bson.Raw, err error) {
			ce := testenv.WantCmdError(t, err, 96, "OperationFailed")
			if ce.Message != "No log named 'nosuchlog'" {
				t.Fatalf("message %q", ce.Message)
			}
		}},
		{"killCursors not found", d, bson.D{{Key: "killCursors", Value: "shapes"}, {Key: "cursors", Value: bson.A{int64(987654321)}}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			nf, _ := testenv.Field(t, r, "cursorsNotFound").Array().Values()
			if len(nf) != 1 || nf[0].Int64() != 987654321 {
				t.Fatalf("cursorsNotFound: %v", r)
			}
			for _, f := range []string{"cursorsKilled", "cursorsAlive", "cursorsUnknown"} {
				if v, _ := testenv.Field(t, r, f).Array().Values(); len(v) != 0 {
					t.Fatalf("%s: %v", f, r)
				}
			}
		}},
		{"killCursors without cursors", d, bson.D{{Key: "killCursors", Value: "shapes"}}, func(t *testing.T, r bson.Raw, err error) {
			ce := testenv.WantCmdError(t, err, 40414, "Location40414")
			if ce.Message != "BSON field 'killCursors.cursors' is missing but a required field" {
				t.Fatalf("message %q", ce.Message)
			}
		}},
		{"killAllSessions", admin, bson.D{{Key: "killAllSessions", Value: bson.A{}}}, func(t *testing.T, r bson.Raw, err error) { testenv.WantOK(t, r, err) }},
		{"listCollections filter nameOnly", d, bson.D{{Key: "listCollections", Value: 1}, {Key: "filter", Value: bson.D{{Key: "name", Value: "other"}}}, {Key: "nameOnly", Value: true}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			b := testenv.FirstBatch(t, r)
			if len(b) != 1 || b[0].Lookup("name").StringValue() != "other" || b[0].Lookup("type").StringValue() != "collection" {
				t.Fatalf("firstBatch: %v", b)
			}
			if len(mustElems(t, b[0])) != 2 {
				t.Fatalf("nameOnly entries hold only name and type: %v", b[0])
			}
			if ns := testenv.Field(t, r, "cursor.ns").StringValue(); ns != "test.$cmd.listCollections" {
				t.Fatalf("cursor.ns = %q", ns)
			}
			if testenv.Field(t, r, "cursor.id").Int64() != 0 {
				t.Fatal("exhausted cursor must have id 0")
			}
		}},
		{"listCollections full entry", d, bson.D{{Key: "listCollections", Value: 1}, {Key: "filter", Value: bson.D{{Key: "name", Value: "shapes"}}}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			b := testenv.FirstBatch(t, r)
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
			testenv.WantOK(t, r, err)
			if b := testenv.FirstBatch(t, r); len(b) != 0 || testenv.Field(t, r, "cursor.id").Int64() == 0 {
				t.Fatalf("batchSize 0 returns an empty first batch and an open cursor: %v", r)
			}
		}},
		{"find $slice", d, bson.D{{Key: "find", Value: "shapes"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "projection", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$slice", Value: bson.A{1, 2}}}}, {Key: "s", Value: 0}}}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			if got := ids(t, testenv.FirstBatch(t, r)); got != `{"_id": {"$numberInt":"1"},"a": [{"$numberInt":"2"},{"$numberInt":"3"}]}` {
				t.Fatalf("$slice [1, 2]: %s", got)
			}
		}},
		{"find $slice negative", d, bson.D{{Key: "find", Value: "shapes"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "projection", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$slice", Value: -2}}}, {Key: "_id", Value: 0}, {Key: "s", Value: 0}}}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			if got := ids(t, testenv.FirstBatch(t, r)); got != `{"a": [{"$numberInt":"4"},{"$numberInt":"5"}]}` {
				t.Fatalf("$slice -2: %s", got)
			}
		}},
		{"find $elemMatch", d, bson.D{{Key: "find", Value: "shapes"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "projection", Value: bson.D{{Key: "s", Value: bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "k", Value: 2}}}}}}}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			if got := ids(t, testenv.FirstBatch(t, r)); got != `{"_id": {"$numberInt":"1"},"s": [{"k": {"$numberInt":"2"},"v": "b"}]}` {
				t.Fatalf("$elemMatch: %s", got)
			}
		}},
		{"find positional", d, bson.D{{Key: "find", Value: "shapes"}, {Key: "filter", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 8}}}}}, {Key: "projection", Value: bson.D{{Key: "a.$", Value: 1}}}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			if got := ids(t, testenv.FirstBatch(t, r)); got != `{"_id": {"$numberInt":"2"},"a": [{"$numberInt":"8"}]},{"_id": {"$numberInt":"3"},"a": [{"$numberInt":"9"}]}` {
				t.Fatalf("a.$: %s", got)
			}
		}},
		{"find positional without array in filter", d, bson.D{{Key: "find", Value: "shapes"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "projection", Value: bson.D{{Key: "a.$", Value: 1}}}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantCmdError(t, err, 51246, "Location51246")
		}},
		{"find singleBatch", d, bson.D{{Key: "find", Value: "shapes"}, {Key: "batchSize", Value: 1}, {Key: "singleBatch", Value: true}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			if b := testenv.FirstBatch(t, r); len(b) != 1 || testenv.Field(t, r, "cursor.id").Int64() != 0 {
				t.Fatalf("singleBatch returns one batch and closes the cursor: %v", r)
			}
		}},
		{"find batchSize keeps cursor", d, bson.D{{Key: "find", Value: "shapes"}, {Key: "batchSize", Value: 1}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			if b := testenv.FirstBatch(t, r); len(b) != 1 || testenv.Field(t, r, "cursor.id").Int64() == 0 || testenv.Field(t, r, "cursor.ns").StringValue() != "test.shapes" {
				t.Fatalf("batchSize 1 over 3 documents: %v", r)
			}
		}},
		{"find comment", d, bson.D{{Key: "find", Value: "shapes"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: 3}}}, {Key: "comment", Value: bson.D{{Key: "why", Value: "test"}}}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			if b := testenv.FirstBatch(t, r); len(b) != 1 {
				t.Fatalf("comment must not change the result: %v", r)
			}
		}},
		{"update arrayFilters", d, bson.D{{Key: "update", Value: "shapes"}, {Key: "updates", Value: bson.A{bson.D{
			{Key: "q", Value: bson.D{{Key: "_id", Value: 1}}},
			{Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "s.$[e].v", Value: "z"}}}}},
			{Key: "arrayFilters", Value: bson.A{bson.D{{Key: "e.k", Value: bson.D{{Key: "$gte", Value: 2}}}}}},
		}}}}, func(t *testing.T, r bson.Raw, err error) {
			testenv.WantOK(t, r, err)
			testenv.WantInt32(t, r, "n", 1)
			testenv.WantInt32(t, r, "nModified", 1)
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
