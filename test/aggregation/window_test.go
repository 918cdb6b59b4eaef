package aggregation_test

import (
	"testing"

	"github.com/lodedb/lode/test/testenv"
)

// cakeSales is the collection of the $setWindowFields reference page's
// examples.
const cakeSales = `[
 {"_id": 0, "type": "chocolate", "orderDate": {"$date": "2020-05-18T14:10:30Z"}, "state": "CA", "price": 13, "quantity": 120},
 {"_id": 1, "type": "chocolate", "orderDate": {"$date": "2021-03-20T11:30:05Z"}, "state": "WA", "price": 14, "quantity": 140},
 {"_id": 2, "type": "vanilla", "orderDate": {"$date": "2021-01-11T06:31:15Z"}, "state": "CA", "price": 12, "quantity": 145},
 {"_id": 3, "type": "vanilla", "orderDate": {"$date": "2020-02-08T13:13:23Z"}, "state": "WA", "price": 13, "quantity": 104},
 {"_id": 4, "type": "strawberry", "orderDate": {"$date": "2019-05-18T16:09:01Z"}, "state": "CA", "price": 41, "quantity": 162},
 {"_id": 5, "type": "strawberry", "orderDate": {"$date": "2019-01-08T06:12:03Z"}, "state": "WA", "price": 43, "quantity": 134}
]`

type windowCase struct {
	name, pipeline, want string
}

