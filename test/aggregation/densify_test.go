package aggregation_test

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// TestDensifyDocsExamples runs the examples of MongoDB's $densify
// reference page through the Go driver with their documented outputs
// (the pages' documents have ObjectId _ids, projected out here), then
// cases of mongod 7.0's rules: documents whose field is null or missing
// pass through first (the $sort puts them there), an unpartitioned
// explicit range is filled even without documents in it, each partition
// of an explicit range is filled from the lower bound, values off the
// step do not move the sequence, and dates step by calendar units.
func TestDensifyDocsExamples(t *testing.T) {
	t.Parallel()
	db := openDB(t, "densify")
	insertJSON(t, db.Collection("weather"), `[
		{"metadata":{"sensorId":5578,"type":"temperature"},"timestamp":{"$date":"2021-05-18T00:00:00Z"},"temp":12},
		{"metadata":{"sensorId":5578,"type":"temperature"},"timestamp":{"$date":"2021-05-18T04:00:00Z"},"temp":11},
		{"metadata":{"sensorId":5578,"type":"temperature"},"timestamp":{"$date":"2021-05-18T08:00:00Z"},"temp":11},
		{"metadata":{"sensorId":5578,"type":"temperature"},"timestamp":{"$date":"2021-05-18T12:00:00Z"},"temp":12}]`)
	insertJSON(t, db.Collection("coffee"), `[
		{"altitude":600,"variety":"Arabica Typica","score":68.3},
		{"altitude":750,"variety":"Arabica Typica","score":69.5},
		{"altitude":950,"variety":"Arabica Typica","score":70.5},
		{"altitude":1250,"variety":"Gesha","score":88.15},
		{"altitude":1700,"variety":"Gesha","score":95.5,"price":1029}]`)
	insertJSON(t, db.Collection("mixed"), `[{"_id":1,"v":7},{"_id":2},{"_id":3,"v":null},{"_id":4,"v":2.5},{"_id":5,"v":4}]`)
	insertJSON(t, db.Collection("parts"), `[{"_id":1,"p":"a","v":3},{"_id":2,"p":"b","v":12},{"_id":3,"p":"c","v":-5}]`)
	insertJSON(t, db.Collection("nested"), `[{"_id":1,"m":{"k":1},"t":{"v":0}},{"_id":2,"m":{"k":1},"t":{"v":3}}]`)
	insertJSON(t, db.Collection("months"), `[{"_id":1,"d":{"$date":"2021-01-15T00:00:00Z"}},{"_id":2,"d":{"$date":"2021-05-15T00:00:00Z"}}]`)
	for _, tc := range []struct {
		name, coll, pipeline, want string
	}{
		{"densify time series data", "weather",
			`[{"$densify":{"field":"timestamp","range":{"step":1,"unit":"hour","bounds":[{"$date":"2021-05-18T00:00:00Z"},{"$date":"2021-05-18T08:00:00Z"}]}}},{"$project":{"_id":0}}]`,
			`[{"metadata":{"sensorId":5578,"type":"temperature"},"timestamp":{"$date":"2021-05-18T00:00:00Z"},"temp":12},
			{"timestamp":{"$date":"2021-05-18T01:00:00Z"}},{"timestamp":{"$date":"2021-05-18T02:00:00Z"}},{"timestamp":{"$date":"2021-05-18T03:00:00Z"}},
			{"metadata":{"sensorId":5578,"type":"temperature"},"timestamp":{"$date":"2021-05-18T04:00:00Z"},"temp":11},
			{"timestamp":{"$date":"2021-05-18T05:00:00Z"}},{"timestamp":{"$date":"2021-05-18T06:00:00Z"}},{"timestamp":{"$date":"2021-05-18T07:00:00Z"}},
			{"metadata":{"sensorId":5578,"type":"temperature"},"timestamp":{"$date":"2021-05-18T08:00:00Z"},"temp":11},
			{"metadata":{"sensorId":5578,"type":"temperature"},"timestamp":{"$date":"2021-05-18T12:00:00Z"},"temp":12}]`},
		{"densification with partitions, full", "coffee",
			`[{"$densify":{"field":"altitude","partitionByFields":["variety"],"range":{"bounds":"full","step":200}}},{"$project":{"_id":0}}]`,
			`[{"altitude":600,"variety":"Arabica Typica","score":68.3},
			{"altitude":750,"variety":"Arabica Typica","score":69.5},
			{"variety":"Arabica Typica","altitude":800},
			{"altitude":950,"variety":"Arabica Typica","score":70.5},
			{"variety":"Gesha","altitude":600},{"variety":"Gesha","altitude":800},{"variety":"Gesha","altitude":1000},{"variety":"Gesha","altitude":1200},
			{"altitude":1250,"variety":"Gesha","score":88.15},
			{"variety":"Gesha","altitude":1400},{"variety":"Gesha","altitude":1600},
			{"altitude":1700,"variety":"Gesha","score":95.5,"price":1029},
			{"variety":"Arabica Typica","altitude":1000},{"variety":"Arabica Typica","altitude":1200},{"variety":"Arabica Typica","altitude":1400},{"variety":"Arabica Typica","altitude":1600}]`},
		{"densification with partitions, partition", "coffee",
			`[{"$densify":{"field":"altitude","partitionByFields":["variety"],"range":{"bounds":"partition","step":200}}},{"$project":{"_id":0}}]`,
			`[{"altitude":600,"variety":"Arabica Typica","score":68.3},
			{"altitude":750,"variety":"Arabica Typica","score":69.5},
			{"variety":"Arabica Typica","altitude":800},
			{"altitude":950,"variety":"Arabica Typica","score":70.5},
			{"altitude":1250,"variety":"Gesha","score":88.15},
			{"variety":"Gesha","altitude":1450},{"variety":"Gesha","altitude":1650},
			{"altitude":1700,"variety":"Gesha","score":95.5,"price":1029}]`},
		{"null and missing pass through first", "mixed",
			`[{"$densify":{"field":"v","range":{"step":2,"bounds":"full"}}}]`,
			`[{"_id":2},{"_id":3,"v":null},{"_id":4,"v":2.5},{"_id":5,"v":4},{"v":4.5},{"v":6.5},{"_id":1,"v":7}]`},
		{"$_internalDensify alone, as explain shows it", "mixed",
			`[{"$match":{"v":{"$type":"number"}}},{"$sort":{"v":1}},{"$_internalDensify":{"field":"v","partitionByFields":[],"range":{"step":2,"bounds":"full"}}}]`,
			`[{"_id":4,"v":2.5},{"_id":5,"v":4},{"v":4.5},{"v":6.5},{"_id":1,"v":7}]`},
		{"explicit range without documents in it", "mixed",
			`[{"$match":{"v":{"$gt":5}}},{"$densify":{"field":"v","range":{"step":1,"bounds":[10,13]}}}]`,
			`[{"_id":1,"v":7},{"v":10},{"v":11},{"v":12}]`},
		{"explicit range, every partition from the lower bound", "parts",
			`[{"$densify":{"field":"v","partitionByFields":["p"],"range":{"step":5,"bounds":[0,11]}}},{"$sort":{"p":1,"v":1}}]`,
			`[{"p":"a","v":0},{"_id":1,"p":"a","v":3},{"p":"a","v":5},{"p":"a","v":10},
			{"p":"b","v":0},{"p":"b","v":5},{"p":"b","v":10},{"_id":2,"p":"b","v":12},
			{"_id":3,"p":"c","v":-5},{"p":"c","v":0},{"p":"c","v":5},{"p":"c","v":10}]`},
		{"nested field and partition", "nested",
			`[{"$densify":{"field":"t.v","partitionByFields":["m.k"],"range":{"step":1,"bounds":"partition"}}}]`,
			`[{"_id":1,"m":{"k":1},"t":{"v":0}},{"m":{"k":1},"t":{"v":1}},{"m":{"k":1},"t":{"v":2}},{"_id":2,"m":{"k":1},"t":{"v":3}}]`},
		{"a partition field sharing a prefix of the field's name", "parts",
			`[{"$set":{"vp":"$p"}},{"$densify":{"field":"v","partitionByFields":["vp"],"range":{"step":5,"bounds":"partition"}}},{"$match":{"vp":"a"}}]`,
			`[{"_id":1,"p":"a","v":3,"vp":"a"}]`},
		{"months", "months",
			`[{"$densify":{"field":"d","range":{"step":1,"unit":"month","bounds":"full"}}}]`,
			`[{"_id":1,"d":{"$date":"2021-01-15T00:00:00Z"}},{"d":{"$date":"2021-02-15T00:00:00Z"}},{"d":{"$date":"2021-03-15T00:00:00Z"}},{"d":{"$date":"2021-04-15T00:00:00Z"}},{"_id":2,"d":{"$date":"2021-05-15T00:00:00Z"}}]`},
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

// TestDensifyErrors checks mongod 7.0's codes and messages for bad
// specifications and values (document_source_densify.cpp and its IDL).
func TestDensifyErrors(t *testing.T) {
	t.Parallel()
	db := openDB(t, "densifyErr")
	insertJSON(t, db.Collection("c"), `[{"_id":1,"v":1,"s":"x","d":{"$date":"2021-01-01T00:00:00Z"}}]`)
	for _, tc := range []struct {
		name, spec string
		code       int32
		msg        string
	}{
		{"not an object", `1`, 9, "The $densify stage specification must be an object, found int"},
		{"no field", `{"range":{"step":1,"bounds":"full"}}`, 40414, "BSON field '$densify.field' is missing but a required field"},
		{"no range", `{"field":"v"}`, 40414, "BSON field '$densify.range' is missing but a required field"},
		{"unknown field", `{"field":"v","range":{"step":1,"bounds":"full"},"x":1}`, 40415, "BSON field '$densify.x' is an unknown field."},
		{"field not a string", `{"field":1,"range":{"step":1,"bounds":"full"}}`, 14, "BSON field '$densify.field' is the wrong type 'int', expected type 'string'"},
		{"field path expression", `{"field":"$v","range":{"step":1,"bounds":"full"}}`, 16410, ""},
		{"step not a number", `{"field":"v","range":{"step":"1","bounds":"full"}}`, 14, "BSON field '$densify.range.step' is the wrong type 'string'"},
		{"partitionByFields not an array", `{"field":"v","partitionByFields":"p","range":{"step":1,"bounds":"full"}}`, 14, "BSON field '$densify.partitionByFields' is the wrong type 'string', expected type 'array'"},
		{"no bounds", `{"field":"v","range":{"step":1}}`, 40414, "BSON field '$densify.range.bounds' is missing but a required field"},
		{"negative step", `{"field":"v","range":{"step":-1.0,"bounds":[0,1]}}`, 5733401, "The step parameter in a range statement must be a strictly positive numeric value"},
		{"zero step", `{"field":"v","range":{"step":0,"bounds":"full"}}`, 5733401, ""},
		{"fractional date step", `{"field":"d","range":{"step":1.5,"unit":"hour","bounds":"full"}}`, 6586400, "The step parameter in a range statement must be a whole number when densifying a date range"},
		{"bad unit", `{"field":"d","range":{"step":1,"unit":"fortnight","bounds":"full"}}`, 9, "unknown time unit value: fortnight"},
		{"three bounds", `{"field":"v","range":{"step":1,"bounds":[0,1,2]}}`, 5733403, "A bounding array in a range statement must have exactly two elements"},
		{"descending bounds", `{"field":"v","range":{"step":1,"bounds":[2,1]}}`, 5733402, "A bounding array must be an ascending array of either two dates or two numbers"},
		{"bounds not array or string", `{"field":"v","range":{"step":1,"bounds":1}}`, 5733404, "The bounds in a range statement must be the string 'full', 'partition', or an ascending array of two numbers or two dates"},
		{"bounds string", `{"field":"v","range":{"step":1,"bounds":"all"}}`, 5946802, "Bounds string must either be 'full' or 'partition'"},
		{"numeric bounds with unit", `{"field":"v","range":{"step":1,"unit":"hour","bounds":[0,1]}}`, 5733409, "Numeric bounds may not have unit parameter"},
		{"number then date", `{"field":"v","range":{"step":1,"bounds":[0,{"$date":"2021-01-01T00:00:00Z"}]}}`, 5733406, "A bounding array must contain either both dates or both numeric types"},
		{"date bounds without unit", `{"field":"d","range":{"step":1,"bounds":[{"$date":"2021-01-01T00:00:00Z"},{"$date":"2021-01-02T00:00:00Z"}]}}`, 5733410, "A bounding array of dates must specify a unit"},
		{"bounds and step of different types", `{"field":"v","range":{"step":1.0,"bounds":[0,10]}}`, 5876900, "Upper bound, lower bound, and step must all have the same type"},
		{"string bounds", `{"field":"v","range":{"step":1,"bounds":["a","b"]}}`, 5946800, "Explicit bounds must be numeric or dates"},
		{"partition without partitions", `{"field":"v","range":{"step":1,"bounds":"partition"}}`, 5733408, "One cannot specify the bounds as 'partition' without specifying a non-empty array of partitionByFields. You may have meant to specify 'full' bounds."},
		{"partition field inside the field", `{"field":"a","partitionByFields":["a.b"],"range":{"step":1,"bounds":"full"}}`, 8993000, ""},
		{"field inside a partition field", `{"field":"a.b","partitionByFields":["a"],"range":{"step":1,"bounds":"full"}}`, 9554500, ""},
		{"a string value", `{"field":"s","range":{"step":1,"bounds":"full"}}`, 5733201, "Densify field type must be numeric or a date"},
		{"a number with a unit", `{"field":"v","range":{"step":1,"unit":"day","bounds":"full"}}`, 6053600, "Encountered numeric densify value in collection when step has a date unit."},
		{"a date without a unit", `{"field":"d","range":{"step":1,"bounds":"full"}}`, 6053600, "Encountered date densify value in collection when step does not have a date unit."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := aggJS(t, db.Collection("c"), `[{"$densify":`+tc.spec+`}]`)
			wantServerCode(t, err, tc.code)
			if tc.msg != "" && !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("message %q lacks %q", err.Error(), tc.msg)
			}
		})
	}
}

