package collation

import (
	"slices"
	"testing"

	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func doc(t *testing.T, d bson.D) bsoncore.Document {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustCollator(t *testing.T, d bson.D) *Collator {
	t.Helper()
	s, err := Parse(doc(t, d))
	if err != nil {
		t.Fatalf("Parse(%v): %v", d, err)
	}
	return New(s)
}

// TestOrderings checks each option against ICU's documented behaviour
// (MongoDB's collation reference page and ICU's collation concepts).
func TestOrderings(t *testing.T) {
	cases := []struct {
		name string
		coll bson.D
		in   []string
		want []string // sorted order
	}{
		{"french backwards (fr_CA default)", bson.D{{"locale", "fr_CA"}},
			[]string{"côté", "coté", "côte", "cote"}, []string{"cote", "côte", "coté", "côté"}},
		{"french backwards explicit", bson.D{{"locale", "fr"}, {"backwards", true}},
			[]string{"côté", "coté", "côte", "cote"}, []string{"cote", "côte", "coté", "côté"}},
		{"french no backwards", bson.D{{"locale", "fr"}},
			[]string{"côté", "coté", "côte", "cote"}, []string{"cote", "coté", "côte", "côté"}},
		{"numericOrdering", bson.D{{"locale", "en"}, {"numericOrdering", true}},
			[]string{"10", "2", "1"}, []string{"1", "2", "10"}},
		{"no numericOrdering", bson.D{{"locale", "en"}},
			[]string{"10", "2", "1"}, []string{"1", "10", "2"}},
		{"tertiary lowercase first", bson.D{{"locale", "en"}},
			[]string{"B", "b", "A", "a"}, []string{"a", "A", "b", "B"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			col := mustCollator(t, c.coll)
			got := slices.Clone(c.in)
			slices.SortStableFunc(got, func(a, b string) int { return col.CompareStrings([]byte(a), []byte(b)) })
			if !slices.Equal(got, c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestEqualities(t *testing.T) {
	cases := []struct {
		coll  bson.D
		a, b  string
		equal bool
	}{
		{bson.D{{"locale", "en"}, {"strength", 1}}, "role", "Rôle", true},
		{bson.D{{"locale", "en"}, {"strength", 2}}, "role", "Role", true},
		{bson.D{{"locale", "en"}, {"strength", 2}}, "role", "rôle", false},
		{bson.D{{"locale", "en"}, {"strength", 3}}, "role", "Role", false},
		{bson.D{{"locale", "en"}, {"alternate", "shifted"}}, "a-b", "ab", true},
		{bson.D{{"locale", "en"}, {"alternate", "shifted"}}, "a b", "ab", true},
		{bson.D{{"locale", "en"}}, "a-b", "ab", false},
		{bson.D{{"locale", "en"}, {"alternate", "shifted"}, {"strength", 4}}, "a-b", "ab", false},
		{bson.D{{"locale", "en"}, {"strength", 4}}, "a", "a", true},
		{bson.D{{"locale", "en"}, {"strength", 5}}, "\u00e5", "a\u030a", true},
	}
	for _, c := range cases {
		col := mustCollator(t, c.coll)
		if got := col.CompareStrings([]byte(c.a), []byte(c.b)) == 0; got != c.equal {
			t.Errorf("%v: %q == %q is %v, want %v", c.coll, c.a, c.b, got, c.equal)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		d    bson.D
		code errs.Code
	}{
		{bson.D{{"strength", 2}}, errs.Location40414},
		{bson.D{{"locale", 1}}, errs.TypeMismatch},
		{bson.D{{"locale", "simple"}, {"strength", 1}}, errs.FailedToParse},
		{bson.D{{"locale", ""}}, errs.BadValue},
		{bson.D{{"locale", "xx_YY"}}, errs.BadValue},
		{bson.D{{"locale", "en"}, {"strength", 6}}, errs.FailedToParse},
		{bson.D{{"locale", "en"}, {"strength", "1"}}, errs.TypeMismatch},
		{bson.D{{"locale", "en"}, {"strength", 1.5}}, errs.BadValue},
		{bson.D{{"locale", "en"}, {"caseFirst", "x"}}, errs.FailedToParse},
		{bson.D{{"locale", "en"}, {"alternate", "x"}}, errs.FailedToParse},
		{bson.D{{"locale", "en"}, {"maxVariable", "x"}}, errs.FailedToParse},
		{bson.D{{"locale", "en"}, {"caseLevel", 1}}, errs.TypeMismatch},
		{bson.D{{"locale", "en"}, {"foo", 1}}, errs.FailedToParse},
		{bson.D{{"locale", "en"}, {"version", "1.0"}}, errs.IncompatibleCollationVersion},
		{bson.D{{"locale", "en"}, {"strength", 1}, {"backwards", true}}, errs.BadValue},
		{bson.D{{"locale", "en"}, {"strength", 2}, {"caseFirst", "upper"}}, errs.BadValue},
		// What x/text cannot honour is refused, not approximated.
		{bson.D{{"locale", "en"}, {"caseFirst", "upper"}}, errs.NotImplemented},
		{bson.D{{"locale", "en"}, {"strength", 1}, {"caseLevel", true}}, errs.NotImplemented},
		{bson.D{{"locale", "en"}, {"alternate", "shifted"}, {"maxVariable", "space"}}, errs.NotImplemented},
		{bson.D{{"locale", "da"}}, errs.NotImplemented},
	}
	for _, c := range cases {
		_, err := Parse(doc(t, c.d))
		if e := errs.As(err); e == nil || e.Code != c.code {
			t.Errorf("Parse(%v) = %v, want code %d", c.d, err, c.code)
		}
	}
}

func TestNormalisedSpec(t *testing.T) {
	s, err := Parse(doc(t, bson.D{{"locale", "fr_CA"}, {"strength", 2}}))
	if err != nil {
		t.Fatal(err)
	}
	want := doc(t, bson.D{{"locale", "fr_CA"}, {"caseLevel", false}, {"caseFirst", "off"}, {"strength", int32(2)},
		{"numericOrdering", false}, {"alternate", "non-ignorable"}, {"maxVariable", "punct"},
		{"normalization", false}, {"backwards", true}, {"version", "57.1"}})
	if got := s.Document(); string(got) != string(want) {
		t.Fatalf("got %s, want %s", got, want)
	}
	if s, err := Parse(doc(t, bson.D{{"locale", "simple"}})); s != nil || err != nil {
		t.Fatalf("simple: %v %v", s, err)
	}
}

func TestTransformNested(t *testing.T) {
	col := mustCollator(t, bson.D{{"locale", "en"}, {"strength", 2}})
	a := bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: doc(t, bson.D{{"x", bson.A{"ABC", 1}}})}
	b := bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: doc(t, bson.D{{"x", bson.A{"abc", 1}}})}
	if col.Compare(a, b) != 0 {
		t.Fatal("nested strings should compare equal at strength 2")
	}
	n := bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: doc(t, bson.D{{"x", 1}})}
	if got := col.Transform(n); string(got.Data) != string(n.Data) {
		t.Fatal("a value without strings must be unchanged")
	}
}
