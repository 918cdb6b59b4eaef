package expr

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func TestCore(t *testing.T) {
	runCases(t, []tc{
		{expr: `"$a.b"`, doc: `{"a": {"b": 5}}`, want: `5`},
		{expr: `"$a.b"`, doc: `{"a": [{"b": 1}, {"c": 2}, {"b": 3}, 7]}`, want: `[1, 3]`},
		// a nested array is not an object: skipped, as in mongod's ExpressionFieldPath
		{expr: `"$a.b"`, doc: `{"a": [[{"b": 1}], {"b": 2}]}`, want: `[2]`},
		{expr: `"$a.b"`, doc: `{"a": 1}`, want: ``},
		{expr: `"$x"`, doc: `{}`, want: ``},
		{expr: `"$$ROOT.a"`, doc: `{"a": 1}`, want: `1`},
		{expr: `"$$CURRENT"`, doc: `{"a": 1}`, want: `{"a": 1}`},
		{expr: `"$$REMOVE"`, want: ``},
		{expr: `"$$NOW"`, want: `{"$date": "2024-01-01T00:00:00Z"}`},
		{expr: `"abc"`, want: `"abc"`},
		{expr: `{"$literal": "$a"}`, doc: `{"a": 1}`, want: `"$a"`},
		// $const is mongod's other name for $literal (explain prints it).
		{expr: `{"$const": "$a"}`, doc: `{"a": 1}`, want: `"$a"`},
		// An array of constants holds their values, not the operators.
		{expr: `[{"$literal": 5}, {"$const": {"a": 1}}, 2]`, want: `[5, {"a": 1}, 2]`},
		{expr: `{"x": "$a", "y": {"$add": [1, 1]}, "z": "$missing"}`, doc: `{"a": 1}`, want: `{"x": 1, "y": 2}`},
		{expr: `["$a", "$missing", 3]`, doc: `{"a": 1}`, want: `[1, null, 3]`},
		{expr: `{"$foo": 1}`, code: 168},
		{expr: `"$"`, code: 16872},
		{expr: `"$a..b"`, code: 15998},
		{expr: `"$a."`, code: 40353},
		{expr: `"$$undefinedVar"`, code: 17276},
		{expr: `{"$add": [1, 2], "x": 1}`, code: 15983},
		{expr: `{"a.b": 1}`, code: 16412},
		// comparisons and booleans
		{expr: `{"$eq": ["$a", 1]}`, doc: `{"a": 1.0}`, want: `true`},
		{expr: `{"$gt": ["$qty", 250]}`, doc: `{"qty": 300}`, want: `true`},
		{expr: `{"$lt": ["$missing", 0]}`, want: `true`},
		{expr: `{"$eq": ["$missing", null]}`, want: `false`},
		{expr: `{"$lt": ["$missing", null]}`, want: `true`},
		{expr: `{"$cmp": ["$qty", 250]}`, doc: `{"qty": 200}`, want: `-1`},
		{expr: `{"$ne": ["a", 1]}`, want: `true`},
		{expr: `{"$and": [1, "green"]}`, want: `true`},
		{expr: `{"$and": [[], null]}`, want: `false`},
		{expr: `{"$and": []}`, want: `true`},
		{expr: `{"$or": [0, "$missing"]}`, want: `false`},
		{expr: `{"$not": [[false]]}`, want: `false`},
		{expr: `{"$not": [0]}`, want: `true`},
		// conditionals
		{expr: `{"$cond": {"if": {"$gte": ["$qty", 250]}, "then": 30, "else": 20}}`, doc: `{"qty": 300}`, want: `30`},
		{expr: `{"$cond": [{"$gte": ["$qty", 250]}, 30, 20]}`, doc: `{"qty": 100}`, want: `20`},
		{expr: `{"$ifNull": ["$description", "Unspecified"]}`, doc: `{"description": null}`, want: `"Unspecified"`},
		{expr: `{"$ifNull": ["$a", "$b", "x"]}`, doc: `{"b": 2}`, want: `2`},
		{expr: `{"$ifNull": ["$a", "$b"]}`, doc: `{}`, want: ``},
		{expr: `{"$switch": {"branches": [{"case": {"$gte": ["$s", 90]}, "then": "A"}, {"case": {"$gte": ["$s", 80]}, "then": "B"}], "default": "F"}}`, doc: `{"s": 85}`, want: `"B"`},
		{expr: `{"$switch": {"branches": [{"case": false, "then": 1}]}}`, code: 40066},
		// variables
		{expr: `{"$let": {"vars": {"total": {"$add": ["$price", "$tax"]}, "discounted": {"$cond": {"if": "$applyDiscount", "then": 0.9, "else": 1}}}, "in": {"$multiply": ["$$total", "$$discounted"]}}}`, doc: `{"price": 10, "tax": 0.5, "applyDiscount": true}`, want: `9.450000000000001`},
		{expr: `{"$let": {"vars": {"x": 1}, "in": {"$let": {"vars": {"x": {"$add": ["$$x", 1]}}, "in": "$$x"}}}}`, want: `2`},
		// A defined name gets mongod's write checks: 16867, as MongoDB's own
		// $filter test expects for 'as'.
		{expr: `{"$let": {"vars": {"Bad": 1}, "in": 1}}`, code: 16867},
		{expr: `{"$filter": {"input": [1], "as": "$x", "cond": true}}`, code: 16867},
		{expr: `{"$map": {"input": "$q", "as": "g", "in": {"$add": ["$$g", 2]}}}`, doc: `{"q": [5, 6, 7]}`, want: `[7, 8, 9]`},
		{expr: `{"$map": {"input": "$q", "in": {"$multiply": ["$$this", 2]}}}`, doc: `{"q": [1, 2]}`, want: `[2, 4]`},
		{expr: `{"$filter": {"input": "$items", "as": "item", "cond": {"$gte": ["$$item.price", 100]}}}`, doc: `{"items": [{"item_id": 43, "quantity": 2, "price": 10}, {"item_id": 2, "quantity": 1, "price": 240}]}`, want: `[{"item_id": 2, "quantity": 1, "price": 240}]`},
		{expr: `{"$filter": {"input": [1, "a", 2, null, 3.1, {"$numberLong": "4"}, "5"], "as": "num", "cond": {"$isNumber": "$$num"}, "limit": 2}}`, want: `[1, 2]`},
		{expr: `{"$reduce": {"input": ["a", "b", "c"], "initialValue": "", "in": {"$concat": ["$$value", "$$this"]}}}`, want: `"abc"`},
		{expr: `{"$reduce": {"input": [[3, 4], [5, 6]], "initialValue": [1, 2], "in": {"$concatArrays": ["$$value", "$$this"]}}}`, want: `[1, 2, 3, 4, 5, 6]`},
		{expr: `{"$reduce": {"input": [1, 2, 3, 4], "initialValue": {"sum": 5, "product": 2}, "in": {"sum": {"$add": ["$$value.sum", "$$this"]}, "product": {"$multiply": ["$$value.product", "$$this"]}}}}`, want: `{"sum": 15, "product": 48}`},
	})
}

