package accum

import (
	"testing"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func docOf(t *testing.T, s string) bsoncore.Document {
	t.Helper()
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(s), false, &d); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	b, _ := bson.Marshal(d)
	return b
}

func valOf(t *testing.T, s string) bsoncore.Value { return docOf(t, `{"v": `+s+`}`).Lookup("v") }

// run feeds docs through accumulator name/arg and returns the result.
func run(t *testing.T, name, arg string, docs []string) (bsoncore.Value, error) {
	t.Helper()
	f, err := New(name, valOf(t, arg), expr.NewParseContext())
	if err != nil {
		return bsoncore.Value{}, err
	}
	a, err := f.NewAccumulator(docOf(t, `{"_id": null}`), nil)
	if err != nil {
		return bsoncore.Value{}, err
	}
	for _, d := range docs {
		v, err := f.Input(docOf(t, d), nil)
		if err != nil {
			return bsoncore.Value{}, err
		}
		if err := a.Add(v); err != nil {
			return bsoncore.Value{}, err
		}
	}
	if a.MemUsage() < 0 {
		t.Fatal("negative memory")
	}
	return a.Result()
}

func same(a, b bsoncore.Value) bool {
	if a.Type != b.Type {
		return false
	}
	if a.Type == bsoncore.TypeArray {
		av, bv := expr.ArrayValues(a), expr.ArrayValues(b)
		if len(av) != len(bv) {
			return false
		}
		for i := range av {
			if !same(av[i], bv[i]) {
				return false
			}
		}
		return true
	}
	return bsonutil.Compare(a, b) == 0
}

var sales = []string{
	`{"item": "abc", "price": 10, "quantity": 2, "day": 1}`,
	`{"item": "jkl", "price": 20, "quantity": 1, "day": 1}`,
	`{"item": "xyz", "price": 5, "quantity": 5, "day": 2}`,
	`{"item": "abc", "price": 10, "quantity": 10, "day": 2}`,
	`{"item": "xyz", "price": 5, "quantity": 10, "day": 3}`,
}

// players are the documents of the $bottom/$bottomN reference pages'
// null example.
var players = []string{`{"p": "A", "s": 1}`, `{"p": "B", "s": 2}`, `{"p": "C", "s": 3}`, `{"p": "D"}`, `{"p": "E", "s": null}`}

// accCase is one accumulator run with its expected result or error code.
type accCase struct {
	name, arg string
	docs      []string
	want      string
	code      errs.Code
}

