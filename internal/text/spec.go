package text

import (
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Spec is what a text index needs to turn a document into terms: the
// weight of each text field, whether every string is indexed ("$**"), the
// default language and the field that overrides it per document.
type Spec struct {
	// Weights maps a dotted field path to its weight ("$**" included when
	// the index is a wildcard text index).
	Weights          map[string]float64
	Wildcard         bool
	DefaultLanguage  *Language
	LanguageOverride string
	// prefixes holds every proper path prefix of a weighted field, so
	// the walk knows which subdocuments to enter.
	prefixes map[string]bool
}

// NewSpec builds a Spec from the stored weights document.
func NewSpec(weights bsoncore.Document, defaultLanguage *Language, override string) *Spec {
	s := &Spec{Weights: map[string]float64{}, DefaultLanguage: defaultLanguage, LanguageOverride: override, prefixes: map[string]bool{}}
	elems, _ := weights.Elements()
	for _, e := range elems {
		w, _ := e.Value().AsFloat64OK()
		if w == 0 {
			if i, ok := e.Value().AsInt64OK(); ok {
				w = float64(i)
			}
		}
		s.Weights[e.Key()] = w
		if e.Key() == "$**" {
			s.Wildcard = true
			continue
		}
		parts := strings.Split(e.Key(), ".")
		for i := 1; i < len(parts); i++ {
			s.prefixes[strings.Join(parts[:i], ".")] = true
		}
	}
	return s
}

// weight returns the weight of the string at path, and whether it is
// indexed at all.
func (s *Spec) weight(path string) (float64, bool) {
	if w, ok := s.Weights[path]; ok {
		return w, true
	}
	if s.Wildcard {
		return 1, true
	}
	return 0, false
}

// enter reports whether the walk must look inside the subdocument at path.
func (s *Spec) enter(path string) bool {
	return s.Wildcard || s.prefixes[path]
}

// LanguageError is returned when a document's language override names a
// language textIndexVersion 3 does not support.
type LanguageError struct{ Name string }

func (e *LanguageError) Error() string { return "language override unsupported: " + e.Name }

// Strings calls fn with every indexed string of doc, its weight and the
// language that applies to it (the nearest enclosing document's override
// field, else the index's default).
func (s *Spec) Strings(doc bsoncore.Document, fn func(str string, weight float64, lang *Language)) error {
	return s.walk(doc, "", s.DefaultLanguage, fn)
}

func (s *Spec) walk(doc bsoncore.Document, prefix string, lang *Language, fn func(string, float64, *Language)) error {
	if v, err := doc.LookupErr(s.LanguageOverride); err == nil && v.Type == bsoncore.TypeString {
		l, ok := LookupLanguage(v.StringValue())
		if !ok {
			return &LanguageError{Name: v.StringValue()}
		}
		lang = l
	}
	elems, err := doc.Elements()
	if err != nil {
		return nil
	}
	for _, e := range elems {
		path := e.Key()
		if prefix != "" {
			path = prefix + "." + path
		}
		if err := s.value(e.Value(), path, lang, fn); err != nil {
			return err
		}
	}
	return nil
}

func (s *Spec) value(v bsoncore.Value, path string, lang *Language, fn func(string, float64, *Language)) error {
	switch v.Type {
	case bsoncore.TypeString:
		if w, ok := s.weight(path); ok {
			fn(v.StringValue(), w, lang)
		}
	case bsoncore.TypeEmbeddedDocument:
		if s.enter(path) {
			return s.walk(v.Document(), path, lang, fn)
		}
	case bsoncore.TypeArray:
		vals, _ := v.Array().Values()
		for _, el := range vals {
			if err := s.value(el, path, lang, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// TermScore is one term of a document with its score.
type TermScore struct {
	Term  string
	Score float64
}

// Score returns the terms of doc and their scores, sorted by term, as
// mongod computes them for text index keys: for each indexed string, each
// term's weight * frequency * coefficient * adjustment, where frequency
// adds 1, 1/2, 1/4... for successive occurrences, the coefficient is
// 0.5 * occurrences / tokens-in-the-string + 0.5, and the adjustment is
// 1.1 when the whole string is the term (case-insensitively), else 1.
func (s *Spec) Score(doc bsoncore.Document) ([]TermScore, error) {
	scores := map[string]float64{}
	err := s.Strings(doc, func(str string, weight float64, lang *Language) {
		scoreString(str, weight, lang, scores)
	})
	if err != nil {
		return nil, err
	}
	out := make([]TermScore, 0, len(scores))
	for t, sc := range scores {
		out = append(out, TermScore{Term: t, Score: sc})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Term < out[j].Term })
	return out, nil
}

type termStat struct{ freq, count, exp float64 }

func scoreString(raw string, weight float64, lang *Language, scores map[string]float64) {
	stats := map[string]*termStat{}
	var order []string
	numTokens := 0.0
	lang.Tokens(raw, Options{}, func(term string) {
		st := stats[term]
		if st == nil {
			st = &termStat{}
			stats[term] = st
			order = append(order, term)
		}
		if st.exp == 0 {
			st.exp = 1
		} else {
			st.exp *= 2
		}
		st.count++
		st.freq += 1 / st.exp
		numTokens++
	})
	for _, term := range order {
		st := stats[term]
		coeff := (0.5 * st.count / numTokens) + 0.5
		adjustment := 1.0
		if len(raw) == len(term) && strings.EqualFold(raw, term) {
			adjustment += 0.1
		}
		scores[term] += weight * st.freq * coeff * adjustment
	}
}
