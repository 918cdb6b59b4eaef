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
	if len(q.Phrases) == 0 && len(q.NegatedPhrases) == 0 {
		return true
	}
	q.foldOnce.Do(func() {
		for _, p := range q.Phrases {
			q.foldedPhrases = append(q.foldedPhrases, Fold(p, q.Language, q.CaseSensitive, q.DiacriticSensitive))
		}
		for _, p := range q.NegatedPhrases {
			q.foldedNegPhrases = append(q.foldedNegPhrases, Fold(p, q.Language, q.CaseSensitive, q.DiacriticSensitive))
		}
	})
	found := make([]bool, len(q.foldedPhrases))
	negated := false
	_ = spec.Strings(doc, func(s string, _ float64, lang *Language) {
		if negated {
			return
		}
		f := Fold(s, lang, q.CaseSensitive, q.DiacriticSensitive)
		for i, p := range q.foldedPhrases {
			if !found[i] && strings.Contains(f, p) {
				found[i] = true
			}
		}
		for _, p := range q.foldedNegPhrases {
			if strings.Contains(f, p) {
				negated = true
			}
		}
	})
	if negated {
		return false
	}
	for _, ok := range found {
		if !ok {
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
