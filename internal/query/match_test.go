package query

import (
	"fmt"
	"strings"
	"testing"
)

// Collections from MongoDB's documentation pages. Each _id is the item
// name so expectations read like the manual's results.
var (
	// "Query an Array"
	inventoryArrays = []string{
		`{"_id": "journal", "qty": 25, "tags": ["blank", "red"], "dim_cm": [14, 21]}`,
		`{"_id": "notebook", "qty": 50, "tags": ["red", "blank"], "dim_cm": [14, 21]}`,
		`{"_id": "paper", "qty": 100, "tags": ["red", "blank", "plain"], "dim_cm": [14, 21]}`,
		`{"_id": "planner", "qty": 75, "tags": ["blank", "red"], "dim_cm": [22.85, 30]}`,
		`{"_id": "postcard", "qty": 45, "tags": ["blue"], "dim_cm": [10, 15.25]}`,
	}
	// "Query an Array of Embedded Documents"
	inventoryInstock = []string{
		`{"_id": "journal", "instock": [{"warehouse": "A", "qty": 5}, {"warehouse": "C", "qty": 15}]}`,
		`{"_id": "notebook", "instock": [{"warehouse": "C", "qty": 5}]}`,
		`{"_id": "paper", "instock": [{"warehouse": "A", "qty": 60}, {"warehouse": "B", "qty": 15}]}`,
		`{"_id": "planner", "instock": [{"warehouse": "A", "qty": 40}, {"warehouse": "B", "qty": 5}]}`,
		`{"_id": "postcard", "instock": [{"warehouse": "B", "qty": 15}, {"warehouse": "C", "qty": 35}]}`,
	}
	// "Query on Embedded/Nested Documents"
	inventoryEmbedded = []string{
		`{"_id": "journal", "qty": 25, "size": {"h": 14, "w": 21, "uom": "cm"}, "status": "A"}`,
		`{"_id": "notebook", "qty": 50, "size": {"h": 8.5, "w": 11, "uom": "in"}, "status": "A"}`,
		`{"_id": "paper", "qty": 100, "size": {"h": 8.5, "w": 11, "uom": "in"}, "status": "D"}`,
		`{"_id": "planner", "qty": 75, "size": {"h": 22.85, "w": 30, "uom": "cm"}, "status": "D"}`,
		`{"_id": "postcard", "qty": 45, "size": {"h": 10, "w": 15.25, "uom": "cm"}, "status": "A"}`,
	}
	// "Query for Null or Missing Fields"
	nullMissing = []string{`{"_id": 1, "item": null}`, `{"_id": 2}`}
	// "$all"
	allInventory = []string{
		`{"_id": 1, "code": "xyz", "tags": ["school", "book", "bag", "headphone", "appliance"], "qty": [{"size": "S", "num": 10, "color": "blue"}, {"size": "M", "num": 45, "color": "blue"}, {"size": "L", "num": 100, "color": "green"}]}`,
		`{"_id": 2, "code": "abc", "tags": ["appliance", "school", "book"], "qty": [{"size": "6", "num": 100, "color": "green"}, {"size": "6", "num": 50, "color": "blue"}, {"size": "8", "num": 100, "color": "brown"}]}`,
		`{"_id": 3, "code": "efg", "tags": ["school", "book"], "qty": [{"size": "S", "num": 10, "color": "blue"}, {"size": "M", "num": 100, "color": "blue"}, {"size": "L", "num": 100, "color": "green"}]}`,
		`{"_id": 4, "code": "ijk", "tags": ["electronics", "school"], "qty": [{"size": "M", "num": 100, "color": "green"}]}`,
	}
	// "$type"
	addressBook = []string{
		`{"_id": 1, "address": "2030 Martian Way", "zipCode": "90698345"}`,
		`{"_id": 2, "address": "156 Lunar Place", "zipCode": 43339374.0}`,
		`{"_id": 3, "address": "2324 Pluto Place", "zipCode": {"$numberLong": "3921412"}}`,
		`{"_id": 4, "address": "55 Saturn Ring", "zipCode": {"$numberInt": "88602117"}}`,
		`{"_id": 5, "address": "104 Venus Drive", "zipCode": ["834847278", "1893289032"]}`,
	}
	// "$mod"
	modInventory = []string{
		`{"_id": 1, "item": "abc123", "qty": 0}`,
		`{"_id": 2, "item": "xyz123", "qty": 5}`,
		`{"_id": 3, "item": "ijk123", "qty": 12}`,
	}
	// "$bitsAllSet" and friends
	bitsColl = []string{
		`{"_id": 1, "a": 54}`,
		`{"_id": 2, "a": 20}`,
		`{"_id": 3, "a": 20.0}`,
		`{"_id": 4, "a": {"$binary": {"base64": "Zg==", "subType": "00"}}}`,
	}
	// "$regex"
	products = []string{
		`{"_id": 100, "sku": "abc123", "description": "Single line description."}`,
		`{"_id": 101, "sku": "abc789", "description": "First line\nSecond line"}`,
		`{"_id": 102, "sku": "xyz456", "description": "Many spaces before     line"}`,
		`{"_id": 103, "sku": "xyz789", "description": "Multiple\nline description"}`,
		`{"_id": 104, "sku": "Abc789", "description": "SKU starts with A"}`,
	}
	// "$elemMatch (query)"
	scores = []string{
		`{"_id": 1, "results": [82, 85, 88]}`,
		`{"_id": 2, "results": [75, 88, 89]}`,
	}
	survey = []string{
		`{"_id": 1, "results": [{"product": "abc", "score": 10}, {"product": "xyz", "score": 5}]}`,
		`{"_id": 2, "results": [{"product": "abc", "score": 8}, {"product": "xyz", "score": 7}]}`,
		`{"_id": 3, "results": [{"product": "abc", "score": 7}, {"product": "xyz", "score": 8}]}`,
		`{"_id": 4, "results": [{"product": "abc", "score": 7}, {"product": "def", "score": 8}]}`,
		`{"_id": 5, "results": {"product": "xyz", "score": 7}}`,
	}
	// "$size"
	sizeColl = []string{
		`{"_id": 1, "field": ["red", "green"]}`,
		`{"_id": 2, "field": ["apple", "lime"]}`,
		`{"_id": 3, "field": "fruit"}`,
		`{"_id": 4, "field": ["orange", "lemon", "grapefruit"]}`,
	}
	// "$expr"
	monthlyBudget = []string{
		`{"_id": 1, "category": "food", "budget": 400, "spent": 450}`,
		`{"_id": 2, "category": "drinks", "budget": 100, "spent": 150}`,
		`{"_id": 3, "category": "clothes", "budget": 100, "spent": 50}`,
		`{"_id": 4, "category": "misc", "budget": 500, "spent": 300}`,
		`{"_id": 5, "category": "travel", "budget": 200, "spent": 650}`,
	}
	// edge cases of array traversal and numeric path components
	arrayEdge = []string{
		`{"_id": 1, "a": [[1, 2], 3]}`,
		`{"_id": 2, "a": [{"b": [1, 2]}, {"b": 3}]}`,
		`{"_id": 3, "a": {"0": {"b": 5}}}`,
		`{"_id": 4, "a": [{"b": 5}, {"b": 6}]}`,
		`{"_id": 5, "a": [[{"b": 5}]]}`,
		`{"_id": 6, "a": []}`,
		`{"_id": 7, "a": [null]}`,
		`{"_id": 8, "a": [1, {"c": 1}]}`,
		`{"_id": 9}`,
		`{"_id": 10, "a": {"$minKey": 1}}`,
		`{"_id": 11, "a": {"$maxKey": 1}}`,
		`{"_id": 12, "a": "x"}`,
		`{"_id": 13, "a": {"$undefined": true}}`,
	}
)

