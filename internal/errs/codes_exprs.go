package errs

// Codes of mongod's assertions for $median and $percentile, the
// trigonometric, bitwise, data-size and timestamp expressions, the
// $getField family's checks, and $sampleRate (issue 19's expressions).
const (
	Location7429703 Code = 7429703 // $percentile accumulator: spec not an object
	Location7436100 Code = 7436100 // $median accumulator: spec not an object
	Location7436200 Code = 7436200 // $percentile expression: spec not an object
	Location7436201 Code = 7436201 // $median expression: spec not an object
	Location7750300 Code = 7750300 // $percentile 'p' not constant
	Location7750301 Code = 7750301 // $percentile 'p' not a non-empty array
	Location7750302 Code = 7750302 // $percentile 'p' element not a number
	Location7750303 Code = 7750303 // $percentile 'p' element outside [0, 1]
	Location50989   Code = 50989   // trigonometric argument outside its domain
	Location31393   Code = 31393   // $bsonSize of a non-document
	Location51276   Code = 51276   // $binarySize of a non-string, non-BinData
	Location5687301 Code = 5687301 // $tsSecond of a non-timestamp
	Location5687302 Code = 5687302 // $tsIncrement of a non-timestamp
	Location5654600 Code = 5654600 // $getField: 'field' is a field path
	Location5654601 Code = 5654601 // $getField: 'field' not constant
	Location5654602 Code = 5654602 // $getField: 'field' not a string
	Location4161108 Code = 4161108 // $setField: 'field' is a field path
	Location51044   Code = 51044   // $atan2: first operand not a number
	Location51045   Code = 51045   // $atan2: second operand not a number
)
