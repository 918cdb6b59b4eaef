package aggregation_test

import (
	"testing"

	"github.com/lodedb/lode/test/testenv"
)

// runWindowCases inserts docs into a fresh collection and runs each case.
func runWindowCases(t *testing.T, name, docs string, cases []windowCase) {
	t.Helper()
	_, d := testenv.Open(t)
	coll := d.Collection(name)
	insertJSON(t, coll, docs)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := aggregateJSON(t, coll, tc.pipeline)
			if err != nil {
				t.Fatal(err)
			}
			wantDocs(t, got, tc.want)
		})
	}
}

// TestWindowExpMovingAvg runs the $expMovingAvg page's examples (stock
// prices, N: 2 and alpha: 0.75).
func TestWindowExpMovingAvg(t *testing.T) {
	t.Parallel()
	runWindowCases(t, "stockPrices", `[
	 {"stock": "ABC", "date": {"$date": "2020-05-18T20:00:00Z"}, "price": 13},
	 {"stock": "ABC", "date": {"$date": "2020-05-19T20:00:00Z"}, "price": 15.4},
	 {"stock": "ABC", "date": {"$date": "2020-05-20T20:00:00Z"}, "price": 12},
	 {"stock": "ABC", "date": {"$date": "2020-05-21T20:00:00Z"}, "price": 11.7},
	 {"stock": "DEF", "date": {"$date": "2020-05-18T20:00:00Z"}, "price": 82},
	 {"stock": "DEF", "date": {"$date": "2020-05-19T20:00:00Z"}, "price": 94.3},
	 {"stock": "DEF", "date": {"$date": "2020-05-20T20:00:00Z"}, "price": 112.6},
	 {"stock": "DEF", "date": {"$date": "2020-05-21T20:00:00Z"}, "price": 97.3}]`, []windowCase{
		{"N", `[{"$setWindowFields": {"partitionBy": "$stock", "sortBy": {"date": 1},
			"output": {"e": {"$expMovingAvg": {"input": "$price", "N": 2}}}}}, {"$project": {"_id": 0, "stock": 1, "e": 1}}]`,
			`[{"stock": "ABC", "e": 13}, {"stock": "ABC", "e": 14.6}, {"stock": "ABC", "e": 12.866666666666667}, {"stock": "ABC", "e": 12.088888888888889},
			  {"stock": "DEF", "e": 82}, {"stock": "DEF", "e": 90.2}, {"stock": "DEF", "e": 105.13333333333333}, {"stock": "DEF", "e": 99.9111111111111}]`},
		{"alpha", `[{"$setWindowFields": {"partitionBy": "$stock", "sortBy": {"date": 1},
			"output": {"e": {"$expMovingAvg": {"input": "$price", "alpha": 0.75}}}}}, {"$project": {"_id": 0, "stock": 1, "e": 1}}]`,
			`[{"stock": "ABC", "e": 13}, {"stock": "ABC", "e": 14.8}, {"stock": "ABC", "e": 12.7}, {"stock": "ABC", "e": 11.95},
			  {"stock": "DEF", "e": 82}, {"stock": "DEF", "e": 91.225}, {"stock": "DEF", "e": 107.25625}, {"stock": "DEF", "e": 99.78906249999999}]`},
	})
}