func TestMatchDocumented(t *testing.T) {
	cases := []struct {
		coll   []string
		filter string
		want   string // comma-separated _ids, as rendered by bsoncore
	}{
		// Query an Array
		{inventoryArrays, `{"tags": ["red", "blank"]}`, `"notebook"`},
		{inventoryArrays, `{"tags": {"$all": ["red", "blank"]}}`, `"journal","notebook","paper","planner"`},
		{inventoryArrays, `{"tags": "red"}`, `"journal","notebook","paper","planner"`},
		{inventoryArrays, `{"dim_cm": {"$gt": 25}}`, `"planner"`},
		{inventoryArrays, `{"dim_cm": {"$gt": 15, "$lt": 20}}`, `"journal","notebook","paper","postcard"`},
		{inventoryArrays, `{"dim_cm": {"$elemMatch": {"$gt": 22, "$lt": 30}}}`, `"planner"`},
		{inventoryArrays, `{"dim_cm.1": {"$gt": 25}}`, `"planner"`},
		{inventoryArrays, `{"tags": {"$size": 3}}`, `"paper"`},
		// Query an Array of Embedded Documents
		{inventoryInstock, `{"instock": {"warehouse": "A", "qty": 5}}`, `"journal"`},
		{inventoryInstock, `{"instock": {"qty": 5, "warehouse": "A"}}`, ``},
		{inventoryInstock, `{"instock.0.qty": {"$lte": 20}}`, `"journal","notebook","postcard"`},
		{inventoryInstock, `{"instock.qty": {"$lte": 20}}`, `"journal","notebook","paper","planner","postcard"`},
		{inventoryInstock, `{"instock": {"$elemMatch": {"qty": 5, "warehouse": "A"}}}`, `"journal"`},
		{inventoryInstock, `{"instock": {"$elemMatch": {"qty": {"$gt": 10, "$lte": 20}}}}`, `"journal","paper","postcard"`},
		{inventoryInstock, `{"instock.qty": {"$gt": 10, "$lte": 20}}`, `"journal","paper","planner","postcard"`},
		{inventoryInstock, `{"instock.qty": 5, "instock.warehouse": "A"}`, `"journal","planner"`},
		// Query on Embedded/Nested Documents
		{inventoryEmbedded, `{"size": {"h": 14, "w": 21, "uom": "cm"}}`, `"journal"`},
		{inventoryEmbedded, `{"size": {"w": 21, "h": 14, "uom": "cm"}}`, ``},
		{inventoryEmbedded, `{"size.uom": "in"}`, `"notebook","paper"`},
		{inventoryEmbedded, `{"size.h": {"$lt": 15}}`, `"journal","notebook","paper","postcard"`},
		{inventoryEmbedded, `{"size.h": {"$lt": 15}, "size.uom": "in", "status": "D"}`, `"paper"`},
		{inventoryEmbedded, `{"$or": [{"status": "A"}, {"qty": {"$lt": 30}}]}`, `"journal","notebook","postcard"`},
		{inventoryEmbedded, `{"status": {"$in": ["A", "D"]}}`, `"journal","notebook","paper","planner","postcard"`},
		{inventoryEmbedded, `{"status": {"$nin": ["A"]}}`, `"paper","planner"`},
		{inventoryEmbedded, `{"$nor": [{"status": "A"}, {"qty": {"$gt": 80}}]}`, `"planner"`},
		{inventoryEmbedded, `{"qty": {"$not": {"$gt": 45}}}`, `"journal","postcard"`},
		// Query for Null or Missing Fields
		{nullMissing, `{"item": null}`, `1,2`},
		{nullMissing, `{"item": {"$eq": null}}`, `1,2`},
		{nullMissing, `{"item": {"$ne": null}}`, ``},
		{nullMissing, `{"item": {"$type": 10}}`, `1`},
		{nullMissing, `{"item": {"$type": "null"}}`, `1`},
		{nullMissing, `{"item": {"$exists": false}}`, `2`},
		{nullMissing, `{"item": {"$exists": true}}`, `1`},
		{nullMissing, `{"item": {"$in": [null]}}`, `1,2`},
		{nullMissing, `{"item": {"$gte": null}}`, `1,2`},
		{nullMissing, `{"item": {"$gt": null}}`, ``},
		// $all
		{allInventory, `{"tags": {"$all": ["appliance", "school", "book"]}}`, `1,2`},
		{allInventory, `{"qty": {"$all": [{"$elemMatch": {"size": "M", "num": {"$gt": 50}}}, {"$elemMatch": {"num": 100, "color": "green"}}]}}`, `3,4`},
		{allInventory, `{"qty.num": {"$all": [50]}}`, `2`},
		{allInventory, `{"qty.num": 50}`, `2`},
		{allInventory, `{"tags": {"$all": []}}`, ``},
		// $type
		{addressBook, `{"zipCode": {"$type": 2}}`, `1,5`},
		{addressBook, `{"zipCode": {"$type": "string"}}`, `1,5`},
		{addressBook, `{"zipCode": {"$type": 1}}`, `2`},
		{addressBook, `{"zipCode": {"$type": "double"}}`, `2`},
		{addressBook, `{"zipCode": {"$type": "number"}}`, `2,3,4`},
		{addressBook, `{"zipCode": {"$type": ["string", "double"]}}`, `1,2,5`},
		{addressBook, `{"zipCode": {"$type": "array"}}`, `5`},
		{addressBook, `{"zipCode": {"$type": "long"}}`, `3`},
		{addressBook, `{"zipCode": {"$type": "int"}}`, `4`},
		// $mod
		{modInventory, `{"qty": {"$mod": [4, 0]}}`, `1,3`},
		{modInventory, `{"qty": {"$mod": [4.0, 0]}}`, `1,3`},
		{modInventory, `{"qty": {"$mod": [4.5, 0]}}`, `1,3`},
		{modInventory, `{"qty": {"$mod": [4.99, 0]}}`, `1,3`},
		{modInventory, `{"qty": {"$mod": [-4, 0]}}`, `1,3`},
		// bitwise
		{bitsColl, `{"a": {"$bitsAllSet": [1, 5]}}`, `1,4`},
		{bitsColl, `{"a": {"$bitsAllSet": 50}}`, `1`},
		{bitsColl, `{"a": {"$bitsAllSet": {"$binary": {"base64": "MA==", "subType": "00"}}}}`, `1`},
		{bitsColl, `{"a": {"$bitsAnySet": [1, 5]}}`, `1,4`},
		{bitsColl, `{"a": {"$bitsAnySet": 35}}`, `1,4`},
		{bitsColl, `{"a": {"$bitsAllClear": [1, 5]}}`, `2,3`},
		{bitsColl, `{"a": {"$bitsAllClear": 35}}`, `2,3`},
		{bitsColl, `{"a": {"$bitsAnyClear": [1, 5]}}`, `2,3`},
		{bitsColl, `{"a": {"$bitsAnyClear": 35}}`, `1,2,3,4`},
		// $regex
		{products, `{"sku": {"$regex": {"$regularExpression": {"pattern": "789$", "options": ""}}}}`, `101,103,104`},
		{products, `{"sku": {"$regex": {"$regularExpression": {"pattern": "^ABC", "options": "i"}}}}`, `100,101,104`},
		{products, `{"description": {"$regex": {"$regularExpression": {"pattern": "^S", "options": ""}}, "$options": "m"}}`, `100,101,104`},
		{products, `{"description": {"$regex": {"$regularExpression": {"pattern": "^S", "options": ""}}}}`, `100,104`},
		{products, `{"description": {"$regex": {"$regularExpression": {"pattern": "m.*line", "options": "si"}}}}`, `102,103`},
		{products, `{"description": {"$regex": "m.*line", "$options": "i"}}`, `102`},
		{products, `{"sku": {"$regex": "abc #category code\n123 #item number", "$options": "x"}}`, `100`},
		{products, `{"sku": {"$in": [{"$regularExpression": {"pattern": "^abc", "options": ""}}, "xyz456"]}}`, `100,101,102`},
		{products, `{"sku": {"$regularExpression": {"pattern": "^abc", "options": ""}}}`, `100,101`},
		{products, `{"sku": {"$not": {"$regularExpression": {"pattern": "^abc", "options": ""}}}}`, `102,103,104`},
		{products, `{"sku": {"$not": {"$regex": "^abc"}}}`, `102,103,104`},
		// $elemMatch (query)
		{scores, `{"results": {"$elemMatch": {"$gte": 80, "$lt": 85}}}`, `1`},
		{survey, `{"results": {"$elemMatch": {"product": "xyz", "score": {"$gte": 8}}}}`, `3`},
		{survey, `{"results": {"$elemMatch": {"product": {"$ne": "xyz"}}}}`, `1,2,3,4`},
		{survey, `{"results.product": {"$ne": "xyz"}}`, `4`},
		{survey, `{"results": {"$elemMatch": {"$or": [{"product": "def"}, {"score": 10}]}}}`, `1,4`},
		// $size
		{sizeColl, `{"field": {"$size": 2}}`, `1,2`},
		{sizeColl, `{"field": {"$size": 1}}`, ``},
		// $expr
		{monthlyBudget, `{"$expr": {"$gt": ["$spent", "$budget"]}}`, `1,2,5`},
		{monthlyBudget, `{"$expr": {"$lt": [{"$cond": {"if": {"$gte": ["$budget", 200]}, "then": {"$multiply": ["$budget", 0.5]}, "else": {"$multiply": ["$budget", 0.75]}}}, "$spent"]}}`, `1,2,4,5`},
		{monthlyBudget, `{"category": {"$ne": "food"}, "$expr": {"$eq": [{"$divide": ["$spent", 0]}, 1]}}`, ``},
		// array traversal rules
		{arrayEdge, `{"a": 1}`, `8`},
		{arrayEdge, `{"a": [1, 2]}`, `1`},
		{arrayEdge, `{"a": 3}`, `1`},
		{arrayEdge, `{"a.b": 1}`, `2`},
		{arrayEdge, `{"a.b": [1, 2]}`, `2`},
		{arrayEdge, `{"a.0.b": 5}`, `3,4,5`},
		{arrayEdge, `{"a.0": [1, 2]}`, `1`},
		{arrayEdge, `{"a.0.1": 2}`, `1`},
		{arrayEdge, `{"a.b": 5}`, `4`},
		{arrayEdge, `{"a.0.0.b": 5}`, `5`},
		{arrayEdge, `{"a": {"$size": 0}}`, `6`},
		{arrayEdge, `{"a": []}`, `6`},
		{arrayEdge, `{"a": null}`, `7,9,13`},
		{arrayEdge, `{"a.c": null}`, `2,3,4,9,10,11,12,13`},
		{arrayEdge, `{"a.c": {"$exists": true}}`, `8`},
		{arrayEdge, `{"a": {"$exists": false}}`, `9`},
		{arrayEdge, `{"a": {"$gt": 2}}`, `1`},
		{arrayEdge, `{"a": {"$lt": {"$maxKey": 1}}}`, `1,2,3,4,5,6,7,8,9,10,12,13`},
		{arrayEdge, `{"a": {"$gt": {"$minKey": 1}}}`, `1,2,3,4,5,6,7,8,9,11,12,13`},
		{arrayEdge, `{"a": {"$gte": {"$minKey": 1}}}`, `1,2,3,4,5,6,7,8,9,10,11,12,13`},
		{arrayEdge, `{"a": {"$gt": "a"}}`, `12`},
		{arrayEdge, `{"a": {"$type": "array"}}`, `1,2,4,5,6,7,8`},
		{arrayEdge, `{"a": {"$elemMatch": {"$elemMatch": {"$gt": 1}}}}`, `1`},
		{arrayEdge, `{"a": {"$elemMatch": {"b": {"$exists": true}}}}`, `2,4`},
		{arrayEdge, `{"a": {"$elemMatch": {"0.b": 5}}}`, `5`},
		{arrayEdge, `{"$and": [{"a": {"$exists": true}}, {"a": {"$not": {"$type": "array"}}}]}`, `3,10,11,12,13`},
		{arrayEdge, `{"_id": {"$in": [1, 2.0, {"$numberLong": "3"}]}}`, `1,2,3`},
		{arrayEdge, `{"$comment": "ignored", "_id": 9}`, `9`},
		{arrayEdge, `{"$alwaysFalse": 1}`, ``},
		{arrayEdge, `{"$expr": {"$eq": ["$_id", 12]}}`, `12`},
		{arrayEdge, `{"$expr": {"$and": [{"$gt": ["$_id", 3]}, {"$lt": ["$_id", 6]}]}}`, `4,5`},
		{arrayEdge, `{"$expr": "$a"}`, `1,2,3,4,5,6,7,8,10,11,12`},
	}
	for _, c := range cases {
		t.Run(c.filter, func(t *testing.T) {
			f, err := Parse(doc(t, c.filter))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got := strings.Join(matchIDs(t, f, docs(t, c.coll...)), ",")
			if got != c.want {
				t.Errorf("matched %s, want %s", got, c.want)
			}
		})
	}
}

