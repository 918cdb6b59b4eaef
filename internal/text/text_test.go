package text

import (
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func lang(t *testing.T, name string) *Language {
	t.Helper()
	l, ok := LookupLanguage(name)
	if !ok {
		t.Fatalf("no language %q", name)
	}
	return l
}

func tokens(l *Language, s string, o Options) []string {
	var out []string
	l.Tokens(s, o, func(t string) { out = append(out, t) })
	return out
}

// TestStemming checks words of the Snowball project's published sample
// vocabularies for each stemmer mongod uses.
func TestStemming(t *testing.T) {
	cases := []struct{ lang, word, stem string }{
		{"english", "consignment", "consign"},
		{"english", "knackeries", "knackeri"},
		{"english", "generously", "generous"},
		{"en", "running", "run"},
		{"french", "continuellement", "continuel"},
		{"german", "aufeinanderfolgenden", "aufeinanderfolg"},
		{"spanish", "abandonada", "abandon"},
		{"italian", "abbandonata", "abbandon"},
		{"portuguese", "quilométricas", "quilométr"},
		{"none", "running", "running"},
	}
	for _, c := range cases {
		if got := lang(t, c.lang).Stem(c.word); got != c.stem {
			t.Errorf("%s %q: %q, want %q", c.lang, c.word, got, c.stem)
		}
	}
}

// TestStopWords: each language drops the words of mongod's list for it
// and keeps others; "none" keeps everything.
func TestStopWords(t *testing.T) {
	// The words kept must be the content words, stemmed, in order.
	cases := []struct {
		lang, text string
		kept       []string
	}{
		{"english", "The cat and the hat", []string{"cat", "hat"}},
		{"english", "don't stop", []string{"stop"}},
		{"french", "le chat et la souris", []string{"chat", "souris"}},
		{"german", "der Hund und die Katze", []string{"hund", "katze"}},
		{"spanish", "el perro y el gato", []string{"perro", "gato"}},
		{"portuguese", "o carro e o gato", []string{"carro", "gato"}},
		{"italian", "il cane e il gatto", []string{"cane", "gatto"}},
		{"none", "the cat and the hat", []string{"the", "cat", "and", "the", "hat"}},
		{"dutch", "de kat en de hond", []string{"kat", "hond"}},
		{"russian", "кошка и собака", []string{"кошка", "собака"}},
		{"swedish", "katten och hunden", []string{"katten", "hunden"}},
	}
	for _, c := range cases {
		l := lang(t, c.lang)
		var want []string
		for _, w := range c.kept {
			want = append(want, l.Stem(w))
		}
		if got := tokens(l, c.text, Options{}); !reflect.DeepEqual(got, want) {
			t.Errorf("%s %q: %q, want %q", c.lang, c.text, got, want)
		}
	}
	for _, name := range []string{"danish", "dutch", "finnish", "hungarian", "norwegian", "romanian", "russian", "swedish", "turkish", "da", "nl", "fi", "hu", "nb", "ro", "ru", "sv", "tr"} {
		if _, ok := LookupLanguage(name); !ok {
			t.Errorf("language %q not accepted", name)
		}
	}
	if _, ok := LookupLanguage("klingon"); ok {
		t.Error("klingon accepted")
	}
}

// TestTokenizer: delimiters, case and diacritic folding as mongod's
// version 3 tokenizer does.
func TestTokenizer(t *testing.T) {
	en := lang(t, "english")
	if got := tokens(en, "Café-au-lait, CRÈME!", Options{}); !reflect.DeepEqual(got, []string{"cafe", "au", "lait", "creme"}) {
		t.Errorf("folded: %q", got)
	}
	if got := tokens(en, "Café", Options{CaseSensitive: true, DiacriticSensitive: true}); !reflect.DeepEqual(got, []string{"Café"}) {
		t.Errorf("sensitive: %q", got)
	}
	// English keeps the apostrophe inside a word; French splits at it.
	if got := tokens(en, "it's John's", Options{}); !reflect.DeepEqual(got, []string{"john"}) {
		t.Errorf("english apostrophe: %q", got)
	}
	if got := tokens(lang(t, "french"), "l'homme", Options{}); !reflect.DeepEqual(got, []string{"homm"}) {
		t.Errorf("french apostrophe: %q", got)
	}
	if got := tokens(en, "Сырники", Options{}); !reflect.DeepEqual(got, []string{"сырники"}) {
		t.Errorf("cyrillic: %q", got)
	}
}

// TestParseQuery follows mongod's rules for terms, phrases and negation.
func TestParseQuery(t *testing.T) {
	en := lang(t, "english")
	cases := []struct {
		search                      string
		terms, neg, phrases, negPhr []string
	}{
		{"coffee shop", []string{"coffe", "shop"}, nil, nil, nil},
		{"coffee -shop", []string{"coffe"}, []string{"shop"}, nil, nil},
		{"- shop", []string{"shop"}, nil, nil, nil},
		{"-foo-bar baz", []string{"baz"}, []string{"bar", "foo"}, nil, nil},
		{`"coffee shop" cake`, []string{"cake", "coffe", "shop"}, nil, []string{"coffee shop"}, nil},
		{`cake -"coffee shop"`, []string{"cake"}, nil, nil, []string{"coffee shop"}},
		{`-"foo bar"-"baz quux"`, nil, nil, nil, []string{"foo bar", "baz quux"}},
		{`a - "b c"`, []string{"b", "c"}, nil, []string{"b c"}, nil},
	}
	for _, c := range cases {
		q := ParseQuery(c.search, en, false, false)
		if !eq(q.Terms, c.terms) || !eq(q.NegatedTerms, c.neg) || !eq(q.Phrases, c.phrases) || !eq(q.NegatedPhrases, c.negPhr) {
			t.Errorf("%q: terms %q neg %q phrases %q negPhrases %q", c.search, q.Terms, q.NegatedTerms, q.Phrases, q.NegatedPhrases)
		}
	}
}

func eq(a, b []string) bool { return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b)) }

// TestScore: mongod's formula, weight * freq * (0.5*count/tokens + 0.5)
// * (1.1 when the string is the term).
func TestScore(t *testing.T) {
	raw, _ := bson.Marshal(bson.D{{Key: "a", Value: "Baking a cake"}, {Key: "b", Value: bson.A{"cake", "cakes cakes"}}})
	w, _ := bson.Marshal(bson.D{{Key: "a", Value: 2}, {Key: "b", Value: 1}})
	s := NewSpec(bsoncore.Document(w), lang(t, "english"), "language")
	got, err := s.Score(bsoncore.Document(raw))
	if err != nil {
		t.Fatal(err)
	}
	// a: bake and cake, 2 tokens: 2 * 0.75 each. b: "cake" alone, 1.1;
	// "cakes cakes": freq 1.5, coefficient 1.
	want := []TermScore{{"bake", 1.5}, {"cake", 1.5 + 1.1 + 1.5}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("scores %v, want %v", got, want)
	}
}
