package collation_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestReferenceExamples runs the examples of MongoDB's collation reference
// page ("Collation", "Collation Document" options) and of ICU's documented
// orderings through find with a collation.
func TestReferenceExamples(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	cafe := d.Collection("cafe")
	// The reference page's myColl.
	insert(t, cafe,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "category", Value: "café"}, {Key: "status", Value: "A"}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "category", Value: "cafe"}, {Key: "status", Value: "a"}},
		bson.D{{Key: "_id", Value: int32(3)}, {Key: "category", Value: "cafE"}, {Key: "status", Value: "a"}})
	french := d.Collection("french")
	insert(t, french,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "w", Value: "côté"}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "w", Value: "coté"}},
		bson.D{{Key: "_id", Value: int32(3)}, {Key: "w", Value: "côte"}},
		bson.D{{Key: "_id", Value: int32(4)}, {Key: "w", Value: "cote"}})
	nums := d.Collection("nums")
	insert(t, nums,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "n", Value: "10"}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "n", Value: "2"}},
		bson.D{{Key: "_id", Value: int32(3)}, {Key: "n", Value: "1"}})
	punct := d.Collection("punct")
	insert(t, punct,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: "black bird"}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "a", Value: "blackbird"}},
		bson.D{{Key: "_id", Value: int32(3)}, {Key: "a", Value: "black-bird"}},
		bson.D{{Key: "_id", Value: int32(4)}, {Key: "a", Value: "black"}})
	byID := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}})
	cases := []struct {
		name   string
		c      string
		filter bson.D
		sort   bson.D
		coll   bson.D
		want   []int32
	}{
		// "strength 1: compare base characters only".
		{"fr strength 1 ignores accents and case", "cafe", bson.D{{Key: "category", Value: "cafe"}}, nil,
			bson.D{{Key: "locale", Value: "fr"}, {Key: "strength", Value: 1}}, []int32{1, 2, 3}},
		// "strength 2: base characters and diacritics".
		{"fr strength 2 ignores case only", "cafe", bson.D{{Key: "category", Value: "cafe"}}, nil,
			bson.D{{Key: "locale", Value: "fr"}, {Key: "strength", Value: 2}}, []int32{2, 3}},
		// Default strength 3 tells case apart.
		{"fr default strength", "cafe", bson.D{{Key: "category", Value: "cafe"}}, nil,
			bson.D{{Key: "locale", Value: "fr"}}, []int32{2}},
		{"case-insensitive $in", "cafe", bson.D{{Key: "status", Value: bson.D{{Key: "$in", Value: bson.A{"a"}}}}}, nil,
			bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}}, []int32{1, 2, 3}},
		{"case-insensitive $ne", "cafe", bson.D{{Key: "status", Value: bson.D{{Key: "$ne", Value: "a"}}}}, nil,
			bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}}, []int32{}},
		{"simple collation is binary", "cafe", bson.D{{Key: "status", Value: "a"}}, nil,
			bson.D{{Key: "locale", Value: "simple"}}, []int32{2, 3}},
		// backwards: "strings with diacritics sort from the back of the
		// string", the French dictionary order of cote, côte, coté, côté.
		{"backwards sort", "french", nil, bson.D{{Key: "w", Value: 1}},
			bson.D{{Key: "locale", Value: "fr"}, {Key: "backwards", Value: true}}, []int32{4, 3, 2, 1}},
		{"fr_CA is backwards by default", "french", nil, bson.D{{Key: "w", Value: 1}},
			bson.D{{Key: "locale", Value: "fr_CA"}}, []int32{4, 3, 2, 1}},
		{"fr forwards", "french", nil, bson.D{{Key: "w", Value: 1}},
			bson.D{{Key: "locale", Value: "fr"}}, []int32{4, 2, 3, 1}},
		// numericOrdering: "10" is greater than "2".
		{"numericOrdering", "nums", nil, bson.D{{Key: "n", Value: 1}},
			bson.D{{Key: "locale", Value: "en"}, {Key: "numericOrdering", Value: true}}, []int32{3, 2, 1}},
		{"no numericOrdering", "nums", nil, bson.D{{Key: "n", Value: 1}},
			bson.D{{Key: "locale", Value: "en"}}, []int32{3, 1, 2}},
		{"numericOrdering $gt", "nums", bson.D{{Key: "n", Value: bson.D{{Key: "$gt", Value: "9"}}}}, nil,
			bson.D{{Key: "locale", Value: "en"}, {Key: "numericOrdering", Value: true}}, []int32{1}},
		// alternate shifted: whitespace and punctuation are ignorable.
		{"alternate shifted", "punct", bson.D{{Key: "a", Value: "blackbird"}}, nil,
			bson.D{{Key: "locale", Value: "en"}, {Key: "alternate", Value: "shifted"}}, []int32{1, 2, 3}},
		{"alternate non-ignorable", "punct", bson.D{{Key: "a", Value: "blackbird"}}, nil,
			bson.D{{Key: "locale", Value: "en"}}, []int32{2}},
		{"shifted at strength 4 tells punctuation apart", "punct", bson.D{{Key: "a", Value: "blackbird"}}, nil,
			bson.D{{Key: "locale", Value: "en"}, {Key: "alternate", Value: "shifted"}, {Key: "strength", Value: 4}}, []int32{2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := options.Find().SetCollation(coll(c.coll))
			if c.sort != nil {
				opts.SetSort(c.sort)
			} else {
				opts.SetSort(bson.D{{Key: "_id", Value: 1}})
			}
			filter := c.filter
			if filter == nil {
				filter = bson.D{}
			}
			got := ids(t, d.Collection(c.c), filter, opts)
			if !equalIDs(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
	// Without a collation, the same query is binary.
	if got := ids(t, cafe, bson.D{{Key: "category", Value: "cafe"}}, byID); !equalIDs(got, []int32{2}) {
		t.Fatalf("simple: got %v", got)
	}
}

// TestNestedStrings: strings inside documents and arrays compare under the
// collation too.
func TestNestedStrings(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := d.Collection("nested")
	insert(t, c,
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "tags", Value: bson.A{"Red", "GREEN"}}, {Key: "o", Value: bson.D{{Key: "k", Value: "ABC"}}}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "tags", Value: bson.A{"blue"}}, {Key: "o", Value: bson.D{{Key: "k", Value: "xyz"}}}})
	ci := options.Find().SetCollation(coll(bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}})).SetSort(bson.D{{Key: "_id", Value: 1}})
	for _, tc := range []struct {
		filter bson.D
		want   []int32
	}{
		{bson.D{{Key: "tags", Value: "green"}}, []int32{1}},
		{bson.D{{Key: "tags", Value: bson.D{{Key: "$all", Value: bson.A{"red", "green"}}}}}, []int32{1}},
		{bson.D{{Key: "tags", Value: bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "$eq", Value: "BLUE"}}}}}}, []int32{2}},
		{bson.D{{Key: "o", Value: bson.D{{Key: "k", Value: "abc"}}}}, []int32{1}},
		{bson.D{{Key: "tags", Value: bson.D{{Key: "$nin", Value: bson.A{"RED"}}}}}, []int32{2}},
		{bson.D{{Key: "tags", Value: bson.A{"red", "green"}}}, []int32{1}},
	} {
		if got := ids(t, c, tc.filter, ci); !equalIDs(got, tc.want) {
			t.Errorf("%v: got %v, want %v", tc.filter, got, tc.want)
		}
	}
}
