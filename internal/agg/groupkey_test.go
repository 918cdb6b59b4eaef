package agg_test

import "testing"

// The group key encoding: strings hash by length and bytes, numbers by
// value whatever their type, missing apart from null; date parts of one
// field read once per document still give each document's own parts.
func TestGroupKeyEncoding(t *testing.T) {
	cat := openCat(t)
	insert(t, cat, "k", `[
		{"_id":1,"p":"ab","q":"c","n":1,"d":{"$date":"2000-10-01T23:59:59Z"}},
		{"_id":2,"p":"a","q":"bc","n":{"$numberLong":"1"},"d":{"$date":"2000-10-02T00:00:00Z"}},
		{"_id":3,"p":{"$symbol":"ab"},"q":"c","n":1.0,"d":{"$date":"2000-10-01T00:00:00Z"}},
		{"_id":4,"p":"a\u0000b","q":"c","n":2,"d":{"$date":"2001-01-01T00:00:00Z"}},
		{"_id":5,"q":"c","n":null,"d":{"$date":"2000-12-31T23:00:00Z"}},
		{"_id":6,"p":null,"q":"c","n":2.0,"d":null}
	]`)
	tests := []struct{ name, pipeline, want string }{
		{"strings and symbols", `[{"$group":{"_id":{"p":"$p","q":"$q"},"ids":{"$push":"$_id"}}}]`,
			`[{"_id":{"p":"ab","q":"c"},"ids":[1,3]},{"_id":{"p":"a","q":"bc"},"ids":[2]},{"_id":{"p":"a\u0000b","q":"c"},"ids":[4]},{"_id":{"q":"c"},"ids":[5]},{"_id":{"p":null,"q":"c"},"ids":[6]}]`},
		{"numbers by value", `[{"$group":{"_id":{"n":"$n"},"ids":{"$push":"$_id"}}}]`,
			`[{"_id":{"n":1},"ids":[1,2,3]},{"_id":{"n":2},"ids":[4,6]},{"_id":{"n":null},"ids":[5]}]`},
		{"date parts folded", `[{"$project":{"y":{"$year":"$d"},"m":{"$month":"$d"},"day":{"$dayOfMonth":"$d"},"h":{"$hour":"$d"}}},{"$group":{"_id":{"y":"$y","m":"$m","d":"$day","h":"$h"},"ids":{"$push":"$_id"}}}]`,
			`[{"_id":{"y":2000,"m":10,"d":1,"h":23},"ids":[1]},{"_id":{"y":2000,"m":10,"d":2,"h":0},"ids":[2]},{"_id":{"y":2000,"m":10,"d":1,"h":0},"ids":[3]},{"_id":{"y":2001,"m":1,"d":1,"h":0},"ids":[4]},{"_id":{"y":2000,"m":12,"d":31,"h":23},"ids":[5]},{"_id":{"y":null,"m":null,"d":null,"h":null},"ids":[6]}]`},
		{"date parts in a zone", `[{"$group":{"_id":{"y":{"$year":{"date":"$d","timezone":"+01:00"}},"d":{"$dayOfMonth":{"date":"$d","timezone":"+01:00"}},"utc":{"$dayOfMonth":"$d"}},"ids":{"$push":"$_id"}}},{"$match":{"ids":{"$in":[1,5]}}}]`,
			`[{"_id":{"y":2000,"d":2,"utc":1},"ids":[1]},{"_id":{"y":2001,"d":1,"utc":31},"ids":[5]}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := runPipeline(t, cat, "k", tc.pipeline, runOpts{})
			if err != nil {
				t.Fatal(err)
			}
			sameDocs(t, got, tc.want, false)
		})
	}
}