// TestWindowDerivativeIntegral runs the $derivative page's example (truck
// speeds over a 30-second range window, in miles per hour) and the
// $integral page's (kilowatt-hours).
func TestWindowDerivativeIntegral(t *testing.T) {
	t.Parallel()
	runWindowCases(t, "deliveryFleet", `[
	 {"truckID": "1", "timeStamp": {"$date": "2020-05-18T14:10:30Z"}, "miles": 1295.1},
	 {"truckID": "1", "timeStamp": {"$date": "2020-05-18T14:11:00Z"}, "miles": 1295.63},
	 {"truckID": "1", "timeStamp": {"$date": "2020-05-18T14:11:30Z"}, "miles": 1296.25},
	 {"truckID": "1", "timeStamp": {"$date": "2020-05-18T14:12:00Z"}, "miles": 1298.4},
	 {"truckID": "2", "timeStamp": {"$date": "2020-05-18T14:10:30Z"}, "miles": 10234.8},
	 {"truckID": "2", "timeStamp": {"$date": "2020-05-18T14:11:00Z"}, "miles": 10235.13},
	 {"truckID": "2", "timeStamp": {"$date": "2020-05-18T14:11:30Z"}, "miles": 10235.96},
	 {"truckID": "2", "timeStamp": {"$date": "2020-05-18T14:12:00Z"}, "miles": 10236.4}]`, []windowCase{
		{"$derivative", `[{"$setWindowFields": {"partitionBy": "$truckID", "sortBy": {"timeStamp": 1},
			"output": {"truckAverageSpeed": {"$derivative": {"input": "$miles", "unit": "hour"}, "window": {"range": [-30, 0], "unit": "second"}}}}},
			{"$match": {"truckAverageSpeed": {"$gt": 50}}}, {"$project": {"_id": 0, "truckID": 1, "truckAverageSpeed": 1}}]`,
			`[{"truckID": "1", "truckAverageSpeed": 63.60000000000036}, {"truckID": "1", "truckAverageSpeed": 74.39999999999964},
			  {"truckID": "1", "truckAverageSpeed": 258.0000000000109}, {"truckID": "2", "truckAverageSpeed": 99.59999999999127},
			  {"truckID": "2", "truckAverageSpeed": 52.79999999999927}]`},
	})
	runWindowCases(t, "powerConsumption", `[
	 {"powerMeterID": "1", "timeStamp": {"$date": "2020-05-18T14:10:30Z"}, "kilowatts": 2.95},
	 {"powerMeterID": "1", "timeStamp": {"$date": "2020-05-18T14:11:00Z"}, "kilowatts": 2.7},
	 {"powerMeterID": "1", "timeStamp": {"$date": "2020-05-18T14:11:30Z"}, "kilowatts": 2.6},
	 {"powerMeterID": "1", "timeStamp": {"$date": "2020-05-18T14:12:00Z"}, "kilowatts": 2.98},
	 {"powerMeterID": "2", "timeStamp": {"$date": "2020-05-18T14:10:30Z"}, "kilowatts": 2.5},
	 {"powerMeterID": "2", "timeStamp": {"$date": "2020-05-18T14:11:00Z"}, "kilowatts": 2.25},
	 {"powerMeterID": "2", "timeStamp": {"$date": "2020-05-18T14:11:30Z"}, "kilowatts": 2.75},
	 {"powerMeterID": "2", "timeStamp": {"$date": "2020-05-18T14:12:00Z"}, "kilowatts": 2.82}]`, []windowCase{
		{"$integral", `[{"$setWindowFields": {"partitionBy": "$powerMeterID", "sortBy": {"timeStamp": 1},
			"output": {"k": {"$integral": {"input": "$kilowatts", "unit": "hour"}, "window": {"range": ["unbounded", "current"], "unit": "hour"}}}}},
			{"$project": {"_id": 0, "powerMeterID": 1, "k": 1}}]`,
			`[{"powerMeterID": "1", "k": 0}, {"powerMeterID": "1", "k": 0.0235416666666666667}, {"powerMeterID": "1", "k": 0.045625}, {"powerMeterID": "1", "k": 0.068875},
			  {"powerMeterID": "2", "k": 0}, {"powerMeterID": "2", "k": 0.019791666666666666}, {"powerMeterID": "2", "k": 0.040625}, {"powerMeterID": "2", "k": 0.06383333333333333}]`},
		{"$integral over a sliding window", `[{"$setWindowFields": {"partitionBy": "$powerMeterID", "sortBy": {"timeStamp": 1},
			"output": {"k": {"$integral": {"input": "$kilowatts", "unit": "hour"}, "window": {"documents": [-1, "current"]}}}}},
			{"$project": {"_id": 0, "powerMeterID": 1, "k": 1}}]`,
			`[{"powerMeterID": "1", "k": 0}, {"powerMeterID": "1", "k": 0.0235416666666666667}, {"powerMeterID": "1", "k": 0.022083333333333333}, {"powerMeterID": "1", "k": 0.02325},
			  {"powerMeterID": "2", "k": 0}, {"powerMeterID": "2", "k": 0.019791666666666666}, {"powerMeterID": "2", "k": 0.020833333333333333}, {"powerMeterID": "2", "k": 0.023208333333333334}]`},
	})
}

// fillStock is the $linearFill / $locf / $fill pages' stock collection.
const fillStock = `[
 {"time": {"$date": "2021-03-08T09:00:00Z"}, "price": 500},
 {"time": {"$date": "2021-03-08T10:00:00Z"}},
 {"time": {"$date": "2021-03-08T11:00:00Z"}, "price": 515},
 {"time": {"$date": "2021-03-08T12:00:00Z"}},
 {"time": {"$date": "2021-03-08T13:00:00Z"}},
 {"time": {"$date": "2021-03-08T14:00:00Z"}, "price": 485}]`

