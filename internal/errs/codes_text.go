package errs

// Codes of text search (mongod 7.0's uassert locations).
const (
	// Location16675: an array in a text index's prefix or suffix field.
	Location16675 Code = 16675
	// Location17262: a document's language override names an unknown
	// language.
	Location17262 Code = 17262
	// Location17313: $match with $text after the first pipeline stage.
	Location17313 Code = 17313
	// Location40218: textScore metadata asked for without $text.
	Location40218 Code = 40218
	// Location31138: a $meta sort with an unknown argument.
	Location31138 Code = 31138
	// Location17308: a $meta projection with an unknown argument.
	Location17308 Code = 17308
	// Location17307: a $meta projection whose argument is not a string.
	Location17307 Code = 17307
	// Text index specification errors (mongod's FTSSpec::fixSpec).
	Location16674 Code = 16674 // a weight out of (0, 100000)
	Location16730 Code = 16730 // bad textIndexVersion
	Location17136 Code = 17136 // language_override is not valid
	Location17263 Code = 17263 // default_language needs a string type
	Location17264 Code = 17264 // default_language is not valid
	Location17273 Code = 17273 // non-text key not 1 or -1
	Location17283 Code = 17283 // weight not a number
	Location17284 Code = 17284 // weights not an object
	Location17289 Code = 17289 // reserved fields _fts/_ftsx
	Location17293 Code = 17293 // textIndexVersion not a number
	Location17389 Code = 17389 // text fields not adjacent
	Location17291 Code = 17291 // weight with an empty path component
	Location17292 Code = 17292 // weight with a $-prefixed path component
	// NoQueryExecutionPlans: no plan can answer the query ($text under
	// $or beside a branch without an index).
	NoQueryExecutionPlans Code = 291
)

func init() {
	names[NoQueryExecutionPlans] = "NoQueryExecutionPlans"
}