var accCases = []accCase{
	{"$sum", `1`, sales, `5`, 0},
	{"$sum", `"$quantity"`, sales, `28`, 0},
	{"$sum", `{"$multiply": ["$price", "$quantity"]}`, sales, `215`, 0},
	{"$sum", `"$x"`, []string{`{"x": 2147483647}`, `{"x": 1}`}, `{"$numberLong": "2147483648"}`, 0},
	{"$sum", `"$x"`, []string{`{"x": {"$numberLong": "9223372036854775807"}}`, `{"x": 1}`}, `9223372036854775808.0`, 0},
	{"$sum", `"$x"`, []string{`{"x": 1}`, `{"x": 1.5}`}, `2.5`, 0},
	{"$sum", `"$x"`, []string{`{"x": 1}`, `{"x": {"$numberDecimal": "1.5"}}`}, `{"$numberDecimal": "2.5"}`, 0},
	{"$sum", `"$x"`, []string{`{"x": "a"}`, `{}`}, `0`, 0},
	{"$sum", `["$a"]`, nil, ``, 40237},
	{"$count", `{}`, sales, `5`, 0},
	{"$avg", `"$quantity"`, sales, `5.6`, 0},
	{"$avg", `"$x"`, []string{`{}`}, `null`, 0},
	{"$avg", `"$x"`, []string{`{"x": {"$numberDecimal": "1"}}`, `{"x": 2}`}, `{"$numberDecimal": "1.5"}`, 0},
	{"$min", `"$quantity"`, sales, `1`, 0},
	{"$max", `"$x"`, []string{`{"x": null}`, `{"x": 3}`, `{}`, `{"x": "a"}`}, `"a"`, 0},
	{"$max", `"$x"`, []string{`{}`}, `null`, 0},
	{"$first", `"$item"`, sales, `"abc"`, 0},
	{"$last", `"$item"`, sales, `"xyz"`, 0},
	{"$first", `"$x"`, []string{`{}`, `{"x": 1}`}, `null`, 0},
	{"$push", `"$day"`, sales, `[1, 1, 2, 2, 3]`, 0},
	{"$push", `"$x"`, []string{`{}`, `{"x": 1}`}, `[1]`, 0},
	{"$addToSet", `"$item"`, sales, `["abc", "jkl", "xyz"]`, 0},
	// population std dev of 62, 74, 80 = sqrt(168/3)
	{"$stdDevPop", `"$s"`, []string{`{"s": 62}`, `{"s": 74}`, `{"s": 80}`}, `7.483314773547883`, 0},
	{"$stdDevSamp", `"$s"`, []string{`{"s": 1}`}, `null`, 0},
	{"$stdDevSamp", `"$s"`, []string{`{"s": 2}`, `{"s": 4}`}, `1.4142135623730951`, 0},
	{"$mergeObjects", `"$q"`, []string{`{"q": {"a": 1, "b": 1}}`, `{"q": null}`, `{"q": {"b": 2}}`}, `{"a": 1, "b": 2}`, 0},
	{"$top", `{"output": ["$item", "$price"], "sortBy": {"price": -1}}`, sales, `["jkl", 20]`, 0},
	{"$bottom", `{"output": "$item", "sortBy": {"price": -1}}`, sales, `"xyz"`, 0},
	{"$topN", `{"n": 2, "output": "$quantity", "sortBy": {"quantity": 1}}`, sales, `[1, 2]`, 0},
	{"$bottomN", `{"n": 2, "output": "$quantity", "sortBy": {"quantity": 1}}`, sales, `[10, 10]`, 0},
	// The reference page's null example: sortBy score descending puts
	// D (missing) and E (null) last, in that order; $bottomN returns the
	// last three in sort order and $bottom the first seen of the tie.
	{"$bottomN", `{"n": 3, "output": "$p", "sortBy": {"s": -1}}`, players, `["A", "D", "E"]`, 0},
	{"$bottom", `{"output": "$p", "sortBy": {"s": -1}}`, players, `"D"`, 0},
	{"$topN", `{"n": 2, "output": "$p", "sortBy": {"s": -1}}`, players, `["C", "B"]`, 0},
	{"$firstN", `{"input": "$x", "n": 2}`, []string{`{}`, `{"x": 1}`, `{"x": 2}`}, `[null, 1]`, 0},
	{"$lastN", `{"input": "$quantity", "n": 2}`, sales, `[10, 10]`, 0},
	{"$maxN", `{"input": "$quantity", "n": 3}`, sales, `[10, 10, 5]`, 0},
	{"$minN", `{"input": "$x", "n": 2}`, []string{`{"x": null}`, `{"x": 3}`, `{"x": 1}`, `{"x": 2}`}, `[1, 2]`, 0},
	{"$firstN", `{"input": "$x", "n": -1}`, []string{`{}`}, ``, 5787908},
	{"$foo", `1`, nil, ``, 15952},
	// The $percentile and $median pages' $group examples over testScores.
	{"$percentile", `{"input": "$test01", "p": [0.95], "method": "approximate"}`, testScores, `[67.0]`, 0},
	{"$percentile", `{"input": "$test01", "p": [0.5, 0.75, 0.9, 0.95], "method": "approximate"}`, testScores, `[62.0, 64.0, 67.0, 67.0]`, 0},
	{"$percentile", `{"input": "$test02", "p": [0.5, 0.75, 0.9, 0.95], "method": "approximate"}`, testScores, `[81.0, 82.0, 83.0, 83.0]`, 0},
	{"$percentile", `{"input": "$test03", "p": [0.5, 0.75, 0.9, 0.95], "method": "approximate"}`, testScores, `[78.0, 79.0, 80.0, 80.0]`, 0},
	{"$percentile", `{"input": "$test03", "p": [0.9, 0.5, 0.75, 0.95], "method": "approximate"}`, testScores, `[80.0, 78.0, 79.0, 80.0]`, 0},
	{"$median", `{"input": "$test01", "method": "approximate"}`, testScores, `62.0`, 0},
	{"$median", `{"input": "$x", "method": "approximate"}`, []string{`{"x": "a"}`, `{}`, `{"x": null}`}, `null`, 0},
	{"$percentile", `{"input": "$x", "p": [0.5, 1], "method": "approximate"}`, []string{`{"x": "a"}`}, `[null, null]`, 0},
	{"$median", `{"input": "$x", "method": "approximate"}`, []string{`{"x": {"$numberDecimal": "1.5"}}`, `{"x": true}`, `{"x": {"$numberLong": "3"}}`, `{"x": {"$numberDouble": "NaN"}}`}, `1.5`, 0},
	{"$percentile", `{"input": "$x", "p": [0, 0.5, 1], "method": "approximate"}`, []string{`{"x": {"$numberDouble": "Infinity"}}`, `{"x": 1}`, `{"x": {"$numberDouble": "-Infinity"}}`}, `[{"$numberDouble": "-Infinity"}, 1.0, {"$numberDouble": "Infinity"}]`, 0},
	{"$median", `5`, nil, ``, 7436100},
	{"$percentile", `5`, nil, ``, 7429703},
	{"$median", `[1]`, nil, ``, 40237},
	{"$median", `{"input": "$x", "method": "continuous"}`, nil, ``, 2},
	{"$percentile", `{"input": "$x", "p": [2], "method": "approximate"}`, nil, ``, 7750303},
	{"$accumulator", `{}`, nil, ``, 238},
}

