package aggregation_test

import (
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestOperatorErrorCodes: mongod's codes for argument errors, from
// MongoDB's own slice, reduce, zip, replace_one, count, date_to_string
// and regex tests.
func TestOperatorErrorCodes(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	for pipeline, want := range map[string]int32{
		`[{"$project": {"x": {"$slice": [[1, 2], 4294967296]}}}]`:                                                    28726,
		`[{"$project": {"x": {"$slice": [[1, 2], 0, -2147483649]}}}]`:                                                28728,
		`[{"$project": {"x": {"$reduce": {"input": [1], "in": 0}}}}]`:                                                40078,
		`[{"$project": {"x": {"$reduce": {"input": [1], "initialValue": 0}}}}]`:                                      40079,
		`[{"$project": {"x": {"$zip": {"inputs": []}}}}]`:                                                            34465,
		`[{"$project": {"x": {"$replaceOne": {"input": "a", "find": {"$literal": {"a": 1}}, "replacement": "b"}}}}]`: 51745,
		`[{"$project": {"x": {"$replaceAll": {"input": "a", "find": "a", "replacement": 1}}}}]`:                      51744,
		`[{"$count": ""}]`:         40157,
		`[{"$count": "a\u0000b"}]`: 40159,
		`[{"$project": {"x": {"$regexMatch": {"input": "s", "regex": "sa\u0000sd"}}}}]`:              51109,
		`[{"$project": {"x": {"$regexMatch": {"input": "s", "regex": "s", "options": "i\u0000"}}}}]`: 51110,
	} {
		_, err, _ := aggOne(t, d, pipeline, 0)
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != want {
			t.Errorf("%s: %v, want code %d", pipeline, err, want)
		}
	}
	_, err, _ := aggOne(t, d, `[{"$project": {"x": {"$dateToString": {"date": {"$date": "2017-01-04T15:08:51.911Z"}, "format": "%"}}}}]`, 0)
	if err == nil || !strings.Contains(err.Error(), "Unmatched '%' at end of format string") {
		t.Errorf("trailing %%: %v", err)
	}
	// $regexFindAll stops at the input's end: no empty match there.
	r, err, _ := aggOne(t, d, `[{"$project": {"_id": 0, "m": {"$size": {"$regexFindAll": {"input": "aaa aa", "regex": "(a*?)"}}},
		"e": {"$size": {"$regexFindAll": {"input": "bbbb", "regex": "()"}}}, "z": {"$size": {"$regexFindAll": {"input": "", "regex": "x*"}}}}}]`, 0)
	if err != nil {
		t.Fatal(err)
	}
	doc := r.Lookup("cursor", "firstBatch", "0").Document()
	if m, e, z := doc.Lookup("m").Int32(), doc.Lookup("e").Int32(), doc.Lookup("z").Int32(); m != 6 || e != 4 || z != 1 {
		t.Errorf("$regexFindAll matches: %d, %d, %d, want 6, 4 and 1", m, e, z)
	}
}

// TestDatePartTimezoneOrder: a date part operator evaluates its date
// first (null gives null, a non-date 16006), then its timezone (a
// non-string 40533), as mongod does; from MongoDB's own
// day_of_expressions test.
func TestDatePartTimezoneOrder(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	date := `{"$date": "1998-11-07T00:00:00Z"}`
	for expr, want := range map[string]int32{
		`{"$dayOfYear": {"date": ` + date + `, "timezone": 5}}`: 40533,
		`{"$isoWeek": {"date": ` + date + `, "timezone": 5}}`:   40533,
		`{"$year": {"date": 42, "timezone": 5}}`:                16006,
	} {
		_, err, _ := aggOne(t, d, `[{"$project": {"x": `+expr+`}}]`, 0)
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != want {
			t.Errorf("%s: %v, want code %d", expr, err, want)
		}
	}
	r, err, _ := aggOne(t, d, `[{"$project": {"_id": 0, "x": {"$year": {"date": null, "timezone": 5}}}}]`, 0)
	if err != nil {
		t.Fatalf("a null date with a bad timezone: %v, want null", err)
	}
	if v := r.Lookup("cursor", "firstBatch", "0", "x"); v.Type != 0x0A {
		t.Errorf("a null date: %v, want null", v)
	}
}

// TestStageNamespaceAndScopeErrors: from MongoDB's own lookup,
// lookup_subpipeline, documents and match tests. $lookup's let
// variables see only the outer scope (17276); an empty 'from' is
// InvalidNamespace; $documents runs only with {aggregate: 1} (73 on a
// collection); a sub-pipeline with no collection must start with
// $documents (9); $where is refused in $match (2).
func TestStageNamespaceAndScopeErrors(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	for pipeline, want := range map[string]int32{
		`[{"$lookup": {"let": {"var1": 1, "var2": "$$var1"}, "pipeline": [], "from": "c", "as": "as"}}]`: 17276,
		`[{"$lookup": {"localField": "a", "foreignField": "b", "from": "", "as": "as"}}]`:                73,
		`[{"$documents": [{"x": 1}]}]`:                                                       73,
		`[{"$unionWith": {"pipeline": [{"$project": {"a": 1}}]}}]`:                           9,
		`[{"$lookup": {"let": {"x": 1}, "as": "aa", "pipeline": [{"$project": {"a": 1}}]}}]`: 9,
		`[{"$match": {"$or": [{"$where": "true"}]}}]`:                                        2,
	} {
		_, err, _ := aggOne(t, d, pipeline, 0)
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != want {
			t.Errorf("%s: %v, want code %d", pipeline, err, want)
		}
	}
	// What stays allowed: a let variable used by the sub-pipeline, and
	// $documents first in a collectionless $unionWith.
	if _, err, _ := aggOne(t, d, `[{"$lookup": {"let": {"v": "$s"}, "pipeline": [{"$match": {"$expr": {"$eq": ["$s", "$$v"]}}}], "from": "c", "as": "as"}},
		{"$unionWith": {"pipeline": [{"$documents": [{"z": 1}]}]}}]`, 0); err != nil {
		t.Errorf("a let variable and a $documents union: %v", err)
	}
}

// TestGraphLookupRefusesTextAndWhere: restrictSearchWithMatch takes no
// $text or $where, refused when the pipeline is parsed, whether or not
// the collection exists (MongoDB's own graphLookup error test).
func TestGraphLookupRefusesTextAndWhere(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	for _, restrict := range []string{`{"$text": {"$search": "x"}}`, `{"$where": "3 > 2"}`} {
		_, err, _ := aggOne(t, d, `[{"$graphLookup": {"from": "nosuch", "startWith": {"$literal": 0}, "connectToField": "a",
			"connectFromField": "b", "as": "out", "restrictSearchWithMatch": `+restrict+`}}]`, 0)
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != 2 {
			t.Errorf("%s: %v, want BadValue", restrict, err)
		}
	}
}
