package aggregation_test

import "testing"

// gamescores is the collection of the $top, $topN, $bottom and $bottomN
// reference pages.
const gamescores = `[
 {"playerId": "PlayerA", "gameId": "G1", "score": 31}, {"playerId": "PlayerB", "gameId": "G1", "score": 33},
 {"playerId": "PlayerC", "gameId": "G1", "score": 99}, {"playerId": "PlayerD", "gameId": "G1", "score": 1},
 {"playerId": "PlayerA", "gameId": "G2", "score": 10}, {"playerId": "PlayerB", "gameId": "G2", "score": 14},
 {"playerId": "PlayerC", "gameId": "G2", "score": 66}, {"playerId": "PlayerD", "gameId": "G2", "score": 80}]`

// TestTopBottomAccumulators runs the reference pages' gamescores examples
// through the Go driver: $topN and $bottomN return their n elements in
// sortBy's order (the bottom three of a descending sort are the three
// lowest, highest first), $top and $bottom the first and the last.
func TestTopBottomAccumulators(t *testing.T) {
	t.Parallel()
	runWindowCases(t, "gamescores", gamescores, []windowCase{
		{"$bottomN: the three lowest scores of one game", `[{"$match": {"gameId": "G1"}},
			{"$group": {"_id": "$gameId", "playerId": {"$bottomN": {"output": ["$playerId", "$score"], "sortBy": {"score": -1}, "n": 3}}}}]`,
			`[{"_id": "G1", "playerId": [["PlayerB", 33], ["PlayerA", 31], ["PlayerD", 1]]}]`},
		{"$bottomN across games", `[{"$group": {"_id": "$gameId", "playerId": {"$bottomN": {"output": ["$playerId", "$score"], "sortBy": {"score": -1}, "n": 3}}}},
			{"$sort": {"_id": 1}}]`,
			`[{"_id": "G1", "playerId": [["PlayerB", 33], ["PlayerA", 31], ["PlayerD", 1]]},
			  {"_id": "G2", "playerId": [["PlayerC", 66], ["PlayerB", 14], ["PlayerA", 10]]}]`},
		{"$topN across games", `[{"$group": {"_id": "$gameId", "playerId": {"$topN": {"output": ["$playerId", "$score"], "sortBy": {"score": -1}, "n": 3}}}},
			{"$sort": {"_id": 1}}]`,
			`[{"_id": "G1", "playerId": [["PlayerC", 99], ["PlayerB", 33], ["PlayerA", 31]]},
			  {"_id": "G2", "playerId": [["PlayerD", 80], ["PlayerC", 66], ["PlayerB", 14]]}]`},
		{"$bottom and $top across games", `[{"$group": {"_id": "$gameId",
			"low": {"$bottom": {"output": ["$playerId", "$score"], "sortBy": {"score": -1}}},
			"high": {"$top": {"output": ["$playerId", "$score"], "sortBy": {"score": -1}}}}}, {"$sort": {"_id": 1}}]`,
			`[{"_id": "G1", "low": ["PlayerD", 1], "high": ["PlayerC", 99]}, {"_id": "G2", "low": ["PlayerA", 10], "high": ["PlayerD", 80]}]`},
		{"$bottomN as a window function", `[{"$match": {"gameId": "G1"}}, {"$setWindowFields": {"sortBy": {"playerId": 1},
			"output": {"b": {"$bottomN": {"output": "$playerId", "sortBy": {"score": -1}, "n": 3}, "window": {"documents": ["unbounded", "current"]}}}}},
			{"$project": {"_id": 0, "playerId": 1, "b": 1}}]`,
			`[{"playerId": "PlayerA", "b": ["PlayerA"]}, {"playerId": "PlayerB", "b": ["PlayerB", "PlayerA"]},
			  {"playerId": "PlayerC", "b": ["PlayerC", "PlayerB", "PlayerA"]}, {"playerId": "PlayerD", "b": ["PlayerB", "PlayerA", "PlayerD"]}]`},
	})
}