// TestDensifyExplainAndLimits checks that explain shows the $sort and
// $_internalDensify mongod 7.0 desugars $densify into (the $sort pushed
// down into the query), and the limits on generated documents
// (internalQueryMaxAllowedDensifyDocs, 5897900) and on the partition
// table's memory (internalDocumentSourceDensifyMaxMemoryBytes, 6007200).
func TestDensifyExplainAndLimits(t *testing.T) {
	t.Parallel()
	ctx := testenv.Ctx(t)
	db := openDB(t, "densifyLim")
	insertJSON(t, db.Collection("c"), `[{"_id":1,"p":1,"v":0},{"_id":2,"p":2,"v":100}]`)
	res := db.RunCommand(ctx, bson.D{{Key: "explain", Value: bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: extJSON(t,
		`[{"$densify":{"field":"v","partitionByFields":["p"],"range":{"step":1,"bounds":[0,10]}}}]`)}, {Key: "cursor", Value: bson.D{}}}}, {Key: "verbosity", Value: "queryPlanner"}})
	raw, err := res.Raw()
	if err != nil {
		t.Fatal(err)
	}
	vals, _ := raw.Lookup("stages").Array().Values()
	if len(vals) != 2 {
		t.Fatalf("explain stages: %v", raw.Lookup("stages"))
	}
	if s := vals[0].Document().Lookup("$cursor", "queryPlanner", "winningPlan").String(); !strings.Contains(s, `"sortPattern": {"p": {"$numberInt":"1"},"v": {"$numberInt":"1"}}`) {
		t.Fatalf("$cursor plan lacks the sort: %s", s)
	}
	if s := canonical(t, vals[1].Document()); s != `{"$_internalDensify":{"field":"v","partitionByFields":["p"],"range":{"step":{"$numberInt":"1"},"bounds":[{"$numberInt":"0"},{"$numberInt":"10"}]}}}` {
		t.Fatalf("$_internalDensify: %s", s)
	}
	full := `[{"$densify":{"field":"v","range":{"step":1,"bounds":"full"}}}]`
	got, err := aggJS(t, db.Collection("c"), full)
	if err != nil || len(got) != 101 {
		t.Fatalf("full densify: %d documents, %v", len(got), err)
	}
	setParam := func(name string, v int) {
		t.Helper()
		testenv.SetParameter(t, db, name, v)
	}
	setParam("internalQueryMaxAllowedDensifyDocs", 50)
	_, err = aggJS(t, db.Collection("c"), full)
	wantServerCode(t, err, 5897900)
	if !strings.Contains(err.Error(), "documents in $densify, which is over the limit of 50. Increase the 'internalQueryMaxAllowedDensifyDocs' parameter to allow more generated documents") {
		t.Fatalf("5897900 message: %v", err)
	}
	setParam("internalQueryMaxAllowedDensifyDocs", 500000)
	var docs []any
	for i := 0; i < 100; i++ {
		docs = append(docs, bson.D{{Key: "p", Value: i}, {Key: "v", Value: 1}})
	}
	if _, err := db.Collection("many").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	parts := `[{"$densify":{"field":"v","partitionByFields":["p"],"range":{"step":1,"bounds":"partition"}}}]`
	if got, err := aggJS(t, db.Collection("many"), parts); err != nil || len(got) != 100 {
		t.Fatalf("partitions: %d documents, %v", len(got), err)
	}
	setParam("internalDocumentSourceDensifyMaxMemoryBytes", 1000)
	_, err = aggJS(t, db.Collection("many"), parts)
	wantServerCode(t, err, 6007200)
	if !strings.Contains(err.Error(), "$densify exceeded memory limit of 1000") {
		t.Fatalf("6007200 message: %v", err)
	}
}