// TestWindowFillFunctions runs the $locf and $linearFill pages' examples
// and the $fill page's.
func TestWindowFillFunctions(t *testing.T) {
	t.Parallel()
	runWindowCases(t, "stock", fillStock, []windowCase{
		{"$locf", `[{"$setWindowFields": {"sortBy": {"time": 1}, "output": {"price": {"$locf": "$price"}}}}, {"$project": {"_id": 0, "price": 1}}]`,
			`[{"price": 500}, {"price": 500}, {"price": 515}, {"price": 515}, {"price": 515}, {"price": 485}]`},
		{"$linearFill", `[{"$setWindowFields": {"sortBy": {"time": 1}, "output": {"price": {"$linearFill": "$price"}}}}, {"$project": {"_id": 0, "price": 1}}]`,
			`[{"price": 500}, {"price": 507.5}, {"price": 515}, {"price": 505}, {"price": 495}, {"price": 485}]`},
		{"$linearFill and $locf together", `[{"$setWindowFields": {"sortBy": {"time": 1},
			"output": {"linearFillPrice": {"$linearFill": "$price"}, "locfPrice": {"$locf": "$price"}}}}, {"$project": {"_id": 0, "linearFillPrice": 1, "locfPrice": 1}}]`,
			`[{"linearFillPrice": 500, "locfPrice": 500}, {"linearFillPrice": 507.5, "locfPrice": 500}, {"linearFillPrice": 515, "locfPrice": 515},
			  {"linearFillPrice": 505, "locfPrice": 515}, {"linearFillPrice": 495, "locfPrice": 515}, {"linearFillPrice": 485, "locfPrice": 485}]`},
		{"$fill linear", `[{"$fill": {"sortBy": {"time": 1}, "output": {"price": {"method": "linear"}}}}, {"$project": {"_id": 0, "price": 1}}]`,
			`[{"price": 500}, {"price": 507.5}, {"price": 515}, {"price": 505}, {"price": 495}, {"price": 485}]`},
		{"$fill locf", `[{"$fill": {"sortBy": {"time": 1}, "output": {"price": {"method": "locf"}}}}, {"$project": {"_id": 0, "price": 1}}]`,
			`[{"price": 500}, {"price": 500}, {"price": 515}, {"price": 515}, {"price": 515}, {"price": 485}]`},
	})
	runWindowCases(t, "dailySales", `[
	 {"date": {"$date": "2022-02-02T00:00:00Z"}, "bootsSold": 10, "sandalsSold": 20, "sneakersSold": 12},
	 {"date": {"$date": "2022-02-03T00:00:00Z"}, "bootsSold": 7, "sneakersSold": 18},
	 {"date": {"$date": "2022-02-04T00:00:00Z"}, "sneakersSold": 5}]`, []windowCase{
		{"$fill value", `[{"$fill": {"output": {"bootsSold": {"value": 0}, "sandalsSold": {"value": 0}, "sneakersSold": {"value": 0}}}}, {"$project": {"_id": 0}}]`,
			`[{"date": {"$date": "2022-02-02T00:00:00Z"}, "bootsSold": 10, "sandalsSold": 20, "sneakersSold": 12},
			  {"date": {"$date": "2022-02-03T00:00:00Z"}, "bootsSold": 7, "sneakersSold": 18, "sandalsSold": 0},
			  {"date": {"$date": "2022-02-04T00:00:00Z"}, "sneakersSold": 5, "bootsSold": 0, "sandalsSold": 0}]`},
	})
	runWindowCases(t, "restaurantReviewsMultiple", `[
	 {"date": {"$date": "2021-03-08T00:00:00Z"}, "restaurant": "Joe's Pizza", "score": 90},
	 {"date": {"$date": "2021-03-08T00:00:00Z"}, "restaurant": "Sally's Deli", "score": 75},
	 {"date": {"$date": "2021-03-09T00:00:00Z"}, "restaurant": "Joe's Pizza", "score": 92},
	 {"date": {"$date": "2021-03-09T00:00:00Z"}, "restaurant": "Sally's Deli"},
	 {"date": {"$date": "2021-03-10T00:00:00Z"}, "restaurant": "Joe's Pizza"},
	 {"date": {"$date": "2021-03-10T00:00:00Z"}, "restaurant": "Sally's Deli", "score": 68},
	 {"date": {"$date": "2021-03-11T00:00:00Z"}, "restaurant": "Joe's Pizza", "score": 93},
	 {"date": {"$date": "2021-03-11T00:00:00Z"}, "restaurant": "Sally's Deli"}]`, []windowCase{
		{"$fill locf partitionByFields", `[{"$fill": {"sortBy": {"date": 1}, "partitionByFields": ["restaurant"], "output": {"score": {"method": "locf"}}}},
			{"$project": {"_id": 0, "restaurant": 1, "score": 1}}]`,
			`[{"restaurant": "Joe's Pizza", "score": 90}, {"restaurant": "Joe's Pizza", "score": 92}, {"restaurant": "Joe's Pizza", "score": 92}, {"restaurant": "Joe's Pizza", "score": 93},
			  {"restaurant": "Sally's Deli", "score": 75}, {"restaurant": "Sally's Deli", "score": 75}, {"restaurant": "Sally's Deli", "score": 68}, {"restaurant": "Sally's Deli", "score": 68}]`},
	})
}