// TestSetWindowFieldsCakeSales runs the examples of the $setWindowFields
// page and of the window operators' pages that use cakeSales, with their
// documented results (projected to _id and the computed field).
func TestSetWindowFieldsCakeSales(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	coll := d.Collection("cakeSales")
	insertJSON(t, coll, cakeSales)
	for _, tc := range []windowCase{
		{"cumulative quantity per state", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
			"output": {"c": {"$sum": "$quantity", "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"c": 1}}]`,
			`[{"_id": 4, "c": 162}, {"_id": 0, "c": 282}, {"_id": 2, "c": 427}, {"_id": 5, "c": 134}, {"_id": 3, "c": 238}, {"_id": 1, "c": 378}]`},
		{"cumulative quantity per year", `[{"$setWindowFields": {"partitionBy": {"$year": "$orderDate"}, "sortBy": {"orderDate": 1},
			"output": {"c": {"$sum": "$quantity", "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"c": 1}}]`,
			`[{"_id": 5, "c": 134}, {"_id": 4, "c": 296}, {"_id": 3, "c": 104}, {"_id": 0, "c": 224}, {"_id": 2, "c": 145}, {"_id": 1, "c": 285}]`},
		{"moving average per year", `[{"$setWindowFields": {"partitionBy": {"$year": "$orderDate"}, "sortBy": {"orderDate": 1},
			"output": {"a": {"$avg": "$quantity", "window": {"documents": [-1, 0]}}}}}, {"$project": {"a": 1}}]`,
			`[{"_id": 5, "a": 134}, {"_id": 4, "a": 148}, {"_id": 3, "a": 104}, {"_id": 0, "a": 112}, {"_id": 2, "a": 145}, {"_id": 1, "a": 142.5}]`},
		{"cumulative and maximum per year", `[{"$setWindowFields": {"partitionBy": {"$year": "$orderDate"}, "sortBy": {"orderDate": 1},
			"output": {"c": {"$sum": "$quantity", "window": {"documents": ["unbounded", "current"]}},
			           "m": {"$max": "$quantity", "window": {"documents": ["unbounded", "unbounded"]}}}}}, {"$project": {"c": 1, "m": 1}}]`,
			`[{"_id": 5, "c": 134, "m": 162}, {"_id": 4, "c": 296, "m": 162}, {"_id": 3, "c": 104, "m": 120}, {"_id": 0, "c": 224, "m": 120}, {"_id": 2, "c": 145, "m": 145}, {"_id": 1, "c": 285, "m": 145}]`},
		{"range window", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"price": 1},
			"output": {"q": {"$sum": "$quantity", "window": {"range": [-10, 10]}}}}}, {"$project": {"q": 1}}]`,
			`[{"_id": 2, "q": 265}, {"_id": 0, "q": 265}, {"_id": 4, "q": 162}, {"_id": 3, "q": 244}, {"_id": 1, "q": 244}, {"_id": 5, "q": 134}]`},
		{"time range window", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
			"output": {"r": {"$push": "$orderDate", "window": {"range": ["unbounded", 10], "unit": "month"}}}}}, {"$project": {"r": 1}}]`,
			`[{"_id": 4, "r": [{"$date": "2019-05-18T16:09:01Z"}]},
			  {"_id": 0, "r": [{"$date": "2019-05-18T16:09:01Z"}, {"$date": "2020-05-18T14:10:30Z"}, {"$date": "2021-01-11T06:31:15Z"}]},
			  {"_id": 2, "r": [{"$date": "2019-05-18T16:09:01Z"}, {"$date": "2020-05-18T14:10:30Z"}, {"$date": "2021-01-11T06:31:15Z"}]},
			  {"_id": 5, "r": [{"$date": "2019-01-08T06:12:03Z"}]},
			  {"_id": 3, "r": [{"$date": "2019-01-08T06:12:03Z"}, {"$date": "2020-02-08T13:13:23Z"}]},
			  {"_id": 1, "r": [{"$date": "2019-01-08T06:12:03Z"}, {"$date": "2020-02-08T13:13:23Z"}, {"$date": "2021-03-20T11:30:05Z"}]}]`},
		{"time range window with a negative upper bound", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
			"output": {"r": {"$push": "$orderDate", "window": {"range": ["unbounded", -10], "unit": "month"}}}}}, {"$project": {"r": 1}}]`,
			`[{"_id": 4, "r": []}, {"_id": 0, "r": [{"$date": "2019-05-18T16:09:01Z"}]}, {"_id": 2, "r": [{"$date": "2019-05-18T16:09:01Z"}]},
			  {"_id": 5, "r": []}, {"_id": 3, "r": [{"$date": "2019-01-08T06:12:03Z"}]}, {"_id": 1, "r": [{"$date": "2019-01-08T06:12:03Z"}, {"$date": "2020-02-08T13:13:23Z"}]}]`},
		{"$rank", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"quantity": -1},
			"output": {"r": {"$rank": {}}}}}, {"$project": {"r": 1}}]`,
			`[{"_id": 4, "r": 1}, {"_id": 2, "r": 2}, {"_id": 0, "r": 3}, {"_id": 1, "r": 1}, {"_id": 5, "r": 2}, {"_id": 3, "r": 3}]`},
		{"$shift by 1", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"quantity": -1},
			"output": {"s": {"$shift": {"output": "$quantity", "by": 1, "default": "Not available"}}}}}, {"$project": {"s": 1}}]`,
			`[{"_id": 4, "s": 145}, {"_id": 2, "s": 120}, {"_id": 0, "s": "Not available"}, {"_id": 1, "s": 134}, {"_id": 5, "s": 104}, {"_id": 3, "s": "Not available"}]`},
		{"$shift by -1", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"quantity": -1},
			"output": {"s": {"$shift": {"output": "$quantity", "by": -1, "default": "Not available"}}}}}, {"$project": {"s": 1}}]`,
			`[{"_id": 4, "s": "Not available"}, {"_id": 2, "s": 162}, {"_id": 0, "s": 145}, {"_id": 1, "s": "Not available"}, {"_id": 5, "s": 140}, {"_id": 3, "s": 134}]`},
		{"$shift default for a missing output, and a constant expression as default", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"quantity": -1},
			"output": {"s": {"$shift": {"output": "$nothing", "by": 1, "default": "c"}}, "t": {"$shift": {"output": "$quantity", "by": 1, "default": {"$add": [1, 1]}}}}}}, {"$project": {"s": 1, "t": 1}}]`,
			`[{"_id": 4, "s": "c", "t": 145}, {"_id": 2, "s": "c", "t": 120}, {"_id": 0, "s": "c", "t": 2}, {"_id": 1, "s": "c", "t": 134}, {"_id": 5, "s": "c", "t": 104}, {"_id": 3, "s": "c", "t": 2}]`},
		{"$addToSet", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
			"output": {"t": {"$addToSet": "$type", "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"t": 1}}]`,
			`[{"_id": 4, "t": ["strawberry"]}, {"_id": 0, "t": ["chocolate", "strawberry"]}, {"_id": 2, "t": ["chocolate", "strawberry", "vanilla"]},
			  {"_id": 5, "t": ["strawberry"]}, {"_id": 3, "t": ["strawberry", "vanilla"]}, {"_id": 1, "t": ["chocolate", "strawberry", "vanilla"]}]`},
		{"$push", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
			"output": {"t": {"$push": "$type", "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"t": 1}}]`,
			`[{"_id": 4, "t": ["strawberry"]}, {"_id": 0, "t": ["strawberry", "chocolate"]}, {"_id": 2, "t": ["strawberry", "chocolate", "vanilla"]},
			  {"_id": 5, "t": ["strawberry"]}, {"_id": 3, "t": ["strawberry", "vanilla"]}, {"_id": 1, "t": ["strawberry", "vanilla", "chocolate"]}]`},
		{"$count", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
			"output": {"n": {"$count": {}, "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"n": 1}}]`,
			`[{"_id": 4, "n": 1}, {"_id": 0, "n": 2}, {"_id": 2, "n": 3}, {"_id": 5, "n": 1}, {"_id": 3, "n": 2}, {"_id": 1, "n": 3}]`},
		{"$first and $last", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
			"output": {"f": {"$first": "$type", "window": {"documents": ["unbounded", "current"]}},
			           "l": {"$last": "$type", "window": {"documents": ["current", "unbounded"]}}}}}, {"$project": {"f": 1, "l": 1}}]`,
			`[{"_id": 4, "f": "strawberry", "l": "vanilla"}, {"_id": 0, "f": "strawberry", "l": "vanilla"}, {"_id": 2, "f": "strawberry", "l": "vanilla"},
			  {"_id": 5, "f": "strawberry", "l": "chocolate"}, {"_id": 3, "f": "strawberry", "l": "chocolate"}, {"_id": 1, "f": "strawberry", "l": "chocolate"}]`},
		{"$min over a sliding window", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
			"output": {"m": {"$min": "$quantity", "window": {"documents": [-1, 0]}}}}}, {"$project": {"m": 1}}]`,
			`[{"_id": 4, "m": 162}, {"_id": 0, "m": 120}, {"_id": 2, "m": 120}, {"_id": 5, "m": 134}, {"_id": 3, "m": 104}, {"_id": 1, "m": 104}]`},
		{"$covariancePop", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
			"output": {"c": {"$covariancePop": [{"$year": "$orderDate"}, "$quantity"], "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"c": 1}}]`,
			`[{"_id": 4, "c": 0}, {"_id": 0, "c": -10.5}, {"_id": 2, "c": -5.666666666666671}, {"_id": 5, "c": 0}, {"_id": 3, "c": -7.5}, {"_id": 1, "c": 2}]`},
		{"$covarianceSamp", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
			"output": {"c": {"$covarianceSamp": [{"$year": "$orderDate"}, "$quantity"], "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"c": 1}}]`,
			`[{"_id": 4, "c": null}, {"_id": 0, "c": -21}, {"_id": 2, "c": -8.500000000000007}, {"_id": 5, "c": null}, {"_id": 3, "c": -15}, {"_id": 1, "c": 3}]`},
		{"$stdDevPop", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
			"output": {"s": {"$stdDevPop": "$quantity", "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"s": 1}}]`,
			`[{"_id": 4, "s": 0}, {"_id": 0, "s": 21}, {"_id": 2, "s": 17.249798710580816}, {"_id": 5, "s": 0}, {"_id": 3, "s": 15}, {"_id": 1, "s": 15.748015748023622}]`},
		{"$stdDevSamp", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
			"output": {"s": {"$stdDevSamp": "$quantity", "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"s": 1}}]`,
			`[{"_id": 4, "s": null}, {"_id": 0, "s": 29.698484809834994}, {"_id": 2, "s": 21.126602503321099}, {"_id": 5, "s": null}, {"_id": 3, "s": 21.213203435596427}, {"_id": 1, "s": 19.28730152198591}]`},
		{"dotted output path", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
			"output": {"stats.total": {"$sum": "$quantity"}}}}, {"$project": {"stats": 1}}]`,
			`[{"_id": 4, "stats": {"total": 427}}, {"_id": 0, "stats": {"total": 427}}, {"_id": 2, "stats": {"total": 427}},
			  {"_id": 5, "stats": {"total": 378}}, {"_id": 3, "stats": {"total": 378}}, {"_id": 1, "stats": {"total": 378}}]`},
		{"in $facet", `[{"$facet": {"w": [{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
			"output": {"c": {"$sum": "$quantity", "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"c": 1}}]}}]`,
			`[{"w": [{"_id": 4, "c": 162}, {"_id": 0, "c": 282}, {"_id": 2, "c": 427}, {"_id": 5, "c": 134}, {"_id": 3, "c": 238}, {"_id": 1, "c": 378}]}]`},
		{"in a $lookup sub-pipeline", `[{"$match": {"_id": 0}}, {"$lookup": {"from": "cakeSales", "let": {"s": "$state"}, "pipeline": [
			{"$match": {"$expr": {"$eq": ["$state", "$$s"]}}},
			{"$setWindowFields": {"sortBy": {"orderDate": 1}, "output": {"n": {"$documentNumber": {}}}}}, {"$project": {"n": 1}}], "as": "l"}},
			{"$project": {"l": 1}}]`,
			`[{"_id": 0, "l": [{"_id": 4, "n": 1}, {"_id": 0, "n": 2}, {"_id": 2, "n": 3}]}]`},
		{"$_internalSetWindowFields over sorted input", `[{"$sort": {"state": 1, "orderDate": 1}}, {"$_internalSetWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
			"output": {"c": {"$sum": "$quantity", "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"c": 1}}]`,
			`[{"_id": 4, "c": 162}, {"_id": 0, "c": 282}, {"_id": 2, "c": 427}, {"_id": 5, "c": 134}, {"_id": 3, "c": 238}, {"_id": 1, "c": 378}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := aggregateJSON(t, coll, tc.pipeline)
			if err != nil {
				t.Fatal(err)
			}
			wantDocs(t, got, tc.want)
		})
	}
}
