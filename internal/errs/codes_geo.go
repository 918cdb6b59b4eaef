package errs

// Codes of mongod's geospatial assertions (issue 20).
const (
	NoQueryExecutionPlans Code = 291     // $near/$geoNear without a geo index
	Location16755         Code = 16755   // Can't extract geo keys
	Location16756         Code = 16756   // no cells for a geometry
	Location16800         Code = 16800   // 2dsphere: unsupported index version
	Location17444         Code = 17444   // legacy point out of range for a 2dsphere index
	Location40603         Code = 40603   // $geoNear: distanceField must be a string
	Location40604         Code = 40604   // $geoNear: query must be an object
	Location40606         Code = 40606   // $geoNear: key must be a non-empty string
	Location40607         Code = 40607   // $geoNear: no near argument
	Location5626500       Code = 5626500 // $geoNear: distanceMultiplier must be a non-negative number
	Location16433         Code = 16433   // 2d: point not in interval of [ min, max )
	Location13068         Code = 13068   // 2d: bits must be in [1, 32]
	Location13022         Code = 13022   // 2d: coordinates must be numbers
	Location16804         Code = 16804   // 2d: only one 2d field
)

func init() {
	names[NoQueryExecutionPlans] = "NoQueryExecutionPlans"
}
