package aggregation_test

import "testing"

// TestNAccumulatorsGroupDocs runs the $firstN, $lastN, $minN and $maxN
// accumulator pages' gamescores examples through the Go driver, and the
// "n from the group key" examples of those pages and of $topN/$bottomN.
// The input is sorted by playerId first: the pages rely on insertion
// order, which that sort reproduces.
func TestNAccumulatorsGroupDocs(t *testing.T) {
	t.Parallel()
	const byPlayer = `{"$sort": {"playerId": 1}}`
	runWindowCases(t, "gamescores", gamescores, []windowCase{
		{"$firstN in one game", `[` + byPlayer + `, {"$match": {"gameId": "G1"}},
			{"$group": {"_id": "$gameId", "firstThreeScores": {"$firstN": {"input": ["$playerId", "$score"], "n": 3}}}}]`,
			`[{"_id": "G1", "firstThreeScores": [["PlayerA", 31], ["PlayerB", 33], ["PlayerC", 99]]}]`},
		{"$firstN across games", `[` + byPlayer + `, {"$group": {"_id": "$gameId", "playerId": {"$firstN": {"input": ["$playerId", "$score"], "n": 3}}}},
			{"$sort": {"_id": 1}}]`,
			`[{"_id": "G1", "playerId": [["PlayerA", 31], ["PlayerB", 33], ["PlayerC", 99]]},
			  {"_id": "G2", "playerId": [["PlayerA", 10], ["PlayerB", 14], ["PlayerC", 66]]}]`},
		{"$firstN after $sort", `[{"$sort": {"score": -1}}, {"$group": {"_id": "$gameId", "playerId": {"$firstN": {"input": "$playerId", "n": 3}}}},
			{"$sort": {"_id": 1}}]`,
			`[{"_id": "G1", "playerId": ["PlayerC", "PlayerB", "PlayerA"]}, {"_id": "G2", "playerId": ["PlayerD", "PlayerC", "PlayerB"]}]`},
		{"$lastN across games", `[` + byPlayer + `, {"$group": {"_id": "$gameId", "playerId": {"$lastN": {"input": ["$playerId", "$score"], "n": 3}}}},
			{"$sort": {"_id": 1}}]`,
			`[{"_id": "G1", "playerId": [["PlayerB", 33], ["PlayerC", 99], ["PlayerD", 1]]},
			  {"_id": "G2", "playerId": [["PlayerB", 14], ["PlayerC", 66], ["PlayerD", 80]]}]`},
		{"$lastN after $sort", `[{"$sort": {"score": -1}}, {"$group": {"_id": "$gameId", "playerId": {"$lastN": {"input": "$playerId", "n": 3}}}},
			{"$sort": {"_id": 1}}]`,
			`[{"_id": "G1", "playerId": ["PlayerB", "PlayerA", "PlayerD"]}, {"_id": "G2", "playerId": ["PlayerC", "PlayerB", "PlayerA"]}]`},
		{"$maxN across games", `[{"$group": {"_id": "$gameId", "maxThreeScores": {"$maxN": {"input": ["$score", "$playerId"], "n": 3}}}},
			{"$sort": {"_id": 1}}]`,
			`[{"_id": "G1", "maxThreeScores": [[99, "PlayerC"], [33, "PlayerB"], [31, "PlayerA"]]},
			  {"_id": "G2", "maxThreeScores": [[80, "PlayerD"], [66, "PlayerC"], [14, "PlayerB"]]}]`},
		{"$minN across games", `[{"$group": {"_id": "$gameId", "minScores": {"$minN": {"input": ["$score", "$playerId"], "n": 3}}}},
			{"$sort": {"_id": 1}}]`,
			`[{"_id": "G1", "minScores": [[1, "PlayerD"], [31, "PlayerA"], [33, "PlayerB"]]},
			  {"_id": "G2", "minScores": [[10, "PlayerA"], [14, "PlayerB"], [66, "PlayerC"]]}]`},
		// n is evaluated against the group key: "$gameId" is the key's
		// field, so G2 keeps one element and G1 three.
		{"$firstN with n from the group key", `[` + byPlayer + `, {"$group": {"_id": {"gameId": "$gameId"},
			"gamescores": {"$firstN": {"input": "$score", "n": {"$cond": {"if": {"$eq": ["$gameId", "G2"]}, "then": 1, "else": 3}}}}}}, {"$sort": {"_id.gameId": 1}}]`,
			`[{"_id": {"gameId": "G1"}, "gamescores": [31, 33, 99]}, {"_id": {"gameId": "G2"}, "gamescores": [10]}]`},
		{"$lastN with n from the group key", `[` + byPlayer + `, {"$group": {"_id": {"gameId": "$gameId"},
			"gamescores": {"$lastN": {"input": "$score", "n": {"$cond": {"if": {"$eq": ["$gameId", "G2"]}, "then": 1, "else": 3}}}}}}, {"$sort": {"_id.gameId": 1}}]`,
			`[{"_id": {"gameId": "G1"}, "gamescores": [33, 99, 1]}, {"_id": {"gameId": "G2"}, "gamescores": [80]}]`},
		{"$maxN with n from the group key", `[{"$group": {"_id": {"gameId": "$gameId"},
			"gamescores": {"$maxN": {"input": ["$score", "$playerId"], "n": {"$cond": {"if": {"$eq": ["$gameId", "G2"]}, "then": 1, "else": 3}}}}}}, {"$sort": {"_id.gameId": 1}}]`,
			`[{"_id": {"gameId": "G1"}, "gamescores": [[99, "PlayerC"], [33, "PlayerB"], [31, "PlayerA"]]}, {"_id": {"gameId": "G2"}, "gamescores": [[80, "PlayerD"]]}]`},
		{"$minN with n from the group key", `[{"$group": {"_id": {"gameId": "$gameId"},
			"gamescores": {"$minN": {"input": ["$score", "$playerId"], "n": {"$cond": {"if": {"$eq": ["$gameId", "G2"]}, "then": 1, "else": 3}}}}}}, {"$sort": {"_id.gameId": 1}}]`,
			`[{"_id": {"gameId": "G1"}, "gamescores": [[1, "PlayerD"], [31, "PlayerA"], [33, "PlayerB"]]}, {"_id": {"gameId": "G2"}, "gamescores": [[10, "PlayerA"]]}]`},
		{"$topN with n from the group key", `[{"$group": {"_id": {"gameId": "$gameId"},
			"gamescores": {"$topN": {"output": "$score", "n": {"$cond": {"if": {"$eq": ["$gameId", "G2"]}, "then": 1, "else": 3}}, "sortBy": {"score": -1}}}}}, {"$sort": {"_id.gameId": 1}}]`,
			`[{"_id": {"gameId": "G1"}, "gamescores": [99, 33, 31]}, {"_id": {"gameId": "G2"}, "gamescores": [80]}]`},
		{"$bottomN with n from the group key", `[{"$group": {"_id": {"gameId": "$gameId"},
			"gamescores": {"$bottomN": {"output": "$score", "n": {"$cond": {"if": {"$eq": ["$gameId", "G2"]}, "then": 1, "else": 3}}, "sortBy": {"score": -1}}}}}, {"$sort": {"_id.gameId": 1}}]`,
			`[{"_id": {"gameId": "G1"}, "gamescores": [33, 31, 1]}, {"_id": {"gameId": "G2"}, "gamescores": [10]}]`},
		{"$topN in one game", `[{"$match": {"gameId": "G1"}}, {"$group": {"_id": "$gameId", "playerId": {"$topN": {"output": ["$playerId", "$score"], "sortBy": {"score": -1}, "n": 3}}}}]`,
			`[{"_id": "G1", "playerId": [["PlayerC", 99], ["PlayerB", 33], ["PlayerA", 31]]}]`},
		{"$top in one game", `[{"$match": {"gameId": "G1"}}, {"$group": {"_id": "$gameId", "playerId": {"$top": {"output": ["$playerId", "$score"], "sortBy": {"score": -1}}}}}]`,
			`[{"_id": "G1", "playerId": ["PlayerC", 99]}]`},
		{"$bottom in one game", `[{"$match": {"gameId": "G1"}}, {"$group": {"_id": "$gameId", "playerId": {"$bottom": {"output": ["$playerId", "$score"], "sortBy": {"score": -1}}}}}]`,
			`[{"_id": "G1", "playerId": ["PlayerD", 1]}]`},
	})
}

