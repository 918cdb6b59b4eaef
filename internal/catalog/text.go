package catalog

import (
	"github.com/lodedb/lode/internal/text"
)

// TextDefaultLanguage is a text index's default_language when the spec
// names none (or one Lode does not know, in an old catalog entry).
const TextDefaultLanguage = "english"

// TextIndex is the text part of a text index's descriptor: the terms and
// scores its key generation and $text's planning use.
type TextIndex struct {
	// Spec scores a document's terms (weights, language, override field).
	Spec *text.Spec
	// NPrefix is the number of key fields before _fts.
	NPrefix int
}

// newTextIndex builds the text part of an index from its stored spec.
func newTextIndex(spec IndexSpec, fields []KeyField) *TextIndex {
	lang, ok := text.LookupLanguage(spec.DefaultLanguage)
	if !ok {
		lang, _ = text.LookupLanguage(TextDefaultLanguage)
	}
	t := &TextIndex{Spec: text.NewSpec(spec.Weights, lang, spec.LanguageOverride)}
	for i, f := range fields {
		if f.Path == "_fts" {
			t.NPrefix = i
		}
	}
	return t
}
