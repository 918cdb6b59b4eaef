package aggregation_test

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestNulInComputedFieldNames: a string that becomes a field name cannot
// hold a NUL byte (BSON names end at it): $arrayToObject refuses it with
// mongod's codes (4940400 for a pair, 4940401 for a {k, v} document),
// $setField with BadValue, and the server answers instead of failing
// the command internally. Also $arrayToObject's format codes from
// MongoDB's own arrayToObject test.
func TestNulInComputedFieldNames(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	for pipeline, code := range map[string]int32{
		`[{"$replaceWith": {"$arrayToObject": {"$literal": [["a\u0000b", "x"]]}}}]`:                        4940400,
		`[{"$replaceWith": {"$arrayToObject": {"$literal": [{"k": "a\u0000b", "v": "x"}]}}}]`:              4940401,
		`[{"$replaceWith": {"$setField": {"field": "a\u0000b", "input": "$$ROOT", "value": 1}}}]`:          2,
		`[{"$project": {"c": {"$arrayToObject": {"$literal": [["item", "apple"], {"k": "p", "v": 1}]}}}}]`: 40396,
		`[{"$project": {"c": {"$arrayToObject": {"$literal": [[321, 12]]}}}}]`:                             40395,
		`[{"$project": {"c": {"$arrayToObject": {"$literal": [{"y": "x", "x": "y"}]}}}}]`:                  40393,
	} {
		_, err, _ := aggOne(t, d, pipeline, 0)
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != code {
			t.Errorf("%s: %v, want code %d", pipeline, err, code)
		}
	}
}
