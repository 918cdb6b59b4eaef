package errs

// Codes of mongod's geospatial assertions (issue 20).
const (
	NoQueryExecutionPlans Code = 291     // $near without a usable geo index
	Location16755         Code = 16755   // Can't extract geo keys
	Location5626500       Code = 5626500 // $near/$nearSphere in a $match
)

func init() {
	names[NoQueryExecutionPlans] = "NoQueryExecutionPlans"
}
