package text

import (
	"sort"
	"strings"
	"sync"
)

// Query is a parsed $text search: mongod's FTSQuery.
type Query struct {
	Search             string
	Language           *Language
	CaseSensitive      bool
	DiacriticSensitive bool
	// Terms and NegatedTerms are the stemmed terms the matcher compares
	// (case or diacritic sensitive when asked), sorted.
	Terms, NegatedTerms []string
	// Phrases and NegatedPhrases are the quoted phrases, in query order.
	Phrases, NegatedPhrases []string
	// BoundsTerms are the positive terms as the index stores them (folded),
	// sorted: one index scan each.
	BoundsTerms []string

	// The phrases folded as the query compares them, computed once.
	foldOnce                        sync.Once
	foldedPhrases, foldedNegPhrases []string
}

// ParseQuery parses a $search string as mongod does: words are terms,
// "quoted text" is a phrase (whose words are terms too), and a '-'
// directly before a word or a phrase, after whitespace or at the start,
// negates it until the next whitespace.
func ParseQuery(search string, lang *Language, caseSensitive, diacriticSensitive bool) *Query {
	q := &Query{Search: search, Language: lang, CaseSensitive: caseSensitive, DiacriticSensitive: diacriticSensitive}
	var pos, neg strings.Builder
	inNeg, inPhrase := false, false
	quote := 0
	prevWS := true
	i := 0
	for i < len(search) {
		c := search[i]
		switch {
		case isSpace(c):
			prevWS = true
			i++
			continue
		case c == '-':
			if !inPhrase && prevWS {
				inNeg = true
			}
			prevWS = false
			i++
			continue
		case c == '"':
			if inPhrase {
				phrase := search[quote+1 : i]
				if inNeg {
					q.NegatedPhrases = append(q.NegatedPhrases, phrase)
				} else {
					q.Phrases = append(q.Phrases, phrase)
				}
				inPhrase = false
			} else {
				inPhrase = true
				if inNeg && prevWS {
					inNeg = false
				}
				quote = i
			}
			prevWS = false
			i++
			continue
		}
		start := i
		for i < len(search) && !isSpace(search[i]) && search[i] != '"' && search[i] != '-' {
			i++
		}
		word := search[start:i]
		if !(inPhrase && inNeg) {
			if inNeg && prevWS {
				inNeg = false
			}
			if inNeg {
				neg.WriteString(word)
				neg.WriteByte(' ')
			} else {
				pos.WriteString(word)
				pos.WriteByte(' ')
			}
		}
		prevWS = false
	}
	q.Terms, q.BoundsTerms = q.addTerms(pos.String(), true)
	q.NegatedTerms, _ = q.addTerms(neg.String(), false)
	return q
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// addTerms tokenizes a sentence of query words: the folded terms (index
// bounds) and the terms the matcher compares.
func (q *Query) addTerms(sentence string, positive bool) (terms, bounds []string) {
	folded := map[string]bool{}
	q.Language.Tokens(sentence, Options{}, func(t string) { folded[t] = true })
	match := folded
	if q.CaseSensitive || q.DiacriticSensitive {
		match = map[string]bool{}
		q.Language.Tokens(sentence, Options{CaseSensitive: q.CaseSensitive, DiacriticSensitive: q.DiacriticSensitive},
			func(t string) { match[t] = true })
	}
	return sortedKeys(match), sortedKeys(folded)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