// TestNAccumulatorsNullsDocs runs the pages' null-and-missing examples
// (their $documents input, inserted here): $firstN and $lastN keep nulls
// and turn a missing value into null, $minN and $maxN drop both. The
// $firstN and $maxN outputs are the documented ones; $lastN's and
// $minN's are derived by hand from the same rules.
func TestNAccumulatorsNullsDocs(t *testing.T) {
	t.Parallel()
	runWindowCases(t, "nullscores", `[
	 {"playerId": "PlayerA", "gameId": "G1", "score": 1}, {"playerId": "PlayerB", "gameId": "G1", "score": 2},
	 {"playerId": "PlayerC", "gameId": "G1", "score": 3}, {"playerId": "PlayerD", "gameId": "G1"},
	 {"playerId": "PlayerE", "gameId": "G1", "score": null}]`, []windowCase{
		{"$firstN", `[{"$sort": {"playerId": 1}}, {"$group": {"_id": "$gameId", "firstFiveScores": {"$firstN": {"input": "$score", "n": 5}}}}]`,
			`[{"_id": "G1", "firstFiveScores": [1, 2, 3, null, null]}]`},
		{"$lastN", `[{"$sort": {"playerId": 1}}, {"$group": {"_id": "$gameId", "lastFiveScores": {"$lastN": {"input": "$score", "n": 5}}}}]`,
			`[{"_id": "G1", "lastFiveScores": [1, 2, 3, null, null]}]`},
		{"$maxN", `[{"$group": {"_id": "$gameId", "maximumThreeScores": {"$maxN": {"input": "$score", "n": 4}}}}]`,
			`[{"_id": "G1", "maximumThreeScores": [3, 2, 1]}]`},
		{"$minN", `[{"$group": {"_id": "$gameId", "minimumThreeScores": {"$minN": {"input": "$score", "n": 4}}}}]`,
			`[{"_id": "G1", "minimumThreeScores": [1, 2, 3]}]`},
	})
}

