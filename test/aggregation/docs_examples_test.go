package aggregation_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestDocsExamples runs examples from MongoDB's aggregation reference
// pages (and cases derived from them) through the Go driver. Results are
// compared as canonical extended JSON, so numeric types must match:
// 1 is an int32, {"$numberLong":"1"} an int64, 1.0 a double.
func TestDocsExamples(t *testing.T) {
	t.Parallel()
	db := openDB(t, "docs")
	insertJSON(t, db.Collection("inventory"), `[{"_id":1,"item":"abc1","description":"product 1","qty":300},{"_id":2,"item":"abc2","description":"product 2","qty":200},{"_id":3,"item":"xyz1","description":"product 3","qty":250},{"_id":4,"item":"VWZ1","description":"product 4","qty":300},{"_id":5,"item":"VWZ2","description":"product 5","qty":180}]`)
	insertJSON(t, db.Collection("quarters"), `[{"_id":1,"item":"ABC1","quarter":"13Q1","description":"product 1"},{"_id":2,"item":"ABC2","quarter":"13Q4","description":"product 2"},{"_id":3,"item":"XYZ1","quarter":"14Q2","description":null}]`)
	insertJSON(t, db.Collection("food"), `[{"_id":1,"name":"apple pie"},{"_id":2,"name":"cafétéria"},{"_id":3,"name":"éclair"}]`)
	insertJSON(t, db.Collection("scores"), `[{"_id":1,"student":"Maya","homework":[10,5,10],"quiz":[10,8],"extraCredit":0},{"_id":2,"student":"Ryan","homework":[5,6,5],"quiz":[8,8],"extraCredit":8}]`)
	insertJSON(t, db.Collection("vehicles"), `[{"_id":1,"type":"car","specs":{"doors":4,"wheels":4}},{"_id":2,"type":"motorcycle","specs":{"doors":0,"wheels":2}}]`)
	insertJSON(t, db.Collection("sales"), `[{"_id":1,"date":{"$date":"2014-01-01T08:15:39.736Z"}},{"_id":2,"date":{"$date":"2014-01-01T03:00:00Z"}}]`)
	insertJSON(t, db.Collection("nums"), `[{"_id":1,"g":"i32","v":2147483647},{"_id":2,"g":"i32","v":1},{"_id":3,"g":"small","v":2},{"_id":4,"g":"small","v":4},{"_id":5,"g":"mixed","v":{"$numberLong":"5"}},{"_id":6,"g":"mixed","v":1},{"_id":7,"g":"dec","v":1},{"_id":8,"g":"dec","v":{"$numberDecimal":"1.5"}},{"_id":9,"g":"dbl","v":1},{"_id":10,"g":"dbl","v":0.5},{"_id":11,"g":"i64","v":{"$numberLong":"9223372036854775807"}},{"_id":12,"g":"i64","v":{"$numberLong":"1"}}]`)
	for _, tc := range []struct {
		name, coll, pipeline, want string
	}{
		// $lte (aggregation) page.
		{"$lte", "inventory", `[{"$project":{"item":1,"qty":1,"qtyLte250":{"$lte":["$qty",250]},"_id":0}}]`,
			`[{"item":"abc1","qty":300,"qtyLte250":false},{"item":"abc2","qty":200,"qtyLte250":true},{"item":"xyz1","qty":250,"qtyLte250":true},{"item":"VWZ1","qty":300,"qtyLte250":false},{"item":"VWZ2","qty":180,"qtyLte250":true}]`},
		{"$lte across types", "inventory", `[{"$match":{"_id":1}},{"$project":{"_id":0,"numStr":{"$lte":[5,"a"]},"strNum":{"$lte":["a",5]},"longDbl":{"$lte":[{"$toLong":2},2.0]},"decInt":{"$lte":[{"$toDecimal":"2.5"},2]},"nullMissing":{"$lte":[null,"$nothing"]},"missingNull":{"$lte":["$nothing",null]}}}]`,
			`[{"numStr":true,"strNum":false,"longDbl":true,"decInt":false,"nullMissing":false,"missingNull":true}]`},
		// $substrBytes page, plus multi-byte characters.
		{"$substrBytes", "quarters", `[{"$project":{"item":1,"yearSubstring":{"$substrBytes":["$quarter",0,2]},"quarterSubstring":{"$substrBytes":["$quarter",2,{"$subtract":[{"$strLenBytes":"$quarter"},2]}]}}}]`,
			`[{"_id":1,"item":"ABC1","yearSubstring":"13","quarterSubstring":"Q1"},{"_id":2,"item":"ABC2","yearSubstring":"13","quarterSubstring":"Q4"},{"_id":3,"item":"XYZ1","yearSubstring":"14","quarterSubstring":"Q2"}]`},
		{"$substrBytes multi-byte", "food", `[{"$project":{"head":{"$substrBytes":["$name",0,5]},"tail":{"$substrBytes":["$name",5,-1]},"past":{"$substrBytes":["$name",100,3]}}}]`,
			`[{"_id":1,"head":"apple","tail":" pie","past":""},{"_id":2,"head":"café","tail":"téria","past":""},{"_id":3,"head":"écla","tail":"ir","past":""}]`},
		// $set (aggregation) page: two $set stages, then a nested field.
		{"$set stages", "scores", `[{"$set":{"totalHomework":{"$sum":"$homework"},"totalQuiz":{"$sum":"$quiz"}}},{"$set":{"totalScore":{"$add":["$totalHomework","$totalQuiz","$extraCredit"]}}},{"$project":{"homework":0,"quiz":0}}]`,
			`[{"_id":1,"student":"Maya","extraCredit":0,"totalHomework":25,"totalQuiz":18,"totalScore":43},{"_id":2,"student":"Ryan","extraCredit":8,"totalHomework":16,"totalQuiz":16,"totalScore":40}]`},
		{"$set embedded field", "vehicles", `[{"$set":{"specs.fuel_type":"unleaded"}}]`,
			`[{"_id":1,"type":"car","specs":{"doors":4,"wheels":4,"fuel_type":"unleaded"}},{"_id":2,"type":"motorcycle","specs":{"doors":0,"wheels":2,"fuel_type":"unleaded"}}]`},
		{"$set replaces and adds to arrays", "scores", `[{"$match":{"_id":1}},{"$set":{"homework":{"$concatArrays":["$homework",[7]]},"_id":"$_id","quiz":"x"}},{"$project":{"homework":1,"quiz":1}}]`,
			`[{"_id":1,"homework":[10,5,10,7],"quiz":"x"}]`},
		// Date part operators: the $year... pages' sales document in UTC,
		// then with an Olson zone and an offset. 2014-01-01T03:00Z is
		// 2013-12-31T22:00 in New York: year 2013, ISO week 1 of 2014.
		{"date parts UTC", "sales", `[{"$match":{"_id":1}},{"$project":{"_id":0,"year":{"$year":"$date"},"month":{"$month":"$date"},"day":{"$dayOfMonth":"$date"},"hour":{"$hour":"$date"},"minutes":{"$minute":"$date"},"seconds":{"$second":"$date"},"milliseconds":{"$millisecond":"$date"},"dayOfYear":{"$dayOfYear":"$date"},"dayOfWeek":{"$dayOfWeek":"$date"},"week":{"$week":"$date"}}}]`,
			`[{"year":2014,"month":1,"day":1,"hour":8,"minutes":15,"seconds":39,"milliseconds":736,"dayOfYear":1,"dayOfWeek":4,"week":0}]`},
		{"date parts New York", "sales", `[{"$match":{"_id":2}},{"$project":{"_id":0,` + tzParts(`"America/New_York"`) + `}}]`,
			`[{"year":2013,"month":12,"day":31,"seconds":0,"ms":0,"dayOfWeek":3,"dayOfYear":365,"week":52,"isoWeek":1,"isoWeekYear":{"$numberLong":"2014"},"isoDayOfWeek":2}]`},
		{"date parts UTC ISO", "sales", `[{"$match":{"_id":2}},{"$project":{"_id":0,` + tzParts(`"UTC"`) + `}}]`,
			`[{"year":2014,"month":1,"day":1,"seconds":0,"ms":0,"dayOfWeek":4,"dayOfYear":1,"week":0,"isoWeek":1,"isoWeekYear":{"$numberLong":"2014"},"isoDayOfWeek":3}]`},
		{"date parts +05:30", "sales", `[{"$match":{"_id":1}},{"$project":{"_id":0,"hour":{"$hour":{"date":"$date","timezone":"+05:30"}},"minute":{"$minute":{"date":"$date","timezone":"+05:30"}},"seconds":{"$second":{"date":"$date","timezone":"+05:30"}},"ms":{"$millisecond":{"date":"$date","timezone":"+0530"}},"day":{"$dayOfMonth":{"date":"$date","timezone":"-10"}}}}]`,
			`[{"hour":13,"minute":45,"seconds":39,"ms":736,"day":31}]`},
		// $dateSubtract: the month-end adjustment of its page, and a day
		// across the end of daylight saving time in New York (a local day
		// is 25 hours there; 24 hours stay 24 hours).
		{"$dateSubtract", "sales", `[{"$match":{"_id":1}},{"$project":{"_id":0,` +
			`"monthEnd":{"$dateSubtract":{"startDate":{"$toDate":"2021-03-31T12:10:05Z"},"unit":"month","amount":1}},` +
			`"dayNY":{"$dateSubtract":{"startDate":{"$toDate":"2021-11-07T12:00:00Z"},"unit":"day","amount":1,"timezone":"America/New_York"}},` +
			`"dayUTC":{"$dateSubtract":{"startDate":{"$toDate":"2021-11-07T12:00:00Z"},"unit":"day","amount":1}},` +
			`"hoursNY":{"$dateSubtract":{"startDate":{"$toDate":"2021-11-07T12:00:00Z"},"unit":"hour","amount":24,"timezone":"America/New_York"}},` +
			`"weekOffset":{"$dateSubtract":{"startDate":{"$toDate":"2021-01-01T02:00:00Z"},"unit":"week","amount":1,"timezone":"+03:00"}}}}]`,
			`[{"monthEnd":{"$date":"2021-02-28T12:10:05Z"},"dayNY":{"$date":"2021-11-06T11:00:00Z"},"dayUTC":{"$date":"2021-11-06T12:00:00Z"},"hoursNY":{"$date":"2021-11-06T12:00:00Z"},"weekOffset":{"$date":"2020-12-25T02:00:00Z"}}]`},
		// Numeric result types of $group accumulators.
		{"$group numeric types", "nums", `[{"$group":{"_id":"$g","sum":{"$sum":"$v"},"avg":{"$avg":"$v"},"n":{"$sum":1}}},{"$sort":{"_id":1}}]`,
			`[{"_id":"dbl","sum":1.5,"avg":0.75,"n":2},` +
				`{"_id":"dec","sum":{"$numberDecimal":"2.5"},"avg":{"$numberDecimal":"1.25"},"n":2},` +
				`{"_id":"i32","sum":{"$numberLong":"2147483648"},"avg":1073741824.0,"n":2},` +
				`{"_id":"i64","sum":9223372036854775808.0,"avg":4611686018427387904.0,"n":2},` +
				`{"_id":"mixed","sum":{"$numberLong":"6"},"avg":3.0,"n":2},` +
				`{"_id":"small","sum":6,"avg":3.0,"n":2}]`},
		{"$group empty and non-numeric", "nums", `[{"$match":{"_id":{"$lt":0}}},{"$group":{"_id":null,"s":{"$sum":"$v"}}}]`, `[]`},
		{"$group $sum of strings", "quarters", `[{"$group":{"_id":null,"s":{"$sum":"$item"},"a":{"$avg":"$item"},"c":{"$count":{}}}}]`,
			`[{"_id":null,"s":0,"a":null,"c":3}]`},
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

// tzParts projects the date parts of $date in timezone tz.
func tzParts(tz string) string {
	part := func(name, op string) string {
		return `"` + name + `":{"` + op + `":{"date":"$date","timezone":` + tz + `}}`
	}
	out := ""
	for i, p := range [][2]string{{"year", "$year"}, {"month", "$month"}, {"day", "$dayOfMonth"}, {"seconds", "$second"}, {"ms", "$millisecond"},
		{"dayOfWeek", "$dayOfWeek"}, {"dayOfYear", "$dayOfYear"}, {"week", "$week"}, {"isoWeek", "$isoWeek"}, {"isoWeekYear", "$isoWeekYear"}, {"isoDayOfWeek", "$isoDayOfWeek"}} {
		if i > 0 {
			out += ","
		}
		out += part(p[0], p[1])
	}
	return out
}

// TestSampleStatsCount checks $sample's size and uniqueness, $collStats,
// $indexStats and estimatedDocumentCount through the driver.
func TestSampleStatsCount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t, "stats")
	coll := db.Collection("items")
	var docs []any
	for i := 0; i < 100; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "sku", Value: i}, {Key: "cat", Value: i % 4}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "sku", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
		t.Fatal(err)
	}
	// $sample: size documents, all distinct; a size above the count
	// returns every document once.
	for _, tc := range []struct{ size, want int }{{10, 10}, {1, 1}, {150, 100}} {
		cur, err := coll.Aggregate(ctx, extJSON(t, `[{"$sample":{"size":`+itoa(tc.size)+`}}]`))
		if err != nil {
			t.Fatal(err)
		}
		var got []struct {
			ID int `bson:"_id"`
		}
		if err := cur.All(ctx, &got); err != nil {
			t.Fatal(err)
		}
		seen := map[int]bool{}
		for _, g := range got {
			if seen[g.ID] || g.ID < 0 || g.ID >= 100 {
				t.Fatalf("$sample size %d: repeated or unknown _id %d", tc.size, g.ID)
			}
			seen[g.ID] = true
		}
		if len(got) != tc.want {
			t.Fatalf("$sample size %d returned %d documents", tc.size, len(got))
		}
	}
	_, err := aggJS(t, coll, `[{"$sample":{"size":-1}}]`)
	wantServerCode(t, err, 28747)
	_, err = aggJS(t, coll, `[{"$sample":{}}]`)
	wantServerCode(t, err, 28749)
	// A range ending inside a multi-byte character is an error.
	_, err = aggJS(t, coll, `[{"$project":{"s":{"$substrBytes":["寿司",0,4]}}}]`)
	wantServerCode(t, err, 28657)
	// $collStats.
	cs := rawDocs(t, coll, `[{"$collStats":{"count":{},"storageStats":{}}}]`)
	if len(cs) != 1 || cs[0].Lookup("ns").StringValue() != "stats.items" || cs[0].Lookup("count").Int64() != 100 {
		t.Fatalf("$collStats: %v", cs)
	}
	if ss := cs[0].Lookup("storageStats"); ss.Document().Lookup("count").Int64() != 100 || ss.Document().Lookup("nindexes").Int32() != 2 {
		t.Fatalf("$collStats storageStats: %v", ss)
	}
	_, err = aggJS(t, coll, `[{"$match":{}},{"$collStats":{}}]`)
	wantServerCode(t, err, 40602)
	// $indexStats: one document per index with name, key, host,
	// accesses {ops (long), since (date)} and spec.
	ix := rawDocs(t, coll, `[{"$indexStats":{}},{"$sort":{"name":1}}]`)
	if len(ix) != 2 || ix[0].Lookup("name").StringValue() != "_id_" || ix[1].Lookup("name").StringValue() != "sku_1" {
		t.Fatalf("$indexStats: %v", ix)
	}
	for _, d := range ix {
		if d.Lookup("accesses", "ops").Type != bson.TypeInt64 || d.Lookup("accesses", "since").Type != bson.TypeDateTime || d.Lookup("host").Type != bson.TypeString {
			t.Fatalf("$indexStats document: %v", d)
		}
	}
	if ix[1].Lookup("key").String() != `{"sku": {"$numberInt":"1"}}` || !ix[1].Lookup("spec", "unique").Boolean() {
		t.Fatalf("$indexStats sku_1: %v", ix[1])
	}
	if _, err := ix[0].LookupErr("spec", "unique"); err == nil {
		t.Fatalf("_id_ spec shows unique: %v", ix[0])
	}
	// estimatedDocumentCount.
	n, err := coll.EstimatedDocumentCount(ctx)
	if err != nil || n != 100 {
		t.Fatalf("estimatedDocumentCount = %d, %v", n, err)
	}
	if _, err := coll.DeleteMany(ctx, bson.D{{Key: "cat", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	if n, err = coll.EstimatedDocumentCount(ctx); err != nil || n != 75 {
		t.Fatalf("estimatedDocumentCount after delete = %d, %v", n, err)
	}
	if n, err = db.Collection("missing").EstimatedDocumentCount(ctx); err != nil || n != 0 {
		t.Fatalf("estimatedDocumentCount of a missing collection = %d, %v", n, err)
	}
}

func itoa(i int) string {
	b, _ := bson.MarshalExtJSON(bson.D{{Key: "v", Value: i}}, false, false)
	return string(b[5 : len(b)-1])
}

// rawDocs runs a pipeline and returns the raw result documents.
func rawDocs(t *testing.T, coll *mongo.Collection, pipeline string) []bson.Raw {
	t.Helper()
	cur, err := coll.Aggregate(context.Background(), extJSON(t, pipeline))
	if err != nil {
		t.Fatal(err)
	}
	var out []bson.Raw
	for cur.Next(context.Background()) {
		out = append(out, append(bson.Raw(nil), cur.Current...))
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
