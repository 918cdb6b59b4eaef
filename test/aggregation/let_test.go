package aggregation_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestLetInNestedExpr checks let variables used by $expr clauses nested in
// $and, $or and $nor of a $match: in a $lookup sub-pipeline (the orders /
// warehouses example of MongoDB's $lookup page, with the $expr split into
// query-level clauses) and with the aggregate command's let.
func TestLetInNestedExpr(t *testing.T) {
	t.Parallel()
	db := openDB(t, "shop")
	orders, warehouses := db.Collection("orders"), db.Collection("warehouses")
	insertJSON(t, orders, `[{"_id":1,"item":"almonds","price":12,"ordered":2},{"_id":2,"item":"pecans","price":20,"ordered":1},{"_id":3,"item":"cookies","price":10,"ordered":60}]`)
	insertJSON(t, warehouses, `[{"_id":1,"stock_item":"almonds","warehouse":"A","instock":120},{"_id":2,"stock_item":"pecans","warehouse":"A","instock":80},{"_id":3,"stock_item":"almonds","warehouse":"B","instock":60},{"_id":4,"stock_item":"cookies","warehouse":"B","instock":40},{"_id":5,"stock_item":"cookies","warehouse":"A","instock":80}]`)
	lookup := func(match string) string {
		return `[{"$lookup":{"from":"warehouses","let":{"order_item":"$item","order_qty":"$ordered"},"pipeline":[{"$match":` + match +
			`},{"$project":{"stock_item":0,"_id":0}}],"as":"stockdata"}},{"$project":{"stockdata":1}}]`
	}
	for _, tc := range []struct{ name, match, want string }{
		{"$and of $expr", `{"$and":[{"$expr":{"$eq":["$stock_item","$$order_item"]}},{"$expr":{"$gte":["$instock","$$order_qty"]}}]}`,
			`[{"_id":1,"stockdata":[{"warehouse":"A","instock":120},{"warehouse":"B","instock":60}]},{"_id":2,"stockdata":[{"warehouse":"A","instock":80}]},{"_id":3,"stockdata":[{"warehouse":"A","instock":80}]}]`},
		{"$and of $expr and a field", `{"$and":[{"$expr":{"$eq":["$stock_item","$$order_item"]}},{"warehouse":"B"}]}`,
			`[{"_id":1,"stockdata":[{"warehouse":"B","instock":60}]},{"_id":2,"stockdata":[]},{"_id":3,"stockdata":[{"warehouse":"B","instock":40}]}]`},
		{"$or nested in $and", `{"instock":{"$gte":50},"$and":[{"$or":[{"$expr":{"$eq":["$stock_item","$$order_item"]}},{"warehouse":"Z"}]}]}`,
			`[{"_id":1,"stockdata":[{"warehouse":"A","instock":120},{"warehouse":"B","instock":60}]},{"_id":2,"stockdata":[{"warehouse":"A","instock":80}]},{"_id":3,"stockdata":[{"warehouse":"A","instock":80}]}]`},
		{"$nor", `{"$nor":[{"$expr":{"$ne":["$stock_item","$$order_item"]}},{"warehouse":"A"}]}`,
			`[{"_id":1,"stockdata":[{"warehouse":"B","instock":60}]},{"_id":2,"stockdata":[]},{"_id":3,"stockdata":[{"warehouse":"B","instock":40}]}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := aggJS(t, orders, lookup(tc.match))
			if err != nil {
				t.Fatal(err)
			}
			wantJS(t, got, tc.want)
		})
	}
	// The command's let, in $or.
	let := options.Aggregate().SetLet(extJSON(t, `{"minQty":50,"name":"pecans"}`))
	got, err := aggJS(t, orders, `[{"$match":{"$or":[{"$expr":{"$gte":["$ordered","$$minQty"]}},{"$and":[{"$expr":{"$eq":["$item","$$name"]}}]}]}},{"$project":{"_id":1}}]`, let)
	if err != nil {
		t.Fatal(err)
	}
	wantJS(t, got, `[{"_id":2},{"_id":3}]`)
	// An empty logical array is still refused.
	_, err = aggJS(t, orders, `[{"$match":{"$or":[]}}]`, let)
	wantServerCode(t, err, 2)
}

// TestDefinedVariableNames checks through the Go driver that a variable a
// pipeline defines ($let's vars, $filter's and $map's 'as') gets mongod's
// checks for a written name: 16867 for a bad first character, as MongoDB's
// own $filter test expects, and 16868 for a bad character after it.
func TestDefinedVariableNames(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	for _, c := range []struct {
		expr string
		code int32
	}{
		{`{"$filter": {"input": [1], "as": "$x", "cond": true}}`, 16867},
		{`{"$map": {"input": [1], "as": "X", "in": 1}}`, 16867},
		{`{"$let": {"vars": {"a-b": 1}, "in": 1}}`, 16868},
	} {
		_, err, _ := aggOne(t, d, `[{"$project": {"r": `+c.expr+`}}]`, 0)
		testenv.WantCmdError(t, err, c.code, "")
	}
}