// TestNArrayOperatorsDocs runs the array-operator pages' scores example.
// $maxN's output is the documented one (a string sorts above numbers, so
// it is the largest); $minN's, $firstN's and $lastN's are derived by hand:
// $minN and $maxN drop nulls, $firstN and $lastN keep them.
func TestNArrayOperatorsDocs(t *testing.T) {
	t.Parallel()
	runWindowCases(t, "scores", `[
	 {"playerId": 1, "score": [1, 2, 3]}, {"playerId": 2, "score": [12, 90, 7, 89, 8]},
	 {"playerId": 3, "score": [null]}, {"playerId": 4, "score": []},
	 {"playerId": 5, "score": [1293, "2", 3489, 9]}, {"playerId": 6, "score": [1293, null, 3489, 9]}]`, []windowCase{
		{"$maxN", `[{"$sort": {"playerId": 1}}, {"$project": {"_id": 0, "playerId": 1, "maxScores": {"$maxN": {"n": 2, "input": "$score"}}}}]`,
			`[{"playerId": 1, "maxScores": [3, 2]}, {"playerId": 2, "maxScores": [90, 89]}, {"playerId": 3, "maxScores": []},
			  {"playerId": 4, "maxScores": []}, {"playerId": 5, "maxScores": ["2", 3489]}, {"playerId": 6, "maxScores": [3489, 1293]}]`},
		{"$minN", `[{"$sort": {"playerId": 1}}, {"$project": {"_id": 0, "playerId": 1, "minScores": {"$minN": {"n": 2, "input": "$score"}}}}]`,
			`[{"playerId": 1, "minScores": [1, 2]}, {"playerId": 2, "minScores": [7, 8]}, {"playerId": 3, "minScores": []},
			  {"playerId": 4, "minScores": []}, {"playerId": 5, "minScores": [9, 1293]}, {"playerId": 6, "minScores": [9, 1293]}]`},
		{"$firstN", `[{"$sort": {"playerId": 1}}, {"$project": {"_id": 0, "playerId": 1, "firstScores": {"$firstN": {"n": 3, "input": "$score"}}}}]`,
			`[{"playerId": 1, "firstScores": [1, 2, 3]}, {"playerId": 2, "firstScores": [12, 90, 7]}, {"playerId": 3, "firstScores": [null]},
			  {"playerId": 4, "firstScores": []}, {"playerId": 5, "firstScores": [1293, "2", 3489]}, {"playerId": 6, "firstScores": [1293, null, 3489]}]`},
		{"$lastN", `[{"$sort": {"playerId": 1}}, {"$project": {"_id": 0, "playerId": 1, "lastScores": {"$lastN": {"n": 3, "input": "$score"}}}}]`,
			`[{"playerId": 1, "lastScores": [1, 2, 3]}, {"playerId": 2, "lastScores": [7, 89, 8]}, {"playerId": 3, "lastScores": [null]},
			  {"playerId": 4, "lastScores": []}, {"playerId": 5, "lastScores": ["2", 3489, 9]}, {"playerId": 6, "lastScores": [null, 3489, 9]}]`},
	})
}

