package aggregation_test

import (
	"errors"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// TestDateArithmeticArguments checks through the Go driver how $dateAdd,
// $dateDiff, $dateTrunc and $dateFromParts treat their arguments, with
// cases of MongoDB's own tests of those operators: a null or missing
// argument makes the result null before any other argument is checked,
// startOfWeek is read only for the unit "week", $dateFromParts bounds
// every part but the seconds and milliseconds, and each bad argument has
// mongod's code.
func TestDateArithmeticArguments(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := d.Collection("c")
	for i, tc := range []struct {
		doc  string // the one input document
		expr string
		want string // the result as relaxed extended JSON, or ""
		code int32
	}{
		// Null first.
		{`{"unit": "H", "binSize": "string", "timeZone": 1}`, `{"$dateTrunc": {"date": "$date", "unit": "$unit", "binSize": "$binSize", "timezone": "$timeZone"}}`, `null`, 0},
		{`{"date": "Invalid", "binSize": "Invalid", "timeZone": "Invalid"}`, `{"$dateTrunc": {"date": "$date", "unit": "$unit", "binSize": "$binSize", "timezone": "$timeZone"}}`, `null`, 0},
		{`{"endDate": 1, "unit": "century", "timeZone": "INVALID"}`, `{"$dateDiff": {"startDate": "$startDate", "endDate": "$endDate", "unit": "$unit", "timezone": "$timeZone"}}`, `null`, 0},
		{`{"startDate": 1, "endDate": 2, "unit": "week", "timeZone": 1}`, `{"$dateDiff": {"startDate": "$startDate", "endDate": "$endDate", "unit": "$unit", "timezone": "$timeZone", "startOfWeek": "$startOfWeek"}}`, `null`, 0},
		// startOfWeek only for weeks.
		{`{"u": "hour"}`, `{"$dateTrunc": {"date": {"$date": "2021-12-01T18:23:36Z"}, "unit": "$u", "binSize": 4, "timezone": "America/New_York", "startOfWeek": "IGNORED"}}`, `{"$date":"2021-12-01T17:00:00Z"}`, 0},
		{`{}`, `{"$dateDiff": {"startDate": {"$date": "2020-11-01T18:23:36Z"}, "endDate": {"$date": "2020-11-01T18:23:36Z"}, "unit": "hour", "timezone": "GMT", "startOfWeek": 1}}`, `0`, 0},
		{`{}`, `{"$dateDiff": {"startDate": {"$date": "2021-01-24T18:23:36Z"}, "endDate": {"$date": "2021-01-25T02:23:36Z"}, "unit": "week", "timezone": "GMT", "startOfWeek": "MONDAY"}}`, `1`, 0},
		{`{}`, `{"$dateTrunc": {"date": {"$date": "2020-11-01T18:23:36Z"}, "unit": "week", "startOfWeek": "FRIDIE"}}`, ``, 5439016},
		// Codes.
		{`{}`, `{"$dateTrunc": {"unit": "week"}}`, ``, 5439009},
		{`{}`, `{"$dateTrunc": {"date": {"$date": "2020-11-01T18:23:36Z"}}}`, ``, 5439010},
		{`{}`, `{"$dateTrunc": {"date": {"$date": "2020-11-01T18:23:36Z"}, "unit": "hour", "binSize": 0}}`, ``, 5439018},
		{`{}`, `{"$dateTrunc": {"date": {"$date": "2020-11-01T18:23:36Z"}, "unit": "hour", "binSize": 2.5}}`, ``, 5439017},
		{`{}`, `{"$dateAdd": {"unit": "second", "amount": 120}}`, ``, 5166402},
		{`{}`, `{"$dateAdd": {"startDate": {"$date": "2020-11-01T18:23:36Z"}, "units": "day", "amount": 1}}`, ``, 5166401},
		{`{}`, `{"$dateAdd": {"startDate": {"$date": "2020-11-01T18:23:36Z"}, "unit": 1, "amount": 10}}`, ``, 5166404},
		{`{}`, `{"$dateAdd": {"startDate": {"$date": "2020-11-01T18:23:36Z"}, "unit": "epoch", "amount": 10}}`, ``, 9},
		{`{}`, `{"$dateSubtract": {"startDate": {"$date": "2020-11-01T18:23:36Z"}, "unit": "year", "amount": 1.001}}`, ``, 5166405},
		{`{}`, `{"$dateDiff": {"startDate": 1}}`, ``, 5166304},
		// $dateFromParts: seconds and milliseconds take any value.
		{`{"s": 71841012}`, `{"$dateFromParts": {"year": 2017, "second": "$s"}}`, `{"$date":"2019-04-12T11:50:12Z"}`, 0},
		{`{"ms": {"$numberLong": "1502095918551"}}`, `{"$dateFromParts": {"year": 1970, "millisecond": "$ms"}}`, `{"$date":"2017-08-07T08:51:58.551Z"}`, 0},
		{`{"ms": 18014398509481984.0}`, `{"$dateFromParts": {"year": 1970, "millisecond": "$ms"}}`, ``, 159},
		{`{}`, `{"$dateFromParts": {"year": 1970, "month": 32768}}`, ``, 31034},
		{`{}`, `{"$dateFromParts": {"isoWeekYear": 10000}}`, ``, 31095},
		{`{}`, `{"$dateFromParts": {"year": 2017, "isoWeek": 3}}`, ``, 40489},
		{`{}`, `{"$dateFromParts": {"isoWeekYear": 2017, "month": 12}}`, ``, 40525},
	} {
		var doc bson.D
		if err := bson.UnmarshalExtJSON([]byte(tc.doc), false, &doc); err != nil {
			t.Fatal(err)
		}
		if _, err := c.DeleteMany(testenv.Ctx(t), bson.D{}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.InsertOne(testenv.Ctx(t), doc); err != nil {
			t.Fatal(err)
		}
		r, err, _ := aggOne(t, d, fmt.Sprintf(`[{"$project": {"_id": 0, "r": %s}}]`, tc.expr), 0)
		if tc.code != 0 {
			var ce mongo.CommandError
			if !errors.As(err, &ce) || ce.Code != tc.code {
				t.Errorf("case %d %s: %v, want code %d", i, tc.expr, err, tc.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("case %d %s: %v", i, tc.expr, err)
			continue
		}
		v := r.Lookup("cursor", "firstBatch", "0", "r")
		got, _ := bson.MarshalExtJSON(bson.D{{Key: "r", Value: v}}, false, false)
		if want := `{"r":` + tc.want + `}`; string(got) != want {
			t.Errorf("case %d %s: %s, want %s", i, tc.expr, got, want)
		}
	}
}