// TestWindowRankFamily checks $rank, $denseRank and $documentNumber with
// ties, as their pages define them: ties share a rank, $rank then skips,
// $denseRank does not, $documentNumber numbers every document.
func TestWindowRankFamily(t *testing.T) {
	t.Parallel()
	runWindowCases(t, "scores", `[
	 {"_id": 1, "g": "a", "s": 10}, {"_id": 2, "g": "a", "s": 20}, {"_id": 3, "g": "a", "s": 20},
	 {"_id": 4, "g": "a", "s": 30}, {"_id": 5, "g": "b", "s": 5}]`, []windowCase{
		{"ranks", `[{"$setWindowFields": {"partitionBy": "$g", "sortBy": {"s": 1},
			"output": {"r": {"$rank": {}}, "d": {"$denseRank": {}}, "n": {"$documentNumber": {}}}}}, {"$project": {"r": 1, "d": 1, "n": 1}}, {"$sort": {"_id": 1}}]`,
			`[{"_id": 1, "r": 1, "d": 1, "n": 1}, {"_id": 2, "r": 2, "d": 2, "n": 2}, {"_id": 3, "r": 2, "d": 2, "n": 3},
			  {"_id": 4, "r": 4, "d": 3, "n": 4}, {"_id": 5, "r": 1, "d": 1, "n": 1}]`},
		{"N accumulators over a sliding window", `[{"$setWindowFields": {"partitionBy": "$g", "sortBy": {"_id": 1},
			"output": {"mx": {"$maxN": {"input": "$s", "n": 2}, "window": {"documents": [-2, 0]}},
			           "mn": {"$minN": {"input": "$s", "n": 2}, "window": {"documents": [-2, 0]}},
			           "fn": {"$firstN": {"input": "$s", "n": 2}, "window": {"documents": [-2, 0]}},
			           "ln": {"$lastN": {"input": "$s", "n": 2}, "window": {"documents": [-2, 0]}},
			           "tn": {"$topN": {"output": "$_id", "sortBy": {"s": -1}, "n": 2}, "window": {"documents": ["unbounded", "current"]}},
			           "b": {"$bottom": {"output": "$_id", "sortBy": {"s": -1}}},
			           "bn": {"$bottomN": {"output": "$_id", "sortBy": {"s": -1, "_id": 1}, "n": 2}, "window": {"documents": ["unbounded", "current"]}},
			           "t": {"$top": {"output": "$_id", "sortBy": {"s": -1, "_id": 1}}}}}},
			{"$project": {"mx": 1, "mn": 1, "fn": 1, "ln": 1, "tn": 1, "b": 1, "bn": 1, "t": 1}}]`,
			`[{"_id": 1, "mx": [10], "mn": [10], "fn": [10], "ln": [10], "tn": [1], "b": 1, "bn": [1], "t": 4},
			  {"_id": 2, "mx": [20, 10], "mn": [10, 20], "fn": [10, 20], "ln": [10, 20], "tn": [2, 1], "b": 1, "bn": [2, 1], "t": 4},
			  {"_id": 3, "mx": [20, 20], "mn": [10, 20], "fn": [10, 20], "ln": [20, 20], "tn": [2, 3], "b": 1, "bn": [3, 1], "t": 4},
			  {"_id": 4, "mx": [30, 20], "mn": [20, 20], "fn": [20, 20], "ln": [20, 30], "tn": [4, 2], "b": 1, "bn": [3, 1], "t": 4},
			  {"_id": 5, "mx": [5], "mn": [5], "fn": [5], "ln": [5], "tn": [5], "b": 5, "bn": [5], "t": 5}]`},
		{"$sum over documents [-1, 1] and range [-10, current]", `[{"$setWindowFields": {"partitionBy": "$g", "sortBy": {"s": 1},
			"output": {"c": {"$sum": "$s", "window": {"documents": [-1, 1]}}, "r": {"$sum": "$s", "window": {"range": [-10, "current"]}}}}},
			{"$project": {"c": 1, "r": 1}}, {"$sort": {"_id": 1}}]`,
			`[{"_id": 1, "c": 30, "r": 10}, {"_id": 2, "c": 50, "r": 30}, {"_id": 3, "c": 70, "r": 50}, {"_id": 4, "c": 50, "r": 70}, {"_id": 5, "c": 5, "r": 5}]`},
		// In a range window "current" is the current document's position:
		// _id 2 does not see its tie _id 3, which comes after it; a
		// numeric 0 includes ties.
		{"range [-10, 0] includes ties", `[{"$setWindowFields": {"partitionBy": "$g", "sortBy": {"s": 1},
			"output": {"r": {"$sum": "$s", "window": {"range": [-10, 0]}}}}}, {"$project": {"r": 1}}, {"$sort": {"_id": 1}}]`,
			`[{"_id": 1, "r": 10}, {"_id": 2, "r": 50}, {"_id": 3, "r": 50}, {"_id": 4, "r": 70}, {"_id": 5, "r": 5}]`},
	})
}

