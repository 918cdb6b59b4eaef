package aggregation_test

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestWindowErrors checks mongod 7.0's codes (and, where its source gives
// them, messages) for misuse of $setWindowFields and $fill: the static
// checks of window_function_expression.h, window_bounds.cpp,
// document_source_set_window_fields.cpp and document_source_fill.cpp, and
// the runtime checks of the partition iterator (jstests'
// setWindowFields/parse.js lists which combination fails with which).
func TestWindowErrors(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	coll := d.Collection("werr")
	insertJSON(t, coll, `[{"_id": 1, "a": 1, "d": {"$date": "2021-01-01T00:00:00Z"}, "s": "x", "arr": [1, 2]},
	                     {"_id": 2, "a": 2, "d": {"$date": "2021-01-02T00:00:00Z"}, "s": "y", "arr": [3]}]`)
	for _, tc := range []struct {
		name, pipeline string
		code           int32
		msg            string
	}{
		{"documents window needs sortBy", `[{"$setWindowFields": {"output": {"x": {"$sum": "$a", "window": {"documents": [-1, 1]}}}}}]`, 5339901, "Document-based bounds require a sortBy"},
		{"range window needs sortBy", `[{"$setWindowFields": {"output": {"x": {"$sum": "$a", "window": {"range": [-1, 1]}}}}}]`, 5339902, "Range-based bounds require sortBy a single field"},
		{"range window needs one sortBy field", `[{"$setWindowFields": {"sortBy": {"a": 1, "_id": 1}, "output": {"x": {"$sum": "$a", "window": {"range": [-1, 1]}}}}}]`, 5339902, ""},
		{"lower bound above upper", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$sum": "$a", "window": {"documents": [2, 1]}}}}}]`, 5339900, "Lower bound must not exceed upper bound: [2, 1]"},
		{"window not an object", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$first": "$a", "window": [0, 1]}}}}]`, 9, "'window' field must be an object"},
		{"bad bound string", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$sum": "$a", "window": {"documents": ["foo", 1]}}}}}]`, 9, "Window bounds must be 'unbounded', 'current', or a number."},
		{"fractional documents bound", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$sum": "$a", "window": {"documents": [-1.5, 1]}}}}}]`, 9, "Numeric document-based bounds must be an integer"},
		{"documents and range", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$sum": "$a", "window": {"documents": [-1, 1], "range": [-1, 1]}}}}}]`, 9, ""},
		{"unit without range", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$sum": "$a", "window": {"documents": [-1, 1], "unit": "day"}}}}}]`, 9, "Window bounds can only specify 'unit' with range-based bounds."},
		{"unknown window function", `[{"$setWindowFields": {"output": {"x": {"$summ": "$a"}}}}]`, 9, "Unrecognized window function, $summ"},
		{"no window function", `[{"$setWindowFields": {"output": {"x": {"foo": "$a"}}}}]`, 9, "Expected a $-prefixed window function, foo"},
		{"unknown argument", `[{"$setWindowFields": {"output": {"x": {"$sum": "$a", "foo": 1}}}}]`, 9, "Window function found an unknown argument: foo"},
		{"conflicting output paths", `[{"$setWindowFields": {"output": {"x": {"$sum": "$a"}, "x.y": {"$sum": "$a"}}}}]`, 6307900, "$setWindowFields 'output' specification contains two conflicting paths"},
		{"$rank with a window", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$rank": {}, "window": {"documents": [-1, 1]}}}}}]`, 5371601, "Rank style window functions take no other arguments"},
		{"$rank with an argument", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$rank": "$a"}}}}]`, 5371603, "$rank must be specified with '{}' as the value"},
		{"$denseRank without sortBy", `[{"$setWindowFields": {"output": {"x": {"$denseRank": {}}}}}]`, 5371602, "$denseRank must be specified with a top level sortBy expression with exactly one element"},
		{"$documentNumber with two sort fields", `[{"$setWindowFields": {"sortBy": {"a": 1, "_id": 1}, "output": {"x": {"$documentNumber": {}}}}}]`, 5371602, ""},
		{"$shift without sortBy", `[{"$setWindowFields": {"output": {"x": {"$shift": {"output": "$a", "by": 1}}}}}]`, 9, ""},
		{"$shift with a window", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$shift": {"output": "$a", "by": 1}, "window": {"documents": [0, 1]}}}}}]`, 9, ""},
		{"$shift by a fraction", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$shift": {"output": "$a", "by": 1.5}}}}}]`, 9, ""},
		{"$shift default not constant", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$shift": {"output": "$a", "by": 1, "default": "$a"}}}}}]`, 9, ""},
		{"$expMovingAvg without sortBy", `[{"$setWindowFields": {"output": {"x": {"$expMovingAvg": {"input": "$a", "N": 2}}}}}]`, 9, "$expMovingAvg requires an explicit 'sortBy'"},
		{"$expMovingAvg alpha 1", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$expMovingAvg": {"input": "$a", "alpha": 1}}}}}]`, 9, ""},
		{"$expMovingAvg N 0", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$expMovingAvg": {"input": "$a", "N": 0}}}}}]`, 9, "'N' must be greater than zero. Got 0"},
		{"$derivative without window", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$derivative": {"input": "$a"}}}}}]`, 9, "$derivative requires explicit window bounds"},
		{"$derivative unit month", `[{"$setWindowFields": {"sortBy": {"d": 1}, "output": {"x": {"$derivative": {"input": "$a", "unit": "month"}, "window": {"documents": [-1, 0]}}}}}]`, 5490710, "unit must be 'week' or smaller"},
		{"$derivative on a date without unit", `[{"$setWindowFields": {"sortBy": {"d": 1}, "output": {"x": {"$derivative": {"input": "$a"}, "window": {"documents": [-1, 0]}}}}}]`, 5624901, ""},
		{"$derivative unit on numbers", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$derivative": {"input": "$a", "unit": "day"}, "window": {"documents": [-1, 0]}}}}}]`, 5624900, ""},
		{"$integral on a date without unit", `[{"$setWindowFields": {"sortBy": {"d": 1}, "output": {"x": {"$integral": {"input": "$a"}}}}}]`, 5423902, ""},
		{"$integral unit on numbers", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$integral": {"input": "$a", "unit": "day"}}}}}]`, 5423901, ""},
		{"$linearFill with two sort fields", `[{"$setWindowFields": {"sortBy": {"a": 1, "_id": 1}, "output": {"x": {"$linearFill": "$a"}}}}]`, 605001, ""},
		{"$linearFill with a repeated sortBy value", `[{"$set": {"z": 1}}, {"$setWindowFields": {"sortBy": {"z": 1}, "output": {"x": {"$linearFill": "$a"}}}}]`, 6050106, "There can be no repeated values in the sort field in the same partition"},
		{"$linearFill over a string sortBy", `[{"$setWindowFields": {"sortBy": {"s": 1}, "output": {"x": {"$linearFill": "$a"}}}}]`, 14, "Value of the sortBy field must be numeric or a date, but found string"},
		{"$linearFill of a string", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$linearFill": "$s"}}}}]`, 14, "Value to be filled must be numeric or nullish, but found string"},
		{"$locf with a window", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$locf": "$a", "window": {"documents": [-1, 0]}}}}}]`, 9, "'window' field is not allowed in $locf"},
		{"partitionBy a constant array", `[{"$setWindowFields": {"partitionBy": {"$literal": [1]}, "output": {"x": {"$sum": "$a"}}}}]`, 14, "An expression used to partition cannot evaluate to value of type array"},
		{"partitionBy an array field", `[{"$setWindowFields": {"partitionBy": "$arr", "output": {"x": {"$sum": "$a"}}}}]`, 14, "An expression used to partition cannot evaluate to value of type array"},
		{"range over dates without unit", `[{"$setWindowFields": {"sortBy": {"d": 1}, "output": {"x": {"$sum": "$a", "window": {"range": [-1, 0]}}}}}]`, 5429413, "Invalid range: For windows that involve date or time ranges, a unit must be provided."},
		{"range with unit over numbers", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"x": {"$sum": "$a", "window": {"range": [-1, 0], "unit": "day"}}}}}]`, 5429513, "Invalid range: Expected the sortBy field to be a Date, but it was int"},
		{"range over strings", `[{"$setWindowFields": {"sortBy": {"s": 1}, "output": {"x": {"$sum": "$a", "window": {"range": [-1, 0]}}}}}]`, 5429414, "Invalid range: Expected the sortBy field to be a number, but it was string"},
		{"range over a descending sortBy (refused)", `[{"$setWindowFields": {"sortBy": {"a": -1}, "output": {"x": {"$sum": "$a", "window": {"range": [-1, 0]}}}}}]`, 238, "descending sortBy"},
		{"no output", `[{"$setWindowFields": {"sortBy": {"a": 1}}}]`, 40414, ""},
		{"unknown stage field", `[{"$setWindowFields": {"foo": 1, "output": {}}}]`, 40415, ""},
		{"$fill empty output", `[{"$fill": {"output": {}}}]`, 6050203, "The output field in '$fill' must contain an object with at least one element"},
		{"$fill output not an object", `[{"$fill": {"output": {"a": 1}}}]`, 6050200, ""},
		{"$fill method and value", `[{"$fill": {"sortBy": {"a": 1}, "output": {"a": {"method": "locf", "value": 1}}}}]`, 6050201, ""},
		{"$fill bad method", `[{"$fill": {"sortBy": {"a": 1}, "output": {"a": {"method": "spline"}}}}]`, 6050202, "Method must be either locf or linear"},
		{"$fill two partitions", `[{"$fill": {"sortBy": {"a": 1}, "partitionBy": "$s", "partitionByFields": ["s"], "output": {"a": {"method": "locf"}}}}]`, 6050204, ""},
		{"$fill linear without sortBy", `[{"$fill": {"output": {"a": {"method": "linear"}}}}]`, 605001, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := aggregateJSON(t, coll, tc.pipeline)
			ce := testenv.WantCmdError(t, err, tc.code, "")
			if tc.msg != "" && !strings.Contains(ce.Message, tc.msg) {
				t.Fatalf("message %q, want it to contain %q", ce.Message, tc.msg)
			}
		})
	}
}

// TestWindowMemoryLimit checks internalDocumentSourceSetWindowFieldsMaxMemoryBytes:
// a sliding window over many documents stays under a small limit, an
// unbounded window past it fails with 5414201 without allowDiskUse and
// spills its partition with it (same results).
func TestWindowMemoryLimit(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	coll := d.Collection("wmem")
	const n = 20000
	testenv.InsertBatches(t, coll, n, func(i int) any {
		return bson.D{{Key: "_id", Value: i}, {Key: "k", Value: i % 2}, {Key: "v", Value: i}, {Key: "pad", Value: strings.Repeat("x", 100)}}
	})
	testenv.SetParameter(t, d, "internalDocumentSourceSetWindowFieldsMaxMemoryBytes", 256<<10)
	_ = db
	sliding := `[{"$setWindowFields": {"partitionBy": "$k", "sortBy": {"_id": 1}, "output": {"m": {"$avg": "$v", "window": {"documents": [-10, 0]}}}}},
		{"$match": {"_id": {"$in": [0, 1, 30, 19999]}}}, {"$project": {"m": 1}}]`
	got, err := aggregateJSON(t, coll, sliding)
	if err != nil {
		t.Fatalf("sliding window under a 256 KiB limit: %v", err)
	}
	// k=0: _id 30 averages 10..30 step 2 = 20; k=1: _id 19999 averages 19979..19999 = 19989.
	wantDocs(t, got, `[{"_id": 0, "m": 0}, {"_id": 30, "m": 20}, {"_id": 1, "m": 1}, {"_id": 19999, "m": 19989}]`)

	// The stage's own high-water mark (explain's maxTotalMemoryUsageBytes)
	// is that of an 11-document window, not of the 10,000-document
	// partitions.
	res0 := testenv.Explain(t, d, bson.D{{Key: "aggregate", Value: "wmem"}, {Key: "pipeline", Value: extJSON(t, sliding)}, {Key: "cursor", Value: bson.D{}}}, "executionStats")
	var peak int64 = -1
	stages, _ := res0.Lookup("stages").Array().Values()
	for _, st := range stages {
		if v, err := st.Document().LookupErr("maxTotalMemoryUsageBytes"); err == nil {
			peak = v.AsInt64()
		}
	}
	if peak <= 0 || peak > 16<<10 {
		t.Fatalf("sliding window held %d bytes at most, want (0, 16 KiB]", peak)
	}

	whole := `[{"$setWindowFields": {"partitionBy": "$k", "sortBy": {"_id": 1}, "output": {"t": {"$sum": "$v"}}}},
		{"$match": {"_id": {"$in": [0, 1]}}}, {"$project": {"t": 1}}]`
	p := extJSON(t, whole)
	_, err = coll.Aggregate(testenv.Ctx(t), p, options.Aggregate().SetAllowDiskUse(false))
	ce := testenv.WantCmdError(t, err, 5414201, "Location5414201")
	if !strings.Contains(ce.Message, "Exceeded memory limit in DocumentSourceSetWindowFields") {
		t.Fatalf("message %q", ce.Message)
	}
	cur, err := coll.Aggregate(testenv.Ctx(t), p, options.Aggregate().SetAllowDiskUse(true))
	if err != nil {
		t.Fatalf("allowDiskUse: %v", err)
	}
	var res []bson.D
	if err := cur.All(testenv.Ctx(t), &res); err != nil {
		t.Fatal(err)
	}
	// Sum of even numbers below 20000 and of odd ones.
	wantDocs(t, res, `[{"_id": 0, "t": 99990000}, {"_id": 1, "t": 100000000}]`)
	res1 := testenv.Explain(t, d, bson.D{{Key: "aggregate", Value: "wmem"}, {Key: "pipeline", Value: p}, {Key: "allowDiskUse", Value: true}, {Key: "cursor", Value: bson.D{}}}, "executionStats")
	used := false
	stages, _ = res1.Lookup("stages").Array().Values()
	for _, st := range stages {
		if v, err := st.Document().LookupErr("$_internalSetWindowFields"); err == nil && v.Type != 0 {
			used = st.Document().Lookup("usedDisk").Boolean()
		}
	}
	if !used {
		t.Fatalf("explain does not report usedDisk: %v", res1)
	}

	// A window reaching 3,000 documents ahead holds them all: past the
	// limit they spill, and the window functions read them back from disk.
	ahead := extJSON(t, `[{"$setWindowFields": {"partitionBy": "$k", "sortBy": {"_id": 1}, "output": {"t": {"$sum": "$v", "window": {"documents": [0, 3000]}}}}},
		{"$match": {"_id": {"$in": [0, 1, 19000]}}}, {"$project": {"t": 1}}]`)
	_, err = coll.Aggregate(testenv.Ctx(t), ahead, options.Aggregate().SetAllowDiskUse(false))
	testenv.WantCmdError(t, err, 5414201, "")
	cur, err = coll.Aggregate(testenv.Ctx(t), ahead, options.Aggregate().SetAllowDiskUse(true))
	if err != nil {
		t.Fatalf("allowDiskUse: %v", err)
	}
	res = nil
	if err := cur.All(testenv.Ctx(t), &res); err != nil {
		t.Fatal(err)
	}
	// k=0 from _id 0: 0+2+...+6000 = 9003000; k=1 from 1: 1+3+...+6001 =
	// 9006001; _id 19000: 19000+19002+...+19998 (500 terms) = 9749500.
	wantDocs(t, res, `[{"_id": 0, "t": 9003000}, {"_id": 19000, "t": 9749500}, {"_id": 1, "t": 9006001}]`)
}
