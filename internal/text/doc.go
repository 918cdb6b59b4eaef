// Package text implements MongoDB's text search (textIndexVersion 3): the
// tokenizer (Unicode delimiters, case folding, diacritic folding), the
// per-language stop words and Snowball stemmers, the text index
// specification (weights, default_language, language_override, wildcard),
// the per-document term scores that text index keys carry, the parser of
// $text's search string (terms, "phrases", -negations) and the matcher
// that applies phrases and negations to a fetched document.
//
// Stemming uses github.com/blevesearch/snowballstem, the Go output of the
// Snowball compiler (the stemmers mongod links through libstemmer). The
// stop-word lists are data files under stopwords/, embedded at build time.
package text
