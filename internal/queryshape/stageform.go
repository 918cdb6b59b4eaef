package queryshape

// StageForm is how a pipeline stage's argument is shaped. Each stage
// declares its form beside its parser in the aggregation registry
// (internal/agg), which registers it here: this package is a leaf (the
// index advisor uses it without the aggregation engine), so the table of
// forms is filled from above rather than read from agg.
type StageForm uint8

const (
	// FormUndecided is the zero value: a registration that forgot to
	// choose (the registry's test refuses it).
	FormUndecided StageForm = iota
	// FormExpr shapes the argument as an expression: literals become
	// their type. Stages that are not registered take this form.
	FormExpr
	// FormFilter shapes a document argument as a query filter ($match).
	FormFilter
	// FormVerbatim keeps the argument as it is (field names, sort
	// orders, a collection name).
	FormVerbatim
	// FormNumber replaces the argument by "?number" ($limit, $skip).
	FormNumber
	// FormProjection shapes a document argument as a projection.
	FormProjection
	// FormArgs keeps the arguments that name collections and fields,
	// shapes sub-pipelines and filters, and the rest as expressions; a
	// string argument is kept ($unwind: "$a", $unionWith: "coll").
	FormArgs
)

// stageForms maps a stage name to its form; RegisterStage fills it during
// package initialization, so it is only read afterwards.
var stageForms = map[string]StageForm{}

// RegisterStage records the form of a stage's argument. It is called
// from the init functions of the aggregation registry.
func RegisterStage(name string, f StageForm) {
	if f == FormUndecided {
		panic("queryshape: stage " + name + " registered without a form")
	}
	stageForms[name] = f
}
