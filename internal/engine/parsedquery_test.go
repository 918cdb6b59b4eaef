package engine

import "testing"

// parsedQuery renders filters as mongod 7.0 prints explain's parsedQuery.
func TestParsedQuery(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{}`, `{}`},
		{`{"a": 5}`, `{"a": {"$eq": 5}}`},
		{`{"a": 1, "b": 2}`, `{"$and": [{"a": {"$eq": 1}},{"b": {"$eq": 2}}]}`},
		{`{"b": 2, "a": 1}`, `{"$and": [{"a": {"$eq": 1}},{"b": {"$eq": 2}}]}`},
		{`{"a": {"$gt": 1, "$lt": 5}}`, `{"$and": [{"a": {"$lt": 5}},{"a": {"$gt": 1}}]}`},
		{`{"$and": [{"a": 1}, {"$and": [{"b": 2}, {"c": {"$in": [3, 1, 3]}}]}]}`, `{"$and": [{"a": {"$eq": 1}},{"b": {"$eq": 2}},{"c": {"$in": [1,3]}}]}`},
		{`{"a": {"$in": [7]}}`, `{"a": {"$eq": 7}}`},
		{`{"a": {"$ne": 3}}`, `{"a": {"$not": {"$eq": 3}}}`},
		{`{"a": {"$nin": [2, 1]}}`, `{"a": {"$not": {"$in": [1,2]}}}`},
		{`{"a": {"$exists": false}}`, `{"a": {"$not": {"$exists": true}}}`},
		{`{"$or": [{"b": 1}, {"a": 2}]}`, `{"$or": [{"a": {"$eq": 2}},{"b": {"$eq": 1}}]}`},
		{`{"$or": [{"a": 1}]}`, `{"a": {"$eq": 1}}`},
		{`{"s": {"$regex": "^x", "$options": "i"}}`, `{"s": {"$regex": "^x","$options": "i"}}`},
		{`{"m": {"$elemMatch": {"v": 1, "k": "a"}}}`, `{"m": {"$elemMatch": {"$and": [{"k": {"$eq": "a"}},{"v": {"$eq": 1}}]}}}`},
		{`{"c": {"$elemMatch": {"$gt": 1, "$lt": 3}}}`, `{"c": {"$elemMatch": {"$lt": 3,"$gt": 1}}}`},
		{`{"m": {"$all": [{"$elemMatch": {"k": "a"}}, {"$elemMatch": {"k": "b"}}]}}`, `{"$and": [{"m": {"$elemMatch": {"k": {"$eq": "a"}}}},{"m": {"$elemMatch": {"k": {"$eq": "b"}}}}]}`},
		{`{"a": {"$type": "string"}}`, `{"a": {"$type": "string"}}`}, // not rendered: shown as given
	}
	for _, tc := range cases {
		got := parsedQuery(extDoc(t, tc.in))
		want := extDoc(t, tc.want)
		if got.String() != want.String() {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, want)
		}
	}
}
