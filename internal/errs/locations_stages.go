package errs

// Numbered assertions of $redact, $graphLookup and $densify (mongod 7.0's
// document_source_redact.cpp, document_source_graph_lookup.cpp and
// document_source_densify.cpp).
const (
	// $redact: the expression returned something other than
	// $$DESCEND, $$PRUNE or $$KEEP.
	Location17053 Code = 17053

	// $graphLookup.
	Location40099 Code = 40099 // memory limit reached
	Location40100 Code = 40100 // maxDepth not numeric
	Location40101 Code = 40101 // maxDepth negative
	Location40102 Code = 40102 // maxDepth not integral
	Location40103 Code = 40103 // string argument expected
	Location40104 Code = 40104 // unknown argument
	Location40105 Code = 40105 // required argument missing
	Location40185 Code = 40185 // restrictSearchWithMatch not an object
	Location40271 Code = 40271 // foreign document without _id

	// $densify.
	Location5733201 Code = 5733201 // field neither numeric nor date
	Location5733401 Code = 5733401 // step not strictly positive
	Location5733402 Code = 5733402 // bounds not ascending
	Location5733403 Code = 5733403 // bounds array not of two elements
	Location5733404 Code = 5733404 // bounds of the wrong type
	Location5733405 Code = 5733405 // date bound with a non-date
	Location5733406 Code = 5733406 // numeric bound with a non-number
	Location5733408 Code = 5733408 // "partition" without partitionByFields
	Location5733409 Code = 5733409 // numeric bounds with a unit
	Location5733410 Code = 5733410 // date bounds without a unit
	Location5876900 Code = 5876900 // bounds and step of different types
	Location5946800 Code = 5946800 // explicit bounds neither numbers nor dates
	Location5946802 Code = 5946802 // bounds string other than full/partition
	Location6586400 Code = 6586400 // date step not a whole number
	Location6053600 Code = 6053600 // value type does not match the unit
	Location5733307 Code = 5733307 // generating into an array
	Location5733308 Code = 5733308 // generating over a non-object
	Location5897900 Code = 5897900 // internalQueryMaxAllowedDensifyDocs exceeded
	Location6007200 Code = 6007200 // memory limit exceeded
	Location8993000 Code = 8993000 // partitionByFields inside field
	Location9554500 Code = 9554500 // field inside partitionByFields
)