// TestWindowRankDocs runs the $denseRank and $documentNumber pages'
// cakeSales examples (partitions by state, sorted by quantity and by
// orderDate); the pages' outputs have no ties, so every operator of the
// family gives the same numbers.
func TestWindowRankDocs(t *testing.T) {
	t.Parallel()
	runWindowCases(t, "cakeSales", cakeSales, []windowCase{
		{"by quantity", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"quantity": -1},
			"output": {"d": {"$denseRank": {}}, "n": {"$documentNumber": {}}, "r": {"$rank": {}}}}}, {"$project": {"d": 1, "n": 1, "r": 1}}]`,
			`[{"_id": 4, "d": 1, "n": 1, "r": 1}, {"_id": 2, "d": 2, "n": 2, "r": 2}, {"_id": 0, "d": 3, "n": 3, "r": 3},
			  {"_id": 1, "d": 1, "n": 1, "r": 1}, {"_id": 5, "d": 2, "n": 2, "r": 2}, {"_id": 3, "d": 3, "n": 3, "r": 3}]`},
		{"by orderDate", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
			"output": {"d": {"$denseRank": {}}, "n": {"$documentNumber": {}}, "r": {"$rank": {}}}}}, {"$project": {"d": 1, "n": 1, "r": 1}}]`,
			`[{"_id": 4, "d": 1, "n": 1, "r": 1}, {"_id": 0, "d": 2, "n": 2, "r": 2}, {"_id": 2, "d": 3, "n": 3, "r": 3},
			  {"_id": 5, "d": 1, "n": 1, "r": 1}, {"_id": 3, "d": 2, "n": 2, "r": 2}, {"_id": 1, "d": 3, "n": 3, "r": 3}]`},
	})
}

