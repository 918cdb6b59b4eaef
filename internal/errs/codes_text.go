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
	// NoQueryExecutionPlans: no plan can answer the query ($text under
	// $or beside a branch without an index).
	NoQueryExecutionPlans Code = 291
)

func init() {
	names[NoQueryExecutionPlans] = "NoQueryExecutionPlans"
}
