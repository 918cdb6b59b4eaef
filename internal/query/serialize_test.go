package query

import "testing"

// Serialize prints a filter as mongod 7.0 prints explain's parsedQuery:
// every predicate with its operator, $and flattened and one child
// unwrapped, children sorted by kind then path, $in sorted with a
// one-value $in as $eq, $ne and $nin under $not, $type as its set of type
// codes, $mod as longs, bit masks as positions.
func TestSerialize(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{}`, `{}`},
		{`{"a": 5}`, `{"a": {"$eq": 5}}`},
		{`{"a": 1, "b": 2}`, `{"$and": [{"a": {"$eq": 1}},{"b": {"$eq": 2}}]}`},
		{`{"b": 2, "a": 1}`, `{"$and": [{"a": {"$eq": 1}},{"b": {"$eq": 2}}]}`},
		{`{"a": {"$gt": 1, "$lt": 5}}`, `{"$and": [{"a": {"$lt": 5}},{"a": {"$gt": 1}}]}`},
		{`{"$and": [{"a": 1}, {"$and": [{"b": 2}, {"c": {"$in": [3, 1, 3]}}]}]}`, `{"$and": [{"a": {"$eq": 1}},{"b": {"$eq": 2}},{"c": {"$in": [1,3]}}]}`},
		{`{"a": {"$in": [7]}}`, `{"a": {"$eq": 7}}`},
		{`{"a": {"$in": [{"$regularExpression": {"pattern": "^x", "options": ""}}]}}`, `{"a": {"$regex": "^x"}}`},
		{`{"a": {"$in": [{"$regularExpression": {"pattern": "^x", "options": ""}}, 2]}}`, `{"a": {"$in": [2, {"$regularExpression": {"pattern": "^x", "options": ""}}]}}`},
		{`{"a": {"$ne": 3}}`, `{"a": {"$not": {"$eq": 3}}}`},
		{`{"a": {"$nin": [2, 1]}}`, `{"a": {"$not": {"$in": [1,2]}}}`},
		{`{"a": {"$exists": false}}`, `{"a": {"$not": {"$exists": true}}}`},
		{`{"$or": [{"b": 1}, {"a": 2}]}`, `{"$or": [{"a": {"$eq": 2}},{"b": {"$eq": 1}}]}`},
		{`{"$or": [{"a": 1}]}`, `{"a": {"$eq": 1}}`},
		{`{"$nor": [{"a": 1}]}`, `{"a": {"$not": {"$eq": 1}}}`},
		{`{"$nor": [{"b": 1}, {"a": 1}]}`, `{"$nor": [{"a": {"$eq": 1}},{"b": {"$eq": 1}}]}`},
		{`{"s": {"$regex": "^x", "$options": "i"}}`, `{"s": {"$regex": "^x","$options": "i"}}`},
		{`{"m": {"$elemMatch": {"v": 1, "k": "a"}}}`, `{"m": {"$elemMatch": {"$and": [{"k": {"$eq": "a"}},{"v": {"$eq": 1}}]}}}`},
		{`{"c": {"$elemMatch": {"$gt": 1, "$lt": 3}}}`, `{"c": {"$elemMatch": {"$lt": 3,"$gt": 1}}}`},
		{`{"c": {"$elemMatch": {"$ne": 3}}}`, `{"c": {"$elemMatch": {"$not": {"$eq": 3}}}}`},
		{`{"m": {"$all": [{"$elemMatch": {"k": "a"}}, {"$elemMatch": {"k": "b"}}]}}`, `{"$and": [{"m": {"$elemMatch": {"k": {"$eq": "a"}}}},{"m": {"$elemMatch": {"k": {"$eq": "b"}}}}]}`},
		{`{"a": {"$all": [2, 1]}, "b": 0}`, `{"$and": [{"a": {"$eq": 2}},{"a": {"$eq": 1}},{"b": {"$eq": 0}}]}`},
		{`{"a": {"$all": []}}`, `{"$alwaysFalse": 1}`},
		{`{"a": {"$type": "string"}}`, `{"a": {"$type": [2]}}`},
		{`{"a": {"$type": ["string", "number", "minKey", 1]}}`, `{"a": {"$type": ["number", -1, 1, 2]}}`},
		{`{"a": {"$size": 2}}`, `{"a": {"$size": 2}}`},
		{`{"a": {"$mod": [4.5, 1]}}`, `{"a": {"$mod": [{"$numberLong": "4"}, {"$numberLong": "1"}]}}`},
		{`{"a": {"$bitsAllSet": 6}}`, `{"a": {"$bitsAllSet": [1, 2]}}`},
		{`{"a": {"$not": {"$gt": 5}}}`, `{"a": {"$not": {"$gt": 5}}}`},
		{`{"a": {"$not": {"$size": 1}}}`, `{"a": {"$not": {"$size": 1}}}`},
		{`{"$comment": "x", "a": 1}`, `{"a": {"$eq": 1}}`},
		{`{"$alwaysTrue": 1}`, `{"$alwaysTrue": 1}`},
		{`{"$alwaysFalse": 1, "a": 1}`, `{"$alwaysFalse": 1}`},
		{`{"b": 1, "$expr": {"$eq": ["$a", 1]}}`, `{"$and": [{"b": {"$eq": 1}},{"$expr": {"$eq": ["$a", 1]}}]}`},
	}
	for _, tc := range cases {
		f, err := Parse(doc(t, tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if got, want := canon(t, f.Serialize()), canon(t, doc(t, tc.want)); got != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, want)
		}
	}
}

// Serialize leaves the match tree as it was: it matches as before, in
// the order it was parsed in.
func TestSerializeKeepsTree(t *testing.T) {
	f, err := Parse(doc(t, `{"b": 1, "a": {"$in": [2]}, "$or": [{"c": 1}, {"$or": [{"d": 1}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	before := f.Root().(*AndNode)
	kids := append([]Node(nil), before.Children...)
	f.Serialize()
	for i, k := range before.Children {
		if k != kids[i] {
			t.Fatalf("child %d changed", i)
		}
	}
	if _, ok := before.Children[1].(*InNode); !ok {
		t.Fatalf("the $in node was replaced: %T", before.Children[1])
	}
	if or := before.Children[2].(*OrNode); len(or.Children) != 2 {
		t.Fatalf("the $or was flattened in place")
	}
}