// TestTopBottomNullsDocs runs the $top, $topN, $bottom and $bottomN pages'
// null-and-missing example (their $documents input, inserted here): a
// missing score sorts as null and is output as null. PlayerD (missing)
// and PlayerE (null) tie on score. The pages list PlayerD first in $topN
// and $bottomN, and $bottom's page returns PlayerD as the tie's bottom
// while advising another sortBy field for a definite order; the sorts
// here break ties by playerId, so $bottom's expected value is PlayerE.
func TestTopBottomNullsDocs(t *testing.T) {
	t.Parallel()
	runWindowCases(t, "nullscores", `[
	 {"playerId": "PlayerA", "gameId": "G1", "score": 1}, {"playerId": "PlayerB", "gameId": "G1", "score": 2},
	 {"playerId": "PlayerC", "gameId": "G1", "score": 3}, {"playerId": "PlayerD", "gameId": "G1"},
	 {"playerId": "PlayerE", "gameId": "G1", "score": null}]`, []windowCase{
		{"$topN", `[{"$group": {"_id": "$gameId", "playerId": {"$topN": {"output": ["$playerId", "$score"], "sortBy": {"score": 1, "playerId": 1}, "n": 3}}}}]`,
			`[{"_id": "G1", "playerId": [["PlayerD", null], ["PlayerE", null], ["PlayerA", 1]]}]`},
		{"$top", `[{"$group": {"_id": "$gameId", "playerId": {"$top": {"output": ["$playerId", "$score"], "sortBy": {"score": 1, "playerId": 1}}}}}]`,
			`[{"_id": "G1", "playerId": ["PlayerD", null]}]`},
		{"$bottomN", `[{"$group": {"_id": "$gameId", "playerId": {"$bottomN": {"output": ["$playerId", "$score"], "sortBy": {"score": -1, "playerId": 1}, "n": 3}}}}]`,
			`[{"_id": "G1", "playerId": [["PlayerA", 1], ["PlayerD", null], ["PlayerE", null]]}]`},
		{"$bottom", `[{"$group": {"_id": "$gameId", "playerId": {"$bottom": {"output": ["$playerId", "$score"], "sortBy": {"score": -1, "playerId": 1}}}}}]`,
			`[{"_id": "G1", "playerId": ["PlayerE", null]}]`},
	})
}

// TestFillLocfDocs runs the $fill page's last-observation examples on its
// restaurantReviews collection: locf over the date order, and the
// valueExisted flag set before $fill runs.
func TestFillLocfDocs(t *testing.T) {
	t.Parallel()
	runWindowCases(t, "restaurantReviews", `[
	 {"date": {"$date": "2021-03-08T00:00:00Z"}, "score": 90}, {"date": {"$date": "2021-03-09T00:00:00Z"}, "score": 92},
	 {"date": {"$date": "2021-03-10T00:00:00Z"}}, {"date": {"$date": "2021-03-11T00:00:00Z"}},
	 {"date": {"$date": "2021-03-12T00:00:00Z"}, "score": 85}, {"date": {"$date": "2021-03-13T00:00:00Z"}}]`, []windowCase{
		{"locf", `[{"$fill": {"sortBy": {"date": 1}, "output": {"score": {"method": "locf"}}}}, {"$project": {"_id": 0}}]`,
			`[{"date": {"$date": "2021-03-08T00:00:00Z"}, "score": 90}, {"date": {"$date": "2021-03-09T00:00:00Z"}, "score": 92},
			  {"date": {"$date": "2021-03-10T00:00:00Z"}, "score": 92}, {"date": {"$date": "2021-03-11T00:00:00Z"}, "score": 92},
			  {"date": {"$date": "2021-03-12T00:00:00Z"}, "score": 85}, {"date": {"$date": "2021-03-13T00:00:00Z"}, "score": 85}]`},
		{"valueExisted", `[{"$set": {"valueExisted": {"$ifNull": [{"$toBool": {"$toString": "$score"}}, false]}}},
			{"$fill": {"sortBy": {"date": 1}, "output": {"score": {"method": "locf"}}}}, {"$project": {"_id": 0}}]`,
			`[{"date": {"$date": "2021-03-08T00:00:00Z"}, "score": 90, "valueExisted": true}, {"date": {"$date": "2021-03-09T00:00:00Z"}, "score": 92, "valueExisted": true},
			  {"date": {"$date": "2021-03-10T00:00:00Z"}, "valueExisted": false, "score": 92}, {"date": {"$date": "2021-03-11T00:00:00Z"}, "valueExisted": false, "score": 92},
			  {"date": {"$date": "2021-03-12T00:00:00Z"}, "score": 85, "valueExisted": true}, {"date": {"$date": "2021-03-13T00:00:00Z"}, "valueExisted": false, "score": 85}]`},
	})
}