func TestMatchPositional(t *testing.T) {
	cases := []struct {
		doc, filter string
		want        int
	}{
		// "$ (projection)" examples: grades >= 85 picks the first match
		{`{"_id": 1, "semester": 1, "grades": [70, 87, 90]}`, `{"semester": 1, "grades": {"$gte": 85}}`, 1},
		{`{"_id": 2, "semester": 1, "grades": [90, 88, 92]}`, `{"semester": 1, "grades": {"$gte": 85}}`, 0},
		{`{"_id": 3, "semester": 1, "grades": [85, 100, 90]}`, `{"semester": 1, "grades": {"$gte": 85}}`, 0},
		{`{"_id": 7, "grades": [{"grade": 80, "mean": 75}, {"grade": 85, "mean": 90}, {"grade": 85, "mean": 85}]}`,
			`{"grades.mean": {"$gt": 70}}`, 0},
		{`{"_id": 7, "grades": [{"grade": 80, "mean": 75}, {"grade": 85, "mean": 90}, {"grade": 85, "mean": 85}]}`,
			`{"grades": {"$elemMatch": {"mean": {"$gt": 80}, "grade": 85}}}`, 1},
		// the outermost array offset wins
		{`{"a": [{"b": [1, 2]}, {"b": [3, 4]}]}`, `{"a.b": 4}`, 1},
		{`{"a": 1}`, `{"a": 1}`, -1},
		{`{"items": [{"sku": "x", "qty": 1}, {"sku": "y", "qty": 2}]}`, `{"items.sku": "y"}`, 1},
	}
	for _, c := range cases {
		f, err := Parse(doc(t, c.filter))
		if err != nil {
			t.Fatal(err)
		}
		ok, pos := f.MatchPositional(doc(t, c.doc))
		if !ok || pos != c.want {
			t.Errorf("%s on %s: got (%v, %d), want (true, %d)", c.filter, c.doc, ok, pos, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		filter string
		code   int32
		msg    string
	}{
		{`{"$foo": 1}`, 2, "unknown top level operator: $foo. If you have a field name that starts with a '$' symbol, consider using $getField or $setField."},
		{`{"$not": {"a": 1}}`, 2, "unknown top level operator: $not. If you are trying to negate an entire expression, use $nor."},
		{`{"a": {"$foo": 1}}`, 2, "unknown operator: $foo"},
		{`{"a": {"$gt": 1, "b": 2}}`, 2, "unknown operator: b"},
		{`{"a": {"$in": 1}}`, 2, "$in needs an array"},
		{`{"a": {"$nin": 1}}`, 2, "$nin needs an array"},
		{`{"a": {"$in": [{"$gt": 1}]}}`, 2, "cannot nest $ under $in"},
		{`{"a": {"$size": "x"}}`, 2, `Failed to parse $size. Expected a number in: $size: "x"`},
		{`{"a": {"$size": -1}}`, 2, "Failed to parse $size. Expected a positive number in: $size: -1"},
		{`{"a": {"$size": 1.5}}`, 2, "Failed to parse $size. Expected an integer: $size: 1.5"},
		{`{"a": {"$regex": "x", "$options": "z"}}`, 51108, "invalid flag in regex options: z"},
		{`{"a": {"$regex": 1}}`, 2, "$regex has to be a string"},
		{`{"a": {"$options": "i"}}`, 2, "$options needs a $regex"},
		{`{"a": {"$regex": {"$regularExpression": {"pattern": "x", "options": "i"}}, "$options": "m"}}`, 51075, "options set in both $regex and $options"},
		{`{"$and": []}`, 2, "$and/$or/$nor must be a nonempty array"},
		{`{"$or": 1}`, 2, "$and/$or/$nor must be an array"},
		{`{"$or": [1]}`, 2, "$or/$and/$nor entries need to be full objects"},
		{`{"a": {"$not": 1}}`, 2, "$not needs a regex or a document"},
		{`{"a": {"$not": {}}}`, 2, "$not cannot be empty"},
		{`{"a": {"$type": "foo"}}`, 2, "Unknown type name alias: foo"},
		{`{"a": {"$type": 100}}`, 2, "Invalid numerical type code: 100"},
		{`{"a": {"$type": {}}}`, 14, "type must be represented as a number or a string"},
		{`{"a": {"$type": []}}`, 9, "a must match at least one type"},
		{`{"a": {"$mod": 1}}`, 2, "malformed mod, needs to be an array"},
		{`{"a": {"$mod": [4]}}`, 2, "malformed mod, not enough elements"},
		{`{"a": {"$mod": []}}`, 2, "malformed mod, not enough elements"},
		{`{"a": {"$mod": [4, 1, 3]}}`, 2, "malformed mod, too many elements"},
		{`{"a": {"$mod": ["x", 1]}}`, 2, "malformed mod, divisor not a number"},
		{`{"a": {"$mod": [0, 1]}}`, 2, "divisor cannot be 0"},
		{`{"a": {"$elemMatch": 1}}`, 2, "$elemMatch needs an Object"},
		{`{"a": {"$all": 1}}`, 2, "$all needs an array"},
		{`{"a": {"$all": [{"$elemMatch": {"b": 1}}, 5]}}`, 2, "$all/$elemMatch has to be consistent"},
		{`{"a": {"$all": [{"$gt": 1}]}}`, 2, "no $ expressions in $all"},
		{`{"a": {"$gt": {"$regularExpression": {"pattern": "x", "options": ""}}}}`, 2, "Can't have RegEx as arg to predicate over field 'a'."},
		{`{"a": {"$ne": {"$regularExpression": {"pattern": "x", "options": ""}}}}`, 2, "Can't have regex as arg to $ne."},
		{`{"a": {"$bitsAllSet": "x"}}`, 2, `a takes an Array, a number, or a BinData but received: $bitsAllSet: "x"`},
		{`{"a": {"$bitsAllSet": [-1]}}`, 2, "Failed to parse bit position. Expected a positive number in: 0: -1"},
		{`{"$where": "1"}`, 238, "$where needs server-side JavaScript, which Lode does not run"},
		{`{"a": {"$where": "1"}}`, 2, "$where cannot be applied to a field"},
		{`{"a": {"$elemMatch": {"$expr": {"$eq": [1, 1]}}}}`, 2, "$expr can only be applied to the top-level document"},
		{`{"a": {"$undefined": true}}`, 2, "cannot compare to undefined"},
		{`{"$text": "x"}`, 2, "$text expects an object"},
		{`{"$text": {"$search": 1}}`, 14, "$search requires a string value"},
		{`{"$text": {"$search": "x", "$caseSensitive": 1}}`, 14, "$caseSensitive requires a boolean value"},
		{`{"$text": {"$search": "x", "other": 1}}`, 2, "extra fields in $text"},
		{`{"a": {"$near": [0, 0], "$maxDistance": -1}}`, 16896, "$maxDistance must be non-negative"},
		{`{"a": {"$regex": "("}}`, 51091, "Regular expression is invalid: missing closing ): `(`"},
	}
	for _, c := range cases {
		_, err := Parse(doc(t, c.filter))
		checkErr(t, c.filter, err, c.code, c.msg)
	}
}

func checkErr(t *testing.T, what string, err error, code int32, msg string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want %d %q", what, code, msg)
		return
	}
	e := asErr(err)
	if int32(e.Code) != code || e.Msg != msg {
		t.Errorf("%s: got %d %q, want %d %q", what, e.Code, e.Msg, code, msg)
	}
}

func TestEmptyFilterMatchesAll(t *testing.T) {
	f, err := Parse(doc(t, `{}`))
	if err != nil {
		t.Fatal(err)
	}
	if !f.Match(doc(t, `{"x": 1}`)) {
		t.Fatal("empty filter must match")
	}
	if a, ok := f.Root().(*AndNode); !ok || len(a.Children) != 0 {
		t.Fatalf("root = %T", f.Root())
	}
}

func TestTreeShape(t *testing.T) {
	f, err := Parse(doc(t, `{"cat": {"$in": ["b", "a", "b"]}, "ts": {"$gte": 1, "$lt": 5}, "x": {"$ne": 2}}`))
	if err != nil {
		t.Fatal(err)
	}
	and, ok := f.Root().(*AndNode)
	if !ok || len(and.Children) != 4 {
		t.Fatalf("root %T %v", f.Root(), f.Root())
	}
	in := and.Children[0].(*InNode)
	if in.Path != "cat" || len(in.Values) != 2 || in.Values[0].StringValue() != "a" {
		t.Errorf("in node %+v", in)
	}
	if c := and.Children[1].(*CompareNode); c.Op != OpGTE || c.Path != "ts" {
		t.Errorf("gte node %+v", c)
	}
	if n, ok := and.Children[3].(*NotNode); !ok {
		t.Errorf("$ne is %T", and.Children[3])
	} else if c := n.Child.(*CompareNode); c.Op != OpEQ {
		t.Errorf("$ne child %v", c.Op)
	}
	r, _ := Parse(doc(t, `{"_id": {"$regex": "^123_"}}`))
	if p, ok := r.Root().(*RegexNode).Prefix(); !ok || p != "123_" {
		t.Errorf("prefix %q %v", p, ok)
	}
	_ = fmt.Sprint
}

func TestMatchPositionalLogical(t *testing.T) {
	d := doc(t, `{"a": [1, 2, 3], "b": [7, 8]}`)
	cases := []struct {
		filter string
		want   int
	}{
		// the last predicate that records an offset wins, as in MongoDB's AND
		{`{"a": 2, "b": 8}`, 1},
		{`{"b": 8, "a": 3}`, 2},
		// an $or of different fields records nothing (mongod's OR passes
		// no match details to its children; MongoDB's own
		// positional_projection test), one mongod reads as an $in does
		{`{"$or": [{"a": 9}, {"b": 7}]}`, -1},
		{`{"$or": [{"$and": [{"a": 3}, {"b": 9}]}, {"a": {"$exists": true}}]}`, -1},
		{`{"$or": [{"a": 3}, {"a": 2}]}`, 1},
		{`{"$or": [{"b": 8}]}`, 1},
		{`{"a": {"$elemMatch": {"$gt": 1}}}`, 1},
	}
	for _, c := range cases {
		f, err := Parse(doc(t, c.filter))
		if err != nil {
			t.Fatal(err)
		}
		ok, pos := f.MatchPositional(d)
		if !ok || pos != c.want {
			t.Errorf("%s: got (%v, %d) want %d", c.filter, ok, pos, c.want)
		}
	}
}