// TestWindowEmptyWindows checks the values over an empty window or over a
// missing field (mongod's jstests empty_window.js and first.js): $sum is
// 0, $avg, $min, $max, $stdDevPop and $first are null.
func TestWindowEmptyWindows(t *testing.T) {
	t.Parallel()
	runWindowCases(t, "empty", `[{"_id": 1, "x": 1, "y": 5}, {"_id": 2, "x": 2, "y": 4}]`, []windowCase{
		{"missing field", `[{"$setWindowFields": {"sortBy": {"x": 1}, "output": {
			"sd": {"$stdDevPop": "$no", "window": {"documents": ["unbounded", "current"]}},
			"s": {"$sum": "$no", "window": {"documents": ["unbounded", "current"]}},
			"a": {"$avg": "$no", "window": {"documents": ["unbounded", "current"]}},
			"mn": {"$min": "$no", "window": {"documents": ["unbounded", "current"]}},
			"mx": {"$max": "$no", "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"sd": 1, "s": 1, "a": 1, "mn": 1, "mx": 1}}]`,
			`[{"_id": 1, "sd": null, "s": 0, "a": null, "mn": null, "mx": null}, {"_id": 2, "sd": null, "s": 0, "a": null, "mn": null, "mx": null}]`},
		{"no document in the window", `[{"$setWindowFields": {"sortBy": {"x": 1}, "partitionBy": "$x", "output": {
			"f": {"$first": "$y", "window": {"documents": [-1, -1]}},
			"s": {"$sum": "$y", "window": {"documents": ["unbounded", -1]}},
			"a": {"$avg": "$y", "window": {"documents": ["unbounded", -1]}},
			"p": {"$push": "$y", "window": {"documents": ["unbounded", -1]}}}}}, {"$project": {"f": 1, "s": 1, "a": 1, "p": 1}}]`,
			`[{"_id": 1, "f": null, "s": 0, "a": null, "p": []}, {"_id": 2, "f": null, "s": 0, "a": null, "p": []}]`},
	})
}

