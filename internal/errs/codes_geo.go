package errs

// Codes of mongod's geospatial assertions (issue 20).
// NoQueryExecutionPlans (291, codes_text.go) is also $near without a
// usable geo index.
const (
	Location16755   Code = 16755   // Can't extract geo keys
	Location5626500 Code = 5626500 // $near/$nearSphere in a $match
)