// TestWindowRankNullMissing derives from the rank pages' behaviour notes
// (the docs example's own data is not quoted here): before MongoDB 8.0,
// $rank and $denseRank compare sortBy values in BSON order, where a
// missing value is below null, so a null and a missing quantity get
// different ranks even though $sort ties them. Which of the two comes
// first is not specified, so only the ranks, sorted, are compared.
func TestWindowRankNullMissing(t *testing.T) {
	t.Parallel()
	runWindowCases(t, "cakeSalesWithNulls", `[
	 {"_id": 0, "state": "CA", "quantity": 162}, {"_id": 1, "state": "CA", "quantity": 162}, {"_id": 2, "state": "CA", "quantity": 145},
	 {"_id": 3, "state": "CA", "quantity": null}, {"_id": 4, "state": "CA"}]`, []windowCase{
		{"ranks", `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"quantity": -1},
			"output": {"r": {"$rank": {}}, "d": {"$denseRank": {}}, "n": {"$documentNumber": {}}}}},
			{"$project": {"_id": 0, "r": 1, "d": 1, "n": 1}}, {"$sort": {"n": 1}}]`,
			`[{"r": 1, "d": 1, "n": 1}, {"r": 1, "d": 1, "n": 2}, {"r": 3, "d": 2, "n": 3}, {"r": 4, "d": 3, "n": 4}, {"r": 5, "d": 4, "n": 5}]`},
	})
	// Arrays are compared whole (mongod 7.0 compares the values, 8.0 the
	// sort keys): [1, 5] and [1, 7] tie in the sort (key 1) but not in rank.
	runWindowCases(t, "rankArrays", `[{"_id": 1, "a": [1, 5]}, {"_id": 2, "a": [1, 7]}]`, []windowCase{
		{"arrays", `[{"$setWindowFields": {"sortBy": {"a": 1}, "output": {"r": {"$rank": {}}, "d": {"$denseRank": {}}, "n": {"$documentNumber": {}}}}},
			{"$project": {"_id": 0, "r": 1, "d": 1, "n": 1}}, {"$sort": {"n": 1}}]`,
			`[{"r": 1, "d": 1, "n": 1}, {"r": 2, "d": 2, "n": 2}]`},
	})
}

// TestNAccumulatorsMixedTypes follows the $topN/$bottomN pages' note on
// BSON order (strings sort above numbers, so they come last in an
// ascending sort and first in a descending one); the values are derived
// by hand from that order, not quoted from a page.
func TestNAccumulatorsMixedTypes(t *testing.T) {
	t.Parallel()
	runWindowCases(t, "mixedscores", `[
	 {"playerId": "PlayerA", "gameId": "G1", "score": 1}, {"playerId": "PlayerB", "gameId": "G1", "score": "2"},
	 {"playerId": "PlayerC", "gameId": "G1", "score": ""}, {"playerId": "PlayerD", "gameId": "G1", "score": 2}]`, []windowCase{
		{"$topN descending", `[{"$group": {"_id": "$gameId", "p": {"$topN": {"output": ["$playerId", "$score"], "sortBy": {"score": -1}, "n": 2}}}}]`,
			`[{"_id": "G1", "p": [["PlayerB", "2"], ["PlayerC", ""]]}]`},
		{"$bottomN ascending", `[{"$group": {"_id": "$gameId", "p": {"$bottomN": {"output": ["$playerId", "$score"], "sortBy": {"score": 1}, "n": 2}}}}]`,
			`[{"_id": "G1", "p": [["PlayerC", ""], ["PlayerB", "2"]]}]`},
		{"$topN ascending", `[{"$group": {"_id": "$gameId", "p": {"$topN": {"output": ["$playerId", "$score"], "sortBy": {"score": 1}, "n": 2}}}}]`,
			`[{"_id": "G1", "p": [["PlayerA", 1], ["PlayerD", 2]]}]`},
		{"$maxN and $minN", `[{"$group": {"_id": "$gameId", "mx": {"$maxN": {"input": "$score", "n": 2}}, "mn": {"$minN": {"input": "$score", "n": 2}}}}]`,
			`[{"_id": "G1", "mx": ["2", ""], "mn": [1, 2]}]`},
	})
}
