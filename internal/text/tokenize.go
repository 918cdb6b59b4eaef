package text

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Options choose how Tokens treats a string, as mongod's tokenizer
// options do.
type Options struct {
	// KeepStopWords keeps the language's stop words (phrase checks).
	KeepStopWords bool
	// CaseSensitive keeps the original case of the stemmed tokens.
	CaseSensitive bool
	// DiacriticSensitive keeps diacritics in the tokens.
	DiacriticSensitive bool
}

// isDelimiter reports whether r separates tokens: anything that is not a
// letter, digit or combining mark. English keeps the ASCII apostrophe
// inside words ("don't" is one token, a stop word), as mongod's delimiter
// list for English does.
func isDelimiter(r rune, english bool) bool {
	if r == '\'' && english {
		return false
	}
	return !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || unicode.IsMark(r))
}

// Tokens splits s into the terms mongod's textIndexVersion 3 tokenizer
// produces for language l: each word is lower-cased, dropped when it is a
// stop word, stemmed, and then stripped of its diacritics (unless
// diacritic sensitive). fn is called with each term in order.
func (l *Language) Tokens(s string, o Options, fn func(term string)) {
	english := l.Name == "english"
	turkish := l.Name == "turkish"
	i := 0
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if isDelimiter(r, english) {
			i += w
			continue
		}
		start := i
		for i < len(s) {
			r, w = utf8.DecodeRuneInString(s[i:])
			if isDelimiter(r, english) {
				break
			}
			i += w
		}
		raw := s[start:i]
		word := lower(raw, turkish)
		if !o.KeepStopWords && l.IsStopWord(word) {
			continue
		}
		if o.CaseSensitive {
			word = raw
		}
		word = l.Stem(word)
		if !o.DiacriticSensitive {
			word = StripDiacritics(word)
		}
		fn(word)
	}
}

// lower lower-cases s; Turkish maps I to dotless ı and İ to i.
func lower(s string, turkish bool) string {
	if turkish {
		return strings.ToLowerSpecial(unicode.TurkishCase, s)
	}
	return strings.ToLower(s)
}

// StripDiacritics removes combining marks after canonical decomposition
// (é becomes e, ü becomes u), leaving case alone.
func StripDiacritics(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	d := norm.NFD.String(s)
	var b strings.Builder
	b.Grow(len(d))
	for _, r := range d {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(r)
	}
	return norm.NFC.String(b.String())
}

// Fold prepares s for a phrase comparison: lower-cased unless case
// sensitive, without diacritics unless diacritic sensitive.
func Fold(s string, l *Language, caseSensitive, diacriticSensitive bool) string {
	if !caseSensitive {
		s = lower(s, l != nil && l.Name == "turkish")
	}
	if !diacriticSensitive {
		s = StripDiacritics(s)
	}
	return s
}
