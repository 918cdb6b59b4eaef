package text

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Matches applies the parts of q that index scans cannot: with case or
// diacritic sensitivity, one positive term must appear as asked; no
// negated term may appear; every phrase must appear in one indexed
// string and no negated phrase in any (mongod's FTSMatcher).
func (q *Query) Matches(spec *Spec, doc bsoncore.Document) bool {
	sensitive := q.CaseSensitive || q.DiacriticSensitive
	if sensitive && !q.hasTerm(spec, doc, q.Terms) {
		return false
	}
	if len(q.NegatedTerms) > 0 && q.hasTerm(spec, doc, q.NegatedTerms) {
		return false
	}
	for _, p := range q.Phrases {
		if !q.hasPhrase(spec, doc, p) {
			return false
		}
	}
	for _, p := range q.NegatedPhrases {
		if q.hasPhrase(spec, doc, p) {
			return false
		}
	}
	return true
}

// hasTerm reports whether a token of an indexed string of doc is in the
// sorted list terms.
func (q *Query) hasTerm(spec *Spec, doc bsoncore.Document, terms []string) bool {
	set := make(map[string]bool, len(terms))
	for _, t := range terms {
		set[t] = true
	}
	found := false
	o := Options{CaseSensitive: q.CaseSensitive, DiacriticSensitive: q.DiacriticSensitive}
	_ = spec.Strings(doc, func(s string, _ float64, lang *Language) {
		if found {
			return
		}
		lang.Tokens(s, o, func(t string) {
			if set[t] {
				found = true
			}
		})
	})
	return found
}

// hasPhrase reports whether an indexed string of doc contains phrase,
// compared with the query's case and diacritic sensitivity.
func (q *Query) hasPhrase(spec *Spec, doc bsoncore.Document, phrase string) bool {
	found := false
	_ = spec.Strings(doc, func(s string, _ float64, lang *Language) {
		if found {
			return
		}
		p := Fold(phrase, q.Language, q.CaseSensitive, q.DiacriticSensitive)
		if strings.Contains(Fold(s, lang, q.CaseSensitive, q.DiacriticSensitive), p) {
			found = true
		}
	})
	return found
}
