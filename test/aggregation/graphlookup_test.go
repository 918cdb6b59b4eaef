package aggregation_test

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// sortAs sorts the array field f of each result by _id, for comparing
// $graphLookup's results: mongod returns them in no specified order.
func sortAs(f string) string {
	return `{"$set":{"` + f + `":{"$sortArray":{"input":"$` + f + `","sortBy":{"_id":1}}}}}`
}

// TestGraphLookupDocsExamples runs the examples of MongoDB's $graphLookup
// reference page through the Go driver with their documented outputs
// (each result array ordered by _id, as the page says the order is
// unspecified), then cases of mongod's search rules: arrays in startWith
// and connectFromField, de-duplication by _id, null, maxDepth 0, an
// absorbed $unwind, and a view as from.
func TestGraphLookupDocsExamples(t *testing.T) {
	t.Parallel()
	db := openDB(t, "graph")
	insertJSON(t, db.Collection("employees"), `[{"_id":1,"name":"Dev"},{"_id":2,"name":"Eliot","reportsTo":"Dev"},{"_id":3,"name":"Ron","reportsTo":"Eliot"},
		{"_id":4,"name":"Andrew","reportsTo":"Eliot"},{"_id":5,"name":"Asya","reportsTo":"Ron"},{"_id":6,"name":"Dan","reportsTo":"Andrew"}]`)
	insertJSON(t, db.Collection("airports"), `[{"_id":0,"airport":"JFK","connects":["BOS","ORD"]},{"_id":1,"airport":"BOS","connects":["JFK","PWM"]},
		{"_id":2,"airport":"ORD","connects":["JFK"]},{"_id":3,"airport":"PWM","connects":["BOS","LHR"]},{"_id":4,"airport":"LHR","connects":["PWM"]}]`)
	insertJSON(t, db.Collection("travelers"), `[{"_id":1,"name":"Dev","nearestAirport":"JFK"},{"_id":2,"name":"Eliot","nearestAirport":"JFK"},{"_id":3,"name":"Jeff","nearestAirport":"BOS"}]`)
	insertJSON(t, db.Collection("people"), `[
		{"_id":1,"name":"Tanya Jordan","friends":["Shirley Soto","Terry Hawkins","Carole Hale"],"hobbies":["tennis","unicycling","golf"]},
		{"_id":2,"name":"Carole Hale","friends":["Joseph Dennis","Tanya Jordan","Terry Hawkins"],"hobbies":["archery","golf","woodworking"]},
		{"_id":3,"name":"Terry Hawkins","friends":["Tanya Jordan","Carole Hale","Angelo Ward"],"hobbies":["knitting","frisbee"]},
		{"_id":4,"name":"Joseph Dennis","friends":["Angelo Ward","Carole Hale"],"hobbies":["tennis","golf","topiary"]},
		{"_id":5,"name":"Angelo Ward","friends":["Terry Hawkins","Shirley Soto","Joseph Dennis"],"hobbies":["travel","ceramics","golf"]},
		{"_id":6,"name":"Shirley Soto","friends":["Angelo Ward","Tanya Jordan","Carole Hale"],"hobbies":["frisbee","set theory"]}]`)
	insertJSON(t, db.Collection("nulls"), `[{"_id":1,"k":null,"to":"a"},{"_id":2,"to":"b"},{"_id":3,"k":"x","to":null},{"_id":4,"k":"y","sub":[{"to":"x"},{"to":"z"}]}]`)
	insertJSON(t, db.Collection("regex"), `[{"_id":1,"re":{"$regularExpression":{"pattern":"^ab","options":""}}},{"_id":2,"re":{"$regularExpression":{"pattern":"^ab","options":""}}},{"_id":3,"name":"abc"},{"_id":4,"name":"abd"}]`)
	if err := db.CreateView(testenv.Ctx(t), "golfers", "people", extJSON(t, `[{"$match":{"hobbies":"golf"}}]`)); err != nil {
		t.Fatal(err)
	}
	employees := `{"$graphLookup":{"from":"employees","startWith":"$reportsTo","connectFromField":"reportsTo","connectToField":"name","as":"reportingHierarchy"}}`
	airports := `{"$graphLookup":{"from":"airports","startWith":"$nearestAirport","connectFromField":"connects","connectToField":"airport","maxDepth":2,"depthField":"numConnections","as":"destinations"}}`
	for _, tc := range []struct {
		name, coll, pipeline, want string
	}{
		{"within a single collection", "employees", `[` + employees + `,` + sortAs("reportingHierarchy") + `]`,
			`[{"_id":1,"name":"Dev","reportingHierarchy":[]},
			{"_id":2,"name":"Eliot","reportsTo":"Dev","reportingHierarchy":[{"_id":1,"name":"Dev"}]},
			{"_id":3,"name":"Ron","reportsTo":"Eliot","reportingHierarchy":[{"_id":1,"name":"Dev"},{"_id":2,"name":"Eliot","reportsTo":"Dev"}]},
			{"_id":4,"name":"Andrew","reportsTo":"Eliot","reportingHierarchy":[{"_id":1,"name":"Dev"},{"_id":2,"name":"Eliot","reportsTo":"Dev"}]},
			{"_id":5,"name":"Asya","reportsTo":"Ron","reportingHierarchy":[{"_id":1,"name":"Dev"},{"_id":2,"name":"Eliot","reportsTo":"Dev"},{"_id":3,"name":"Ron","reportsTo":"Eliot"}]},
			{"_id":6,"name":"Dan","reportsTo":"Andrew","reportingHierarchy":[{"_id":1,"name":"Dev"},{"_id":2,"name":"Eliot","reportsTo":"Dev"},{"_id":4,"name":"Andrew","reportsTo":"Eliot"}]}]`},
		{"across multiple collections", "travelers", `[` + airports + `,` + sortAs("destinations") + `]`,
			`[{"_id":1,"name":"Dev","nearestAirport":"JFK","destinations":[
				{"_id":0,"airport":"JFK","connects":["BOS","ORD"],"numConnections":{"$numberLong":"0"}},
				{"_id":1,"airport":"BOS","connects":["JFK","PWM"],"numConnections":{"$numberLong":"1"}},
				{"_id":2,"airport":"ORD","connects":["JFK"],"numConnections":{"$numberLong":"1"}},
				{"_id":3,"airport":"PWM","connects":["BOS","LHR"],"numConnections":{"$numberLong":"2"}}]},
			{"_id":2,"name":"Eliot","nearestAirport":"JFK","destinations":[
				{"_id":0,"airport":"JFK","connects":["BOS","ORD"],"numConnections":{"$numberLong":"0"}},
				{"_id":1,"airport":"BOS","connects":["JFK","PWM"],"numConnections":{"$numberLong":"1"}},
				{"_id":2,"airport":"ORD","connects":["JFK"],"numConnections":{"$numberLong":"1"}},
				{"_id":3,"airport":"PWM","connects":["BOS","LHR"],"numConnections":{"$numberLong":"2"}}]},
			{"_id":3,"name":"Jeff","nearestAirport":"BOS","destinations":[
				{"_id":0,"airport":"JFK","connects":["BOS","ORD"],"numConnections":{"$numberLong":"1"}},
				{"_id":1,"airport":"BOS","connects":["JFK","PWM"],"numConnections":{"$numberLong":"0"}},
				{"_id":2,"airport":"ORD","connects":["JFK"],"numConnections":{"$numberLong":"2"}},
				{"_id":3,"airport":"PWM","connects":["BOS","LHR"],"numConnections":{"$numberLong":"1"}},
				{"_id":4,"airport":"LHR","connects":["PWM"],"numConnections":{"$numberLong":"2"}}]}]`},
		{"with a query filter", "people", `[{"$match":{"name":"Tanya Jordan"}},
			{"$graphLookup":{"from":"people","startWith":"$friends","connectFromField":"friends","connectToField":"name","as":"golfers","restrictSearchWithMatch":{"hobbies":"golf"}}},
			{"$project":{"name":1,"friends":1,"connections who play golf":{"$sortArray":{"input":"$golfers.name","sortBy":1}}}}]`,
			`[{"_id":1,"name":"Tanya Jordan","friends":["Shirley Soto","Terry Hawkins","Carole Hale"],"connections who play golf":["Angelo Ward","Carole Hale","Joseph Dennis","Tanya Jordan"]}]`},
		{"a view as from", "people", `[{"$match":{"name":"Tanya Jordan"}},
			{"$graphLookup":{"from":"golfers","startWith":"$friends","connectFromField":"friends","connectToField":"name","as":"golfers"}},
			{"$project":{"_id":0,"g":{"$sortArray":{"input":"$golfers.name","sortBy":1}}}}]`,
			`[{"g":["Angelo Ward","Carole Hale","Joseph Dennis","Tanya Jordan"]}]`},
		{"maxDepth 0 is the first round only", "travelers", `[{"$match":{"_id":3}},{"$graphLookup":{"from":"airports","startWith":"$nearestAirport","connectFromField":"connects","connectToField":"airport","maxDepth":0,"as":"d"}},{"$project":{"d._id":1}}]`,
			`[{"_id":3,"d":[{"_id":1}]}]`},
		{"startWith array and a constant", "travelers", `[{"$match":{"_id":1}},{"$graphLookup":{"from":"airports","startWith":["LHR","ORD","LHR"],"connectFromField":"connects","connectToField":"airport","maxDepth":0,"as":"d"}},{"$project":{"d":{"$sortArray":{"input":"$d._id","sortBy":1}}}}]`,
			`[{"_id":1,"d":[2,4]}]`},
		{"null matches null, not missing", "nulls", `[{"$match":{"_id":1}},{"$graphLookup":{"from":"nulls","startWith":null,"connectFromField":"none","connectToField":"k","as":"d"}},{"$project":{"d._id":1}}]`,
			`[{"_id":1,"d":[{"_id":1}]}]`},
		{"connectFromField through an array of documents", "nulls", `[{"$match":{"_id":4}},{"$graphLookup":{"from":"nulls","startWith":"y","connectFromField":"sub.to","connectToField":"k","as":"d","depthField":"depth"}},{"$project":{"d._id":1,"d.depth":1}}]`,
			`[{"_id":4,"d":[{"_id":4,"depth":{"$numberLong":"0"}},{"_id":3,"depth":{"$numberLong":"1"}}]}]`},
		{"a regular expression in the frontier matches by pattern, every time", "regex",
			`[{"$graphLookup":{"from":"regex","startWith":"$re","connectFromField":"none","connectToField":"name","as":"m"}},{"$project":{"m":{"$sortArray":{"input":"$m._id","sortBy":1}}}}]`,
			`[{"_id":1,"m":[3,4]},{"_id":2,"m":[3,4]},{"_id":3,"m":[]},{"_id":4,"m":[]}]`},
		{"an absorbed $unwind", "employees", `[{"$match":{"_id":5}},` + employees + `,{"$unwind":"$reportingHierarchy"},{"$sort":{"reportingHierarchy._id":1}},{"$project":{"r":"$reportingHierarchy._id"}}]`,
			`[{"_id":5,"r":1},{"_id":5,"r":2},{"_id":5,"r":3}]`},
		{"an absorbed $unwind preserving empty arrays", "employees", `[{"$match":{"_id":1}},` + employees + `,{"$unwind":{"path":"$reportingHierarchy","preserveNullAndEmptyArrays":true,"includeArrayIndex":"i"}}]`,
			`[{"_id":1,"name":"Dev","i":null}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := aggJS(t, db.Collection(tc.coll), tc.pipeline)
			if err != nil {
				t.Fatal(err)
			}
			wantJS(t, got, tc.want)
		})
	}
}

// TestGraphLookupErrors checks mongod 7.0's codes for bad specifications
// (document_source_graph_lookup.cpp) and for foreign documents without
// _id.
func TestGraphLookupErrors(t *testing.T) {
	t.Parallel()
	db := openDB(t, "graphErr")
	insertJSON(t, db.Collection("c"), `[{"_id":1,"a":1}]`)
	ok := `"from":"c","startWith":"$a","connectFromField":"a","connectToField":"b","as":"r"`
	for _, tc := range []struct {
		name, spec string
		code       int32
		msg        string
	}{
		{"not an object", `1`, 9, "the $graphLookup stage specification must be an object, but found int"},
		{"no from", `{"startWith":"$a","connectFromField":"a","connectToField":"b","as":"r"}`, 9, "missing 'from' option to $graphLookup stage specification"},
		{"from not a string", `{"from":1,"startWith":"$a","connectFromField":"a","connectToField":"b","as":"r"}`, 9, "$graphLookup 'from' field must be a string, but found int"},
		{"from empty", `{"from":"","startWith":"$a","connectFromField":"a","connectToField":"b","as":"r"}`, 73, "invalid $graphLookup namespace: graphErr."},
		{"maxDepth not numeric", `{` + ok + `,"maxDepth":"1"}`, 40100, "maxDepth must be numeric, found type: string"},
		{"maxDepth negative", `{` + ok + `,"maxDepth":-1}`, 40101, "maxDepth requires a nonnegative argument, found: -1"},
		{"maxDepth fractional", `{` + ok + `,"maxDepth":1.5}`, 40102, "maxDepth could not be represented as a long long: 1"},
		{"as not a string", `{"from":"c","startWith":"$a","connectFromField":"a","connectToField":"b","as":1}`, 40103, "expected string as argument for as, found: int"},
		{"unknown argument", `{` + ok + `,"foo":1}`, 40104, "Unknown argument to $graphLookup: foo"},
		{"missing connectToField", `{"from":"c","startWith":"$a","connectFromField":"a","as":"r"}`, 40105, "$graphLookup requires 'from', 'as', 'startWith', 'connectFromField', and 'connectToField' to be specified."},
		{"missing startWith", `{"from":"c","connectFromField":"a","connectToField":"b","as":"r"}`, 40105, ""},
		{"restrictSearchWithMatch not an object", `{` + ok + `,"restrictSearchWithMatch":1}`, 40185, "restrictSearchWithMatch must be an object, found int"},
		{"restrictSearchWithMatch invalid", `{` + ok + `,"restrictSearchWithMatch":{"a":{"$bad":1}}}`, 2, "Failed to parse 'restrictSearchWithMatch' option to $graphLookup"},
		{"as with $", `{"from":"c","startWith":"$a","connectFromField":"a","connectToField":"b","as":"$r"}`, 16410, ""},
		{"depthField empty component", `{` + ok + `,"depthField":"a..b"}`, 15998, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := aggJS(t, db.Collection("c"), `[{"$graphLookup":`+tc.spec+`}]`)
			wantServerCode(t, err, tc.code)
			if tc.msg != "" && !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("message %q lacks %q", err.Error(), tc.msg)
			}
		})
	}
	// A foreign document without _id (a view can produce one): 40271.
	if err := db.CreateView(testenv.Ctx(t), "noid", "c", extJSON(t, `[{"$project":{"_id":0}}]`)); err != nil {
		t.Fatal(err)
	}
	_, err := aggJS(t, db.Collection("c"), `[{"$graphLookup":{"from":"noid","startWith":1,"connectFromField":"a","connectToField":"a","as":"r"}}]`)
	wantServerCode(t, err, 40271)
	if !strings.Contains(err.Error(), "Documents in the 'graphErr.noid' namespace must contain an _id for de-duplication in $graphLookup") {
		t.Fatalf("40271 message: %v", err)
	}
}

// TestGraphLookupIndexAndExplain checks that each round of the search is
// an index scan on connectToField when it is indexed (explain's
// executionStats adds up the rounds' figures, as for $lookup), and that
// explain shows the stage as mongod 7.0 does, with an absorbed $unwind as
// "unwinding".
func TestGraphLookupIndexAndExplain(t *testing.T) {
	t.Parallel()
	ctx := testenv.Ctx(t)
	db := openDB(t, "graphIx")
	nodes := db.Collection("nodes")
	// A chain 0 -> 1 -> ... -> 49 among 1,000 documents.
	var docs []any
	for i := 0; i < 1000; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "name", Value: i}, {Key: "next", Value: i + 1}})
	}
	if _, err := nodes.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	insertJSON(t, db.Collection("start"), `[{"_id":1,"s":0}]`)
	pipeline := `[{"$graphLookup":{"from":"nodes","startWith":"$s","connectFromField":"next","connectToField":"name","as":"chain","maxDepth":49}},{"$project":{"n":{"$size":"$chain"}}}]`
	run := func() bson.Raw {
		t.Helper()
		res := db.RunCommand(ctx, bson.D{{Key: "explain", Value: bson.D{{Key: "aggregate", Value: "start"}, {Key: "pipeline", Value: extJSON(t, pipeline)}, {Key: "cursor", Value: bson.D{}}}}, {Key: "verbosity", Value: "executionStats"}})
		raw, err := res.Raw()
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	graphStage := func(raw bson.Raw) bson.Raw {
		vals, _ := raw.Lookup("stages").Array().Values()
		for _, v := range vals {
			if d, ok := v.DocumentOK(); ok {
				if _, err := d.LookupErr("$graphLookup"); err == nil {
					return d
				}
			}
		}
		t.Fatalf("no $graphLookup in %v", raw)
		return nil
	}
	got, err := aggJS(t, db.Collection("start"), pipeline)
	if err != nil {
		t.Fatal(err)
	}
	wantJS(t, got, `[{"_id":1,"n":50}]`)
	// Without an index every round scans the collection.
	st := graphStage(run())
	if n := st.Lookup("collectionScans").Int64(); n != 50 {
		t.Fatalf("collectionScans without an index = %d, want 50: %v", n, st)
	}
	if _, err := nodes.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "name", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	st = graphStage(run())
	if n := st.Lookup("collectionScans").Int64(); n != 0 {
		t.Fatalf("collectionScans with an index = %d: %v", n, st)
	}
	if k, d := st.Lookup("totalKeysExamined").Int64(), st.Lookup("totalDocsExamined").Int64(); k < 50 || k > 100 || d != 50 {
		t.Fatalf("keys %d, docs %d examined; want one key and document per round: %v", k, d, st)
	}
	if ix := st.Lookup("indexesUsed").String(); ix != `["name_1"]` {
		t.Fatalf("indexesUsed = %s", ix)
	}
	// The stage's rendering: mongod's field order, maxDepth as a long.
	spec := st.Lookup("$graphLookup").Document()
	if s := canonical(t, spec); s != `{"from":"nodes","as":"chain","connectToField":"name","connectFromField":"next","startWith":"$s","maxDepth":{"$numberLong":"49"}}` {
		t.Fatalf("explain spec %s", s)
	}
	// An absorbed $unwind shows as unwinding and leaves no $unwind stage.
	res := db.RunCommand(ctx, bson.D{{Key: "explain", Value: bson.D{{Key: "aggregate", Value: "start"}, {Key: "pipeline", Value: extJSON(t,
		`[{"$graphLookup":{"from":"nodes","startWith":"$s","connectFromField":"next","connectToField":"name","as":"chain","maxDepth":1}},{"$unwind":{"path":"$chain","includeArrayIndex":"i"}}]`)}, {Key: "cursor", Value: bson.D{}}}}})
	raw, err := res.Raw()
	if err != nil {
		t.Fatal(err)
	}
	if s := raw.Lookup("stages").String(); !strings.Contains(s, `"unwinding": {"preserveNullAndEmptyArrays": false,"includeArrayIndex": "i"}`) || strings.Contains(s, `"$unwind"`) {
		t.Fatalf("explain of an absorbed $unwind: %s", s)
	}
}

// TestGraphLookupMemoryLimit checks internalDocumentSourceGraphLookupMaxMemoryBytes:
// a search holding more fails with 40099 (mongod 7.0 does not spill
// $graphLookup, allowDiskUse or not).
func TestGraphLookupMemoryLimit(t *testing.T) {
	t.Parallel()
	ctx := testenv.Ctx(t)
	db := openDB(t, "graphMem")
	pad := strings.Repeat("x", 1000)
	var docs []any
	for i := 0; i < 200; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "g", Value: 1}, {Key: "pad", Value: pad}})
	}
	if _, err := db.Collection("big").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	pipeline := `[{"$limit":1},{"$graphLookup":{"from":"big","startWith":"$g","connectFromField":"g","connectToField":"g","as":"all"}},{"$project":{"n":{"$size":"$all"}}}]`
	got, err := aggJS(t, db.Collection("big"), pipeline)
	if err != nil {
		t.Fatal(err)
	}
	wantJS(t, got, `[{"_id":0,"n":200}]`)
	// 20 documents of 900 KB: their array makes a document over 16 MB
	// (BSONObjectTooLarge, 10334), but an absorbed $unwind never builds it.
	huge := strings.Repeat("y", 900*1024)
	docs = docs[:0]
	for i := 0; i < 20; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "g", Value: 1}, {Key: "pad", Value: huge}})
	}
	if _, err := db.Collection("huge").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	hugeLookup := `{"$graphLookup":{"from":"huge","startWith":"$g","connectFromField":"g","connectToField":"g","as":"all"}}`
	_, err = aggJS(t, db.Collection("huge"), `[{"$limit":1},`+hugeLookup+`,{"$project":{"n":{"$size":"$all"}}}]`)
	wantServerCode(t, err, 10334)
	got, err = aggJS(t, db.Collection("huge"), `[{"$limit":1},`+hugeLookup+`,{"$unwind":"$all"},{"$group":{"_id":null,"n":{"$sum":1}}}]`)
	if err != nil {
		t.Fatal(err)
	}
	wantJS(t, got, `[{"_id":null,"n":20}]`)
	// The instance's memory budget bounds the search too (it cannot
	// spill): TestGraphLookupMemoryBudget in internal/agg, as the budget
	// is set only at startup (lode serve --memory-budget-mb).
	testenv.SetParameter(t, db, "internalDocumentSourceGraphLookupMaxMemoryBytes", 100000)
	_, err = aggJS(t, db.Collection("big"), pipeline)
	wantServerCode(t, err, 40099)
	if !strings.Contains(err.Error(), "$graphLookup reached maximum memory consumption") {
		t.Fatalf("40099 message: %v", err)
	}
}

// TestGraphLookupRestrictWithVariables: restrictSearchWithMatch may use
// the command's let variables and those of an enclosing $lookup in $expr,
// as mongod copies the variables into its searches.
func TestGraphLookupRestrictWithVariables(t *testing.T) {
	t.Parallel()
	db := openDB(t, "graphVars")
	insertJSON(t, db.Collection("people"), `[
		{"_id":1,"name":"Tanya Jordan","friends":["Shirley Soto","Terry Hawkins","Carole Hale"],"hobbies":["tennis","unicycling","golf"]},
		{"_id":2,"name":"Carole Hale","friends":["Joseph Dennis","Tanya Jordan","Terry Hawkins"],"hobbies":["archery","golf","woodworking"]},
		{"_id":3,"name":"Terry Hawkins","friends":["Tanya Jordan","Carole Hale","Angelo Ward"],"hobbies":["knitting","frisbee"]},
		{"_id":4,"name":"Joseph Dennis","friends":["Angelo Ward","Carole Hale"],"hobbies":["tennis","golf","topiary"]},
		{"_id":5,"name":"Angelo Ward","friends":["Terry Hawkins","Shirley Soto","Joseph Dennis"],"hobbies":["travel","ceramics","golf"]},
		{"_id":6,"name":"Shirley Soto","friends":["Angelo Ward","Tanya Jordan","Carole Hale"],"hobbies":["frisbee","set theory"]}]`)
	insertJSON(t, db.Collection("hobbies"), `[{"_id":"golf"},{"_id":"frisbee"}]`)
	graph := `{"$graphLookup":{"from":"people","startWith":"$friends","connectFromField":"friends","connectToField":"name","as":"g",
		"restrictSearchWithMatch":{"$expr":{"$in":["$$hobby","$hobbies"]}}}}`
	got, err := aggJS(t, db.Collection("people"), `[{"$match":{"_id":1}},`+graph+`,{"$project":{"g":{"$sortArray":{"input":"$g.name","sortBy":1}}}}]`,
		options.Aggregate().SetLet(bson.D{{Key: "hobby", Value: "golf"}}))
	if err != nil {
		t.Fatal(err)
	}
	wantJS(t, got, `[{"_id":1,"g":["Angelo Ward","Carole Hale","Joseph Dennis","Tanya Jordan"]}]`)
	got, err = aggJS(t, db.Collection("hobbies"), `[{"$sort":{"_id":1}},{"$lookup":{"from":"people","let":{"hobby":"$_id"},"pipeline":[{"$match":{"_id":1}},`+graph+`,
		{"$project":{"_id":0,"g":{"$sortArray":{"input":"$g.name","sortBy":1}}}}],"as":"r"}}]`)
	if err != nil {
		t.Fatal(err)
	}
	wantJS(t, got, `[{"_id":"frisbee","r":[{"g":["Shirley Soto","Terry Hawkins"]}]},{"_id":"golf","r":[{"g":["Angelo Ward","Carole Hale","Joseph Dennis","Tanya Jordan"]}]}]`)
}
