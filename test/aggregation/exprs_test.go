package aggregation_test

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// testScoresJS is the testScores collection of the $percentile and
// $median reference pages.
const testScoresJS = `[
 {"_id":1,"studentId":"2345","test01":62,"test02":81,"test03":80},
 {"_id":2,"studentId":"2356","test01":60,"test02":83,"test03":79},
 {"_id":3,"studentId":"2358","test01":67,"test02":82,"test03":78},
 {"_id":4,"studentId":"2367","test01":64,"test02":72,"test03":77},
 {"_id":5,"studentId":"2369","test01":60,"test02":53,"test03":72}]`

// TestPercentileDocsExamples runs the $percentile and $median pages'
// examples through the Go driver, as accumulators ($group, $bucket,
// $bucketAuto) and as expressions ($project), with their documented
// outputs (doubles: mongosh prints 62 for 62.0).
func TestPercentileDocsExamples(t *testing.T) {
	t.Parallel()
	db := openDB(t, "pct")
	insertJSON(t, db.Collection("testScores"), testScoresJS)
	insertJSON(t, db.Collection("mixed"), `[{"_id":1,"g":"a","v":"x"},{"_id":2,"g":"a","v":null},{"_id":3,"g":"b","v":{"$numberDecimal":"2.5"}},{"_id":4,"g":"b","v":true},{"_id":5,"g":"b","v":{"$numberLong":"4"}},{"_id":6,"g":"b","v":{"$numberDouble":"NaN"}},{"_id":7,"g":"b","v":1}]`)
	for _, tc := range []struct{ name, coll, pipeline, want string }{
		{"$percentile single value", "testScores",
			`[{"$group":{"_id":null,"test01_percentiles":{"$percentile":{"input":"$test01","p":[0.95],"method":"approximate"}}}}]`,
			`[{"_id":null,"test01_percentiles":[67.0]}]`},
		{"$percentile multiple values", "testScores",
			`[{"$group":{"_id":null,` +
				`"test01_percentiles":{"$percentile":{"input":"$test01","p":[0.5,0.75,0.9,0.95],"method":"approximate"}},` +
				`"test02_percentiles":{"$percentile":{"input":"$test02","p":[0.5,0.75,0.9,0.95],"method":"approximate"}},` +
				`"test03_percentiles":{"$percentile":{"input":"$test03","p":[0.5,0.75,0.9,0.95],"method":"approximate"}},` +
				`"test03_percent_alt":{"$percentile":{"input":"$test03","p":[0.9,0.5,0.75,0.95],"method":"approximate"}}}}]`,
			`[{"_id":null,"test01_percentiles":[62.0,64.0,67.0,67.0],"test02_percentiles":[81.0,82.0,83.0,83.0],"test03_percentiles":[78.0,79.0,80.0,80.0],"test03_percent_alt":[80.0,78.0,79.0,80.0]}]`},
		{"$percentile in $project", "testScores",
			`[{"$project":{"_id":0,"studentId":1,"testPercentiles":{"$percentile":{"input":["$test01","$test02","$test03"],"p":[0.5,0.95],"method":"approximate"}}}}]`,
			`[{"studentId":"2345","testPercentiles":[80.0,81.0]},{"studentId":"2356","testPercentiles":[79.0,83.0]},{"studentId":"2358","testPercentiles":[78.0,82.0]},{"studentId":"2367","testPercentiles":[72.0,77.0]},{"studentId":"2369","testPercentiles":[60.0,72.0]}]`},
		{"$median in $group", "testScores",
			`[{"$group":{"_id":null,"test01_median":{"$median":{"input":"$test01","method":"approximate"}}}}]`,
			`[{"_id":null,"test01_median":62.0}]`},
		{"$median in $project", "testScores",
			`[{"$project":{"_id":0,"studentId":1,"testMedians":{"$median":{"input":["$test01","$test02","$test03"],"method":"approximate"}}}}]`,
			`[{"studentId":"2345","testMedians":80.0},{"studentId":"2356","testMedians":79.0},{"studentId":"2358","testMedians":78.0},{"studentId":"2367","testMedians":72.0},{"studentId":"2369","testMedians":60.0}]`},
		{"$median in $bucket", "testScores",
			`[{"$bucket":{"groupBy":"$test01","boundaries":[60,63,70],"output":{"m":{"$median":{"input":"$test02","method":"approximate"}},"p":{"$percentile":{"input":"$test03","p":[1],"method":"approximate"}}}}}]`,
			`[{"_id":60,"m":81.0,"p":[80.0]},{"_id":63,"m":72.0,"p":[78.0]}]`},
		{"$median in $bucketAuto", "testScores",
			`[{"$bucketAuto":{"groupBy":"$_id","buckets":1,"output":{"m":{"$median":{"input":"$test01","method":"approximate"}}}}}]`,
			`[{"_id":{"min":1,"max":5},"m":62.0}]`},
		// The $median page's $setWindowFields example: a range window of
		// ±3 over test01 (ties broken by _id to fix the output order).
		{"$median in $setWindowFields", "testScores",
			`[{"$setWindowFields":{"sortBy":{"test01":1},"output":{"test01_median":{"$median":{"input":"$test01","method":"approximate"},"window":{"range":[-3,3]}}}}},{"$sort":{"test01":1,"_id":1}},{"$project":{"_id":0,"studentId":1,"test01_median":1}}]`,
			`[{"studentId":"2356","test01_median":60.0},{"studentId":"2369","test01_median":60.0},{"studentId":"2345","test01_median":60.0},{"studentId":"2367","test01_median":64.0},{"studentId":"2358","test01_median":64.0}]`},
		// A documents window: each student and the next one.
		{"$percentile in $setWindowFields", "testScores",
			`[{"$setWindowFields":{"sortBy":{"_id":1},"output":{"p":{"$percentile":{"input":"$test02","p":[0,1],"method":"approximate"},"window":{"documents":["current",1]}}}}},{"$project":{"_id":1,"p":1}}]`,
			`[{"_id":1,"p":[81.0,83.0]},{"_id":2,"p":[82.0,83.0]},{"_id":3,"p":[72.0,82.0]},{"_id":4,"p":[53.0,72.0]},{"_id":5,"p":[53.0,53.0]}]`},
		{"non-numeric inputs ignored", "mixed",
			`[{"$group":{"_id":"$g","m":{"$median":{"input":"$v","method":"approximate"}},"p":{"$percentile":{"input":"$v","p":[0,1],"method":"approximate"}}}},{"$sort":{"_id":1}}]`,
			`[{"_id":"a","m":null,"p":[null,null]},{"_id":"b","m":2.5,"p":[1.0,4.0]}]`},
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

// TestPercentileErrors checks mongod's codes for bad $median and
// $percentile specifications in both positions.
func TestPercentileErrors(t *testing.T) {
	t.Parallel()
	db := openDB(t, "pcterr")
	insertJSON(t, db.Collection("c"), `[{"_id":1,"v":1}]`)
	group := func(spec string) string { return `[{"$group":{"_id":null,"x":` + spec + `}}]` }
	project := func(spec string) string { return `[{"$project":{"x":` + spec + `}}]` }
	for _, tc := range []struct {
		pipeline string
		code     int32
	}{
		{group(`{"$median":5}`), 7436100},
		{project(`{"$median":5}`), 7436201},
		{group(`{"$percentile":5}`), 7429703},
		{project(`{"$percentile":5}`), 7436200},
		{group(`{"$median":[1,2]}`), 40237},
		{group(`{"$median":{}}`), 40414},
		{group(`{"$median":{"input":"$v"}}`), 40414},
		{group(`{"$percentile":{"input":"$v","method":"approximate"}}`), 40414},
		{group(`{"$median":{"input":"$v","method":"continuous"}}`), 2},
		{project(`{"$percentile":{"input":"$v","p":[0.5],"method":"discrete"}}`), 2},
		{group(`{"$median":{"input":"$v","p":[0.5],"method":"approximate"}}`), 40415},
		{group(`{"$percentile":{"input":"$v","p":0.5,"method":"approximate"}}`), 7750301},
		{group(`{"$percentile":{"input":"$v","p":[],"method":"approximate"}}`), 7750301},
		{group(`{"$percentile":{"input":"$v","p":["a"],"method":"approximate"}}`), 7750302},
		{group(`{"$percentile":{"input":"$v","p":[1.5],"method":"approximate"}}`), 7750303},
		{group(`{"$percentile":{"input":"$v","p":"$v","method":"approximate"}}`), 7750300},
		{group(`{"$accumulator":{"init":"function() {}","accumulate":"function() {}","accumulateArgs":[],"merge":"function() {}","lang":"js"}}`), 238},
		{project(`{"$function":{"body":"function() { return 1 }","args":[],"lang":"js"}}`), 238},
	} {
		t.Run(tc.pipeline, func(t *testing.T) {
			_, err := aggJS(t, db.Collection("c"), tc.pipeline)
			wantServerCode(t, err, tc.code)
		})
	}
}

// TestNewExpressionsWire runs the trigonometry, bitwise, data-size and
// timestamp operators through the driver: the reference pages' examples
// (the trigonometry pages' 3-4-5 right triangle in decimal, the bitwise
// pages' switches collection) and edge cases with mongod's codes.
func TestNewExpressionsWire(t *testing.T) {
	t.Parallel()
	db := openDB(t, "exprs")
	insertJSON(t, db.Collection("trig"), `[{"_id":1,"angle_a":{"$numberDecimal":"53.13010235415597870314438744090659"},"angle_b":{"$numberDecimal":"36.86989764584402129685561255909341"},"angle_c":{"$numberDecimal":"90"},"hypotenuse":{"$numberDecimal":"5"}}]`)
	insertJSON(t, db.Collection("switches"), `[{"_id":0,"a":{"$numberInt":"0"},"b":{"$numberInt":"127"}},{"_id":1,"a":{"$numberInt":"2"},"b":{"$numberLong":"3"}},{"_id":2,"a":{"$numberInt":"3"},"b":{"$numberInt":"5"}}]`)
	insertJSON(t, db.Collection("ts"), `[{"_id":1,"t":{"$timestamp":{"t":1622731060,"i":1}}},{"_id":2,"t":null}]`)
	for _, tc := range []struct{ name, coll, pipeline, want string }{
		{"$degreesToRadians", "trig",
			`[{"$project":{"_id":0,"a":{"$degreesToRadians":"$angle_a"},"b":{"$degreesToRadians":"$angle_b"},"c":{"$degreesToRadians":"$angle_c"}}}]`,
			`[{"a":{"$numberDecimal":"0.9272952180016122324285124629224290"},"b":{"$numberDecimal":"0.6435011087932843868028092287173227"},"c":{"$numberDecimal":"1.570796326794896619231321691639752"}}]`},
		{"$sin side_b", "trig",
			`[{"$project":{"_id":0,"side_b":{"$multiply":[{"$sin":{"$degreesToRadians":"$angle_a"}},"$hypotenuse"]}}}]`,
			`[{"side_b":{"$numberDecimal":"4.000000000000000000000000000000000"}}]`},
		{"doubles", "trig",
			`[{"$project":{"_id":0,"sin":{"$sin":0},"cos":{"$cos":{"$numberLong":"0"}},"atan2":{"$atan2":[1,1]},"deg":{"$radiansToDegrees":3.141592653589793},"nan":{"$tan":{"$numberDouble":"NaN"}},"nul":{"$acos":"$nothing"},"inf":{"$radiansToDegrees":{"$numberDouble":"-Infinity"}}}}]`,
			`[{"sin":0.0,"cos":1.0,"atan2":0.7853981633974483,"deg":180.0,"nan":{"$numberDouble":"NaN"},"nul":null,"inf":{"$numberDouble":"-Infinity"}}]`},
		{"bitwise", "switches",
			`[{"$project":{"and":{"$bitAnd":["$a","$b"]},"or":{"$bitOr":["$a","$b"]},"xor":{"$bitXor":["$a","$b"]},"not":{"$bitNot":"$a"}}}]`,
			`[{"_id":0,"and":0,"or":127,"xor":127,"not":-1},{"_id":1,"and":{"$numberLong":"2"},"or":{"$numberLong":"3"},"xor":{"$numberLong":"1"},"not":-3},{"_id":2,"and":1,"or":7,"xor":6,"not":-4}]`},
		{"$tsSecond $tsIncrement", "ts",
			`[{"$project":{"s":{"$tsSecond":"$t"},"i":{"$tsIncrement":"$t"}}}]`,
			`[{"_id":1,"s":{"$numberLong":"1622731060"},"i":{"$numberLong":"1"}},{"_id":2,"s":null,"i":null}]`},
		{"$toHashedIndexKey", "ts",
			`[{"$match":{"_id":1}},{"$project":{"_id":0,"hashedVal":{"$toHashedIndexKey":"string to hash"}}}]`,
			`[{"hashedVal":{"$numberLong":"763543691661428748"}}]`},
		{"$bsonSize $binarySize", "ts",
			`[{"$match":{"_id":2}},{"$project":{"_id":0,"doc":{"$bsonSize":"$$ROOT"},"str":{"$binarySize":"héllo"},"bin":{"$binarySize":{"$literal":{"$binary":{"base64":"AAECAw==","subType":"00"}}}},"nul":{"$bsonSize":"$t"}}}]`,
			`[{"doc":17,"str":6,"bin":4,"nul":null}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := aggJS(t, db.Collection(tc.coll), tc.pipeline)
			if err != nil {
				t.Fatal(err)
			}
			wantJS(t, got, tc.want)
		})
	}
	for _, tc := range []struct {
		expr string
		code int32
	}{
		{`{"$sin":{"$numberDouble":"Infinity"}}`, 50989},
		{`{"$acos":2}`, 50989},
		{`{"$asin":{"$numberDecimal":"-1.5"}}`, 50989},
		{`{"$acosh":0}`, 50989},
		{`{"$atanh":1.5}`, 50989},
		{`{"$sin":"a"}`, 28765},
		{`{"$atan2":[1,"a"]}`, 51045},
		{`{"$bitAnd":[1,1.5]}`, 14},
		{`{"$bitNot":"a"}`, 28765},
		{`{"$bsonSize":"a"}`, 31393},
		{`{"$binarySize":1}`, 51276},
		{`{"$tsSecond":1}`, 5687301},
		{`{"$tsIncrement":"a"}`, 5687302},
		{`{"$toHashedIndexKey":[1,2]}`, 16020},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			_, err := aggJS(t, db.Collection("ts"), `[{"$project":{"x":`+tc.expr+`}}]`)
			wantServerCode(t, err, tc.code)
		})
	}
}

// TestSampleRate checks $sampleRate in $match and find: 0 and 1 select
// nothing and everything, 0.5 a plausible half (bounded: at 1,000
// documents a count outside 350..650 has probability below 1e-20), and
// mongod's BadValue for a bad argument.
func TestSampleRate(t *testing.T) {
	t.Parallel()
	ctx := testenv.Ctx(t)
	db := openDB(t, "sample")
	coll := db.Collection("c")
	docs := make([]any, 1000)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rate   float64
		lo, hi int
	}{{0, 0, 0}, {1, 1000, 1000}, {0.5, 350, 650}} {
		got, err := aggJS(t, coll, fmt.Sprintf(`[{"$match":{"$sampleRate":%v}}]`, c.rate))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) < c.lo || len(got) > c.hi {
			t.Errorf("$sampleRate %v: %d documents, want %d..%d", c.rate, len(got), c.lo, c.hi)
		}
	}
	n, err := coll.CountDocuments(ctx, bson.D{{Key: "$sampleRate", Value: 0.25}})
	if err != nil || n < 150 || n > 350 {
		t.Errorf("find $sampleRate 0.25: %d, %v", n, err)
	}
	for _, bad := range []string{`"a"`, `1.5`, `-0.1`} {
		_, err := aggJS(t, coll, `[{"$match":{"$sampleRate":`+bad+`}}]`)
		wantServerCode(t, err, 2)
	}
	// mongod runs no $where in a $match: BadValue, before any question
	// of server-side JavaScript (MongoDB's own match test).
	_, err = aggJS(t, coll, `[{"$match":{"$where":"true"}}]`)
	wantServerCode(t, err, 2)
}
