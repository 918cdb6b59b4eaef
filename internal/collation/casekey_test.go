package collation

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// sortedUnder sorts in under coll and returns the result.
func sortedUnder(t *testing.T, coll bson.D, in []string) []string {
	t.Helper()
	col := mustCollator(t, coll)
	got := slices.Clone(in)
	slices.SortStableFunc(got, func(a, b string) int { return col.CompareStrings([]byte(a), []byte(b)) })
	return got
}

func en(opts ...bson.E) bson.D {
	return append(bson.D{{Key: "locale", Value: "en"}}, opts...)
}

var (
	upper   = bson.E{Key: "caseFirst", Value: "upper"}
	lower   = bson.E{Key: "caseFirst", Value: "lower"}
	caseLvl = bson.E{Key: "caseLevel", Value: true}
)

func strength(n int) bson.E { return bson.E{Key: "strength", Value: n} }

// TestCaseFirstOrders: sorted orders documented by ICU (the "Collator
// naming scheme" examples of the user guide's Collation Concepts page,
// and the "mixed case test" of ICU4C's collation tests) and by MongoDB's
// collation reference ("upper": uppercase sorts before lowercase).
func TestCaseFirstOrders(t *testing.T) {
	china := []string{"denmark", "China", "Denmark", "china"}
	mixed := []string{"cha", "CHa", "chA", "ChA", "Cha", "CHA"}
	mixedUpper := []string{"CHA", "CHa", "ChA", "Cha", "chA", "cha"}
	mixedLower := []string{"cha", "chA", "Cha", "ChA", "CHa", "CHA"}
	cases := []struct {
		name string
		coll bson.D
		in   []string
		want []string
	}{
		{"C=U", en(upper), china, []string{"China", "china", "Denmark", "denmark"}},
		{"C=L", en(lower), china, []string{"china", "China", "denmark", "Denmark"}},
		{"C=X", en(), china, []string{"china", "China", "denmark", "Denmark"}},
		{"upper first letters", en(upper), []string{"b", "a", "B", "A"}, []string{"A", "a", "B", "b"}},
		{"mixed case upper first", en(upper), mixed, mixedUpper},
		{"mixed case lower first", en(lower), mixed, mixedLower},
		{"mixed case upper first, case level", en(upper, caseLvl), mixed, mixedUpper},
		{"mixed case lower first, case level", en(lower, caseLvl), mixed, mixedLower},
		// Primary and secondary differences still come first.
		{"accents before case", en(upper), []string{"rôle", "role", "Role"}, []string{"Role", "role", "rôle"}},
		// ICU: S=4, A=S di Silva < diSilva < Di Silva; with "upper"
		// case comes before the quaternary level.
		{"strength 4 shifted", en(upper, strength(4), bson.E{Key: "alternate", Value: "shifted"}),
			[]string{"diSilva", "Di Silva", "di Silva"}, []string{"Di Silva", "di Silva", "diSilva"}},
		// ICU: strength 2 with the case level compares primary,
		// secondary, then case.
		{"strength 2 case level", en(strength(2), caseLvl), []string{"rôle", "Role", "role"}, []string{"role", "Role", "rôle"}},
		{"strength 2 case level upper", en(strength(2), caseLvl, upper), []string{"rôle", "Rôle", "role", "Role"},
			[]string{"Role", "role", "Rôle", "rôle"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := sortedUnder(t, c.coll, c.in); !slices.Equal(got, c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestCaseLevelEqualities: ICU's Case_Level examples (S=1, E=O: role =
// rôle < Role) and MongoDB's description of caseLevel (strength 1
// compares base characters and case, strength 2 also diacritics).
func TestCaseLevelEqualities(t *testing.T) {
	cases := []struct {
		coll bson.D
		a, b string
		want int
	}{
		{en(strength(1), caseLvl), "role", "rôle", 0},
		{en(strength(1), caseLvl), "role", "Role", -1},
		{en(strength(1), caseLvl), "rôle", "Role", -1},
		{en(strength(1)), "role", "Role", 0},
		{en(strength(1), caseLvl), "ROLE", "RÔLE", 0},
		{en(strength(1), caseLvl, upper), "Role", "role", -1},
		{en(strength(1), caseLvl, upper), "Role", "Rôle", 0},
		{en(strength(2), caseLvl), "role", "rôle", -1},
		{en(strength(2), caseLvl), "role", "Role", -1},
		{en(strength(2), caseLvl), "role", "role", 0},
		{en(upper), "a", "a", 0},
		{en(upper, strength(5)), "\u00e5", "a\u030a", 0},
		{en(upper, strength(5)), "A", "a", -1},
	}
	for _, c := range cases {
		col := mustCollator(t, c.coll)
		if got := col.CompareStrings([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("%v: compare(%q, %q) = %d, want %d", c.coll, c.a, c.b, got, c.want)
		}
	}
}

// TestUpperFirstLocales: Danish and Maltese default to caseFirst
// "upper" (CLDR's common/collation/da.xml and mt.xml set caseFirst="upper"
// on their standard collation) and keep their letters: Danish aa and å
// after z, Maltese ħ between h and i and ġ before g.
func TestUpperFirstLocales(t *testing.T) {
	da := bson.D{{Key: "locale", Value: "da"}}
	if s, err := Parse(doc(t, da)); err != nil || s.CaseFirst != "upper" {
		t.Fatalf("da: %+v %v", s, err)
	}
	cases := []struct {
		coll     bson.D
		in, want []string
	}{
		{da, []string{"china", "Denmark", "China", "denmark"}, []string{"China", "china", "Denmark", "denmark"}},
		{da, []string{"å", "z", "a", "Z"}, []string{"a", "Z", "z", "å"}},
		{da, []string{"aa", "z"}, []string{"z", "aa"}},
		{bson.D{{Key: "locale", Value: "da"}, {Key: "caseFirst", Value: "off"}}, []string{"A", "a"}, []string{"a", "A"}},
		{bson.D{{Key: "locale", Value: "mt"}}, []string{"ħ", "i", "H", "Ħ", "h"}, []string{"H", "h", "Ħ", "ħ", "i"}},
		{bson.D{{Key: "locale", Value: "mt"}}, []string{"g", "ġ", "f"}, []string{"f", "ġ", "g"}},
	}
	for _, c := range cases {
		if got := sortedUnder(t, c.coll, c.in); !slices.Equal(got, c.want) {
			t.Errorf("%v: got %q, want %q", c.coll, got, c.want)
		}
	}
}

// TestCaseFirstProperties checks, on random strings, what ICU documents
// of caseFirst: primary and secondary levels are unaffected (the order
// of two strings that differ there is x/text's at strength 2), strings
// that differ only in case sort in opposite orders under "upper" and
// "lower", and every key is NUL-free.
func TestCaseFirstProperties(t *testing.T) {
	up := mustCollator(t, en(upper))
	lo := mustCollator(t, en(lower))
	lvl1 := mustCollator(t, en(strength(1), caseLvl))
	ref := collate.New(language.English, collate.IgnoreCase)
	ref1 := collate.New(language.English, collate.IgnoreCase, collate.IgnoreDiacritics)
	alphabet := []rune("aAbBéÉeE01 -_.\x00\x01zZ\u030aǅǄǆⓐⒶ")
	rng := rand.New(rand.NewPCG(3, 4))
	word := func() string {
		r := make([]rune, rng.IntN(6))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(r)
	}
	for i := 0; i < 5000; i++ {
		a, b := word(), word()
		if want := ref.CompareString(a, b); want != 0 {
			if got := up.CompareStrings([]byte(a), []byte(b)); got != want {
				t.Fatalf("upper: %q vs %q = %d, strength 2 says %d", a, b, got, want)
			}
		}
		if want := ref1.CompareString(a, b); want != 0 {
			if got := lvl1.CompareStrings([]byte(a), []byte(b)); got != want {
				t.Fatalf("case level: %q vs %q = %d, strength 1 says %d", a, b, got, want)
			}
		}
		for _, c := range []*Collator{up, lo, lvl1} {
			if k := c.Key(nil, []byte(a)); bytes.IndexByte(k, 0) >= 0 {
				t.Fatalf("key of %q holds a NUL", a)
			}
		}
		// Same letters, different case.
		x := strings.ToLower(a)
		rs := []rune(x)
		if len(rs) == 0 {
			continue
		}
		y := strings.ToUpper(string(rs[:len(rs)/2+1])) + string(rs[len(rs)/2+1:])
		if x == y {
			continue
		}
		if u, l := up.CompareStrings([]byte(x), []byte(y)), lo.CompareStrings([]byte(x), []byte(y)); u == 0 || u != -l {
			t.Fatalf("%q vs %q: upper %d, lower %d", x, y, u, l)
		}
	}
}