// testScores is the collection of the $percentile and $median pages.
var testScores = []string{
	`{"studentId": "2345", "test01": 62, "test02": 81, "test03": 80}`,
	`{"studentId": "2356", "test01": 60, "test02": 83, "test03": 79}`,
	`{"studentId": "2358", "test01": 67, "test02": 82, "test03": 78}`,
	`{"studentId": "2367", "test01": 64, "test02": 72, "test03": 77}`,
	`{"studentId": "2369", "test01": 60, "test02": 53, "test03": 72}`,
}

func TestAccumulators(t *testing.T) {
	for _, c := range accCases {
		t.Run(c.name+c.arg, func(t *testing.T) {
			got, err := run(t, c.name, c.arg, c.docs)
			if c.code != 0 {
				if !errs.Is(err, c.code) {
					t.Fatalf("want code %d, got %v", c.code, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := valOf(t, c.want); !same(got, want) {
				t.Fatalf("got %v, want %v", got, want)
			}
		})
	}
}

// TestPartialMerge splits each case's input at every point, folds the two
// parts separately and merges their partial states (as $group does after
// spilling): the result must equal the direct result, numeric type
// included.
func TestPartialMerge(t *testing.T) {
	for _, c := range accCases {
		if c.code != 0 {
			continue
		}
		want, err := run(t, c.name, c.arg, c.docs)
		if err != nil {
			t.Fatal(err)
		}
		f, err := New(c.name, valOf(t, c.arg), expr.NewParseContext())
		if err != nil {
			t.Fatal(err)
		}
		key := docOf(t, `{"_id": null}`)
		for split := 0; split <= len(c.docs); split++ {
			var parts []bsoncore.Value
			for _, chunk := range [][]string{c.docs[:split], c.docs[split:]} {
				a, _ := f.NewAccumulator(key, nil)
				for _, d := range chunk {
					v, err := f.Input(docOf(t, d), nil)
					if err != nil {
						t.Fatal(err)
					}
					if err := a.Add(v); err != nil {
						t.Fatal(err)
					}
				}
				p, err := a.Partial()
				if err != nil {
					t.Fatal(err)
				}
				parts = append(parts, p)
			}
			m, _ := f.NewAccumulator(key, nil)
			for _, p := range parts {
				if err := m.Merge(p); err != nil {
					t.Fatalf("%s %s split %d: %v", c.name, c.arg, split, err)
				}
			}
			got, err := m.Result()
			if err != nil {
				t.Fatal(err)
			}
			if got.Type != want.Type || !same(got, want) {
				t.Fatalf("%s %s split %d: got %v (%v), want %v (%v)", c.name, c.arg, split, got, got.Type, want, want.Type)
			}
		}
	}
}
