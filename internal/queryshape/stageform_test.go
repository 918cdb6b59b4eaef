package queryshape

// The aggregation registry (internal/agg) registers every stage's form;
// this package's tests run without it, so they register the forms of the
// stages they shape, as agg does.
func init() {
	RegisterStage("$match", FormFilter)
	RegisterStage("$sort", FormVerbatim)
	RegisterStage("$limit", FormNumber)
	RegisterStage("$lookup", FormArgs)
}