// TestWindowPartitions follows mongod's jstests partition.js: null and
// missing keys are one partition, an object key keeps its missing fields
// apart from null ones, and a constant partitionBy (even a folded
// expression) is no partitioning.
func TestWindowPartitions(t *testing.T) {
	t.Parallel()
	runWindowCases(t, "parts", `[{"_id": 1, "int_field": 0}, {"_id": 2, "int_field": null, "other_field": null}, {"_id": 3, "other_field": 0},
		{"_id": 4, "int_field": null}, {"_id": 5, "other_field": null}, {"_id": 6, "int_field": null, "other_field": null}]`, []windowCase{
		{"null and missing", `[{"$setWindowFields": {"partitionBy": "$int_field", "output": {"count": {"$sum": 1}}}}, {"$project": {"count": 1}}, {"$sort": {"_id": 1}}]`,
			`[{"_id": 1, "count": 1}, {"_id": 2, "count": 5}, {"_id": 3, "count": 5}, {"_id": 4, "count": 5}, {"_id": 5, "count": 5}, {"_id": 6, "count": 5}]`},
		{"compound key", `[{"$setWindowFields": {"partitionBy": {"int_field": "$int_field", "other_field": "$other_field"}, "output": {"count": {"$sum": 1}}}},
			{"$project": {"count": 1}}, {"$sort": {"_id": 1}}]`,
			`[{"_id": 1, "count": 1}, {"_id": 2, "count": 2}, {"_id": 3, "count": 1}, {"_id": 4, "count": 1}, {"_id": 5, "count": 1}, {"_id": 6, "count": 2}]`},
		{"constant expression", `[{"$setWindowFields": {"partitionBy": {"$add": [1, 2]}, "output": {"count": {"$sum": 1}}}}, {"$project": {"count": 1}}, {"$sort": {"_id": 1}}]`,
			`[{"_id": 1, "count": 6}, {"_id": 2, "count": 6}, {"_id": 3, "count": 6}, {"_id": 4, "count": 6}, {"_id": 5, "count": 6}, {"_id": 6, "count": 6}]`},
	})
}

// TestWindowLocfValues follows mongod's jstests locf.js: strings carry
// forward too, a missing or null value before any other stays null, and
// the output field is appended where it is new.
func TestWindowLocfValues(t *testing.T) {
	t.Parallel()
	runWindowCases(t, "locf", `[{"_id": 0, "val": null}, {"_id": 1, "val": 0}, {"_id": 2, "val": 2}, {"_id": 3, "val": null},
		{"_id": 4}, {"_id": 5, "val": "str"}, {"_id": 6, "val": null}, {"_id": 7, "rand": "rand"}]`, []windowCase{
		{"in place", `[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"val": {"$locf": "$val"}}}}]`,
			`[{"_id": 0, "val": null}, {"_id": 1, "val": 0}, {"_id": 2, "val": 2}, {"_id": 3, "val": 2}, {"_id": 4, "val": 2},
			  {"_id": 5, "val": "str"}, {"_id": 6, "val": "str"}, {"_id": 7, "rand": "rand", "val": "str"}]`},
		{"to a new field", `[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"newVal": {"$locf": "$val"}}}}]`,
			`[{"_id": 0, "val": null, "newVal": null}, {"_id": 1, "val": 0, "newVal": 0}, {"_id": 2, "val": 2, "newVal": 2}, {"_id": 3, "val": null, "newVal": 2},
			  {"_id": 4, "newVal": 2}, {"_id": 5, "val": "str", "newVal": "str"}, {"_id": 6, "val": null, "newVal": "str"}, {"_id": 7, "rand": "rand", "newVal": "str"}]`},
	})
}

// TestWindowLinearFillValues follows mongod's jstests linear_fill.js.
func TestWindowLinearFillValues(t *testing.T) {
	t.Parallel()
	runWindowCases(t, "lf", `[{"_id": 0.5, "val": 0}, {"_id": 1, "val": null}, {"_id": 4.384, "val": null}, {"_id": 9, "val": null}, {"_id": 10.09283, "val": 11.28374}]`, []windowCase{
		{"fractional", `[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"val": {"$linearFill": "$val"}}}}]`,
			`[{"_id": 0.5, "val": 0}, {"_id": 1, "val": 0.5881340542884634}, {"_id": 4.384, "val": 4.5686253337127845}, {"_id": 9, "val": 9.998278922903879}, {"_id": 10.09283, "val": 11.28374}]`},
	})
	runWindowCases(t, "lf2", `[{"_id": 0, "val": null}, {"_id": 1, "val": null}, {"_id": 4, "val": null}, {"_id": 9, "val": null}, {"_id": 10, "val": 10},
		{"_id": 11, "val": null}, {"_id": 12, "val": null}, {"_id": 13, "val": 13}]`, []windowCase{
		{"leading nulls stay null", `[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"val": {"$linearFill": "$val"}}}}]`,
			`[{"_id": 0, "val": null}, {"_id": 1, "val": null}, {"_id": 4, "val": null}, {"_id": 9, "val": null}, {"_id": 10, "val": 10},
			  {"_id": 11, "val": 11}, {"_id": 12, "val": 12}, {"_id": 13, "val": 13}]`},
	})
}