func TestTruthy(t *testing.T) {
	cases := []struct {
		v    string
		want bool
	}{
		{`false`, false}, {`null`, false}, {`0`, false}, {`0.0`, false},
		{`{"$numberLong": "0"}`, false}, {`{"$numberDecimal": "0"}`, false},
		{`{"$undefined": true}`, false}, {`[]`, true}, {`""`, true}, {`1`, true}, {`{}`, true},
	}
	for _, c := range cases {
		if got := Truthy(mustVal(t, c.v)); got != c.want {
			t.Errorf("Truthy(%s) = %v", c.v, got)
		}
	}
	if Truthy(Missing) {
		t.Error("missing is truthy")
	}
}

func TestCommandLet(t *testing.T) {
	pc := NewParseContext()
	slot := pc.Define("target")
	e, err := Parse(mustVal(t, `{"$eq": ["$a", "$$target"]}`), pc)
	if err != nil {
		t.Fatal(err)
	}
	vars := &Vars{}
	vars.Set(slot, Int32(3))
	got, err := e.Eval(mustDoc(t, `{"a": 3}`), vars)
	if err != nil || !Truthy(got) {
		t.Fatalf("got %v %v", got, err)
	}
}

func TestFieldPathNoAlloc(t *testing.T) {
	e, _ := Parse(mustVal(t, `"$a.b"`), nil)
	d := mustDoc(t, `{"x": 1, "a": {"b": 5}}`)
	n := testing.AllocsPerRun(100, func() { _, _ = e.Eval(d, nil) })
	if n != 0 {
		t.Fatalf("field path eval allocates %v times", n)
	}
	if p, ok := AsFieldPath(e); !ok || p != "a.b" {
		t.Fatalf("AsFieldPath = %q %v", p, ok)
	}
}

func BenchmarkFieldPath(b *testing.B) {
	e, _ := Parse(mustVal(b, `{"$gt": ["$a.b", 3]}`), nil)
	d := mustDoc(b, `{"x": 1, "a": {"b": 5}}`)
	for b.Loop() {
		_, _ = e.Eval(d, nil)
	}
}

func FuzzParse(f *testing.F) {
	seeds := []string{`{"$add": [1, "$a"]}`, `{"$map": {"input": "$a", "in": "$$this"}}`, `"$a.b"`, `{"$dateToString": {"date": "$d", "format": "%Y"}}`, `{"$let": {"vars": {"x": 1}, "in": "$$x"}}`}
	for _, s := range seeds {
		f.Add([]byte(mustDoc(f, `{"v": `+s+`}`)))
	}
	doc := mustDoc(f, `{"a": [1, {"b": 2}], "d": {"$date": "2020-01-01T00:00:00Z"}, "s": "hello"}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		if bsoncore.Document(data).Validate() != nil {
			return
		}
		el, err := bsoncore.Document(data).IndexErr(0)
		if err != nil {
			return
		}
		e, err := Parse(el.Value(), NewParseContext())
		if err != nil {
			return
		}
		_, _ = e.Eval(doc, &Vars{})
	})
}
