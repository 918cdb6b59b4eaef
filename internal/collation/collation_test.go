package collation

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"
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
		{"french backwards (fr_CA default)", bson.D{{Key: "locale", Value: "fr_CA"}},
			[]string{"côté", "coté", "côte", "cote"}, []string{"cote", "côte", "coté", "côté"}},
		{"french backwards explicit", bson.D{{Key: "locale", Value: "fr"}, {Key: "backwards", Value: true}},
			[]string{"côté", "coté", "côte", "cote"}, []string{"cote", "côte", "coté", "côté"}},
		{"french no backwards", bson.D{{Key: "locale", Value: "fr"}},
			[]string{"côté", "coté", "côte", "cote"}, []string{"cote", "coté", "côte", "côté"}},
		{"numericOrdering", bson.D{{Key: "locale", Value: "en"}, {Key: "numericOrdering", Value: true}},
			[]string{"10", "2", "1"}, []string{"1", "2", "10"}},
		{"no numericOrdering", bson.D{{Key: "locale", Value: "en"}},
			[]string{"10", "2", "1"}, []string{"1", "10", "2"}},
		{"tertiary lowercase first", bson.D{{Key: "locale", Value: "en"}},
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
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 1}}, "role", "Rôle", true},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}}, "role", "Role", true},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}}, "role", "rôle", false},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 3}}, "role", "Role", false},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "alternate", Value: "shifted"}}, "a-b", "ab", true},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "alternate", Value: "shifted"}}, "a b", "ab", true},
		{bson.D{{Key: "locale", Value: "en"}}, "a-b", "ab", false},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "alternate", Value: "shifted"}, {Key: "strength", Value: 4}}, "a-b", "ab", false},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 4}}, "a", "a", true},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 5}}, "\u00e5", "a\u030a", true},
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
		{bson.D{{Key: "strength", Value: 2}}, errs.Location40414},
		{bson.D{{Key: "locale", Value: 1}}, errs.TypeMismatch},
		{bson.D{{Key: "locale", Value: "simple"}, {Key: "strength", Value: 1}}, errs.FailedToParse},
		{bson.D{{Key: "locale", Value: ""}}, errs.BadValue},
		{bson.D{{Key: "locale", Value: "xx_YY"}}, errs.BadValue},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 6}}, errs.FailedToParse},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: "1"}}, errs.TypeMismatch},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 1.5}}, errs.BadValue},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "caseFirst", Value: "x"}}, errs.FailedToParse},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "alternate", Value: "x"}}, errs.FailedToParse},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "maxVariable", Value: "x"}}, errs.FailedToParse},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "caseLevel", Value: 1}}, errs.TypeMismatch},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "foo", Value: 1}}, errs.FailedToParse},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "version", Value: "1.0"}}, errs.IncompatibleCollationVersion},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 1}, {Key: "backwards", Value: true}}, errs.BadValue},
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}, {Key: "caseFirst", Value: "upper"}}, errs.BadValue},
		// caseFirst needs the tertiary level or the case level, also
		// when it is the locale's default (da's is "upper").
		{bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 1}, {Key: "caseFirst", Value: "lower"}}, errs.BadValue},
		{bson.D{{Key: "locale", Value: "da"}, {Key: "strength", Value: 2}}, errs.BadValue},
		// What x/text cannot honour is refused, not approximated.
		{bson.D{{Key: "locale", Value: "en"}, {Key: "alternate", Value: "shifted"}, {Key: "maxVariable", Value: "space"}}, errs.NotImplemented},
		{bson.D{{Key: "locale", Value: "chr"}}, errs.NotImplemented},
	}
	for _, c := range cases {
		_, err := Parse(doc(t, c.d))
		if e := errs.As(err); e == nil || e.Code != c.code {
			t.Errorf("Parse(%v) = %v, want code %d", c.d, err, c.code)
		}
	}
}

func TestNormalisedSpec(t *testing.T) {
	s, err := Parse(doc(t, bson.D{{Key: "locale", Value: "fr_CA"}, {Key: "strength", Value: 2}}))
	if err != nil {
		t.Fatal(err)
	}
	want := doc(t, bson.D{{Key: "locale", Value: "fr_CA"}, {Key: "caseLevel", Value: false}, {Key: "caseFirst", Value: "off"}, {Key: "strength", Value: int32(2)},
		{Key: "numericOrdering", Value: false}, {Key: "alternate", Value: "non-ignorable"}, {Key: "maxVariable", Value: "punct"},
		{Key: "normalization", Value: false}, {Key: "backwards", Value: true}, {Key: "version", Value: "57.1"}})
	if got := s.Document(); string(got) != string(want) {
		t.Fatalf("got %s, want %s", got, want)
	}
	if s, err := Parse(doc(t, bson.D{{Key: "locale", Value: "simple"}})); s != nil || err != nil {
		t.Fatalf("simple: %v %v", s, err)
	}
}

func TestTransformNested(t *testing.T) {
	col := mustCollator(t, bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: 2}})
	a := bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: doc(t, bson.D{{Key: "x", Value: bson.A{"ABC", 1}}})}
	b := bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: doc(t, bson.D{{Key: "x", Value: bson.A{"abc", 1}}})}
	if col.Compare(a, b) != 0 {
		t.Fatal("nested strings should compare equal at strength 2")
	}
	n := bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: doc(t, bson.D{{Key: "x", Value: 1}})}
	if got := col.Transform(n); string(got.Data) != string(n.Data) {
		t.Fatal("a value without strings must be unchanged")
	}
}

// TestKeyOrderMatchesCollator: the escaped, NUL-free keys order strings as
// x/text's own comparison does, for random strings mixing case, accents,
// digits, punctuation and control bytes.
func TestKeyOrderMatchesCollator(t *testing.T) {
	col := mustCollator(t, bson.D{{Key: "locale", Value: "en"}})
	ref := collate.New(language.English)
	alphabet := []rune("aAbBéÉeE01 -_.\x00\x01\x02zZ\u030a")
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		n := rng.IntN(6)
		r := make([]rune, n)
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(r)
	}
	sign := func(x int) int {
		switch {
		case x < 0:
			return -1
		case x > 0:
			return 1
		}
		return 0
	}
	for i := 0; i < 5000; i++ {
		a, b := word(), word()
		want := sign(ref.CompareString(a, b))
		if got := sign(col.CompareStrings([]byte(a), []byte(b))); got != want {
			t.Fatalf("%q vs %q: keys say %d, x/text %d", a, b, got, want)
		}
		if k := col.Key(nil, []byte(a)); bytes.IndexByte(k, 0) >= 0 {
			t.Fatalf("key of %q holds a NUL", a)
		}
	}
}
