package expr

import "testing"

const d2014 = `{"date": {"$date": "2014-01-01T08:15:39.736Z"}}`

func TestDates(t *testing.T) {
	runCases(t, []tc{
		// $year etc. docs example (2014-01-01T08:15:39.736Z)
		{expr: `{"$year": "$date"}`, doc: d2014, want: `2014`},
		{expr: `{"$month": "$date"}`, doc: d2014, want: `1`},
		{expr: `{"$dayOfMonth": "$date"}`, doc: d2014, want: `1`},
		{expr: `{"$hour": "$date"}`, doc: d2014, want: `8`},
		{expr: `{"$minute": "$date"}`, doc: d2014, want: `15`},
		{expr: `{"$second": "$date"}`, doc: d2014, want: `39`},
		{expr: `{"$millisecond": "$date"}`, doc: d2014, want: `736`},
		{expr: `{"$dayOfYear": "$date"}`, doc: d2014, want: `1`},
		{expr: `{"$dayOfWeek": "$date"}`, doc: d2014, want: `4`},
		{expr: `{"$week": "$date"}`, doc: d2014, want: `0`},
		{expr: `{"$hour": {"date": "$date", "timezone": "America/New_York"}}`, doc: d2014, want: `3`},
		{expr: `{"$minute": {"date": "$date", "timezone": "+04:30"}}`, doc: d2014, want: `45`},
		{expr: `{"$year": ["$date"]}`, doc: d2014, want: `2014`},
		{expr: `{"$year": "$missing"}`, want: `null`},
		{expr: `{"$year": "x"}`, code: 16006},
		{expr: `{"$hour": {"date": "$date", "timezone": "Mars/Base"}}`, doc: d2014, code: 40485},
		// $isoWeek / $isoWeekYear / $isoDayOfWeek at year boundaries
		{expr: `{"$isoWeek": {"$date": "2016-01-01T00:00:00Z"}}`, want: `53`},
		{expr: `{"$isoWeekYear": {"$date": "2016-01-01T00:00:00Z"}}`, want: `{"$numberLong": "2015"}`},
		{expr: `{"$isoDayOfWeek": {"$date": "2016-01-01T00:00:00Z"}}`, want: `5`},
		{expr: `{"$isoWeek": {"$date": "2018-12-31T00:00:00Z"}}`, want: `1`},
		{expr: `{"$isoWeekYear": {"$date": "2018-12-31T00:00:00Z"}}`, want: `{"$numberLong": "2019"}`},
		{expr: `{"$week": {"$date": "2017-01-01T00:00:00Z"}}`, want: `1`},
		{expr: `{"$week": {"$date": "2016-01-02T00:00:00Z"}}`, want: `0`},
		{expr: `{"$week": {"$date": "2016-12-31T00:00:00Z"}}`, want: `52`},
		// $dateToString docs example
		{expr: `{"$dateToString": {"format": "%Y-%m-%d", "date": "$date"}}`, doc: d2014, want: `"2014-01-01"`},
		{expr: `{"$dateToString": {"format": "%H:%M:%S:%L%z", "date": "$date", "timezone": "America/New_York"}}`, doc: d2014, want: `"03:15:39:736-0500"`},
		{expr: `{"$dateToString": {"format": "%H:%M:%S:%L%z", "date": "$date", "timezone": "+04:30"}}`, doc: d2014, want: `"12:45:39:736+0430"`},
		{expr: `{"$dateToString": {"format": "%Z", "date": "$date", "timezone": "America/New_York"}}`, doc: d2014, want: `"-300"`},
		{expr: `{"$dateToString": {"format": "%Z", "date": "$date", "timezone": "+04:30"}}`, doc: d2014, want: `"270"`},
		{expr: `{"$dateToString": {"date": "$date"}}`, doc: d2014, want: `"2014-01-01T08:15:39.736Z"`},
		{expr: `{"$dateToString": {"format": "%j %w %u %U %V %G %%", "date": "$date"}}`, doc: d2014, want: `"001 4 3 00 01 2014 %"`},
		{expr: `{"$dateToString": {"date": "$missing", "onNull": "none"}}`, want: `"none"`},
		{expr: `{"$dateToString": {"date": "$date", "format": "%Q"}}`, doc: d2014, code: 18536},
		{expr: `{"$dateToString": {"date": "$date", "format": "abc%"}}`, doc: d2014, code: 18535},
		// $dateFromString docs
		{expr: `{"$dateFromString": {"dateString": "2017-02-08T12:10:40.787"}}`, want: `{"$date": "2017-02-08T12:10:40.787Z"}`},
		{expr: `{"$dateFromString": {"dateString": "2017-02-08T12:10:40.787", "timezone": "America/New_York"}}`, want: `{"$date": "2017-02-08T17:10:40.787Z"}`},
		{expr: `{"$dateFromString": {"dateString": "15-06-2018", "format": "%d-%m-%Y"}}`, want: `{"$date": "2018-06-15T00:00:00Z"}`},
		{expr: `{"$dateFromString": {"dateString": "06-15-2018", "format": "%m-%d-%Y"}}`, want: `{"$date": "2018-06-15T00:00:00Z"}`},
		{expr: `{"$dateFromString": {"dateString": "2017-02-08T12:10:40Z"}}`, want: `{"$date": "2017-02-08T12:10:40Z"}`},
		{expr: `{"$dateFromString": {"dateString": "not a date", "onError": "bad"}}`, want: `"bad"`},
		{expr: `{"$dateFromString": {"dateString": "not a date"}}`, code: 241},
		{expr: `{"$dateFromString": {"dateString": null, "onNull": 0}}`, want: `0`},
		// $dateToParts docs example: 2017-01-01T01:29:09.123Z
		{expr: `{"$dateToParts": {"date": {"$date": "2017-01-01T01:29:09.123Z"}}}`, want: `{"year": 2017, "month": 1, "day": 1, "hour": 1, "minute": 29, "second": 9, "millisecond": 123}`},
		{expr: `{"$dateToParts": {"date": {"$date": "2017-01-01T01:29:09.123Z"}, "iso8601": true}}`, want: `{"isoWeekYear": 2016, "isoWeek": 52, "isoDayOfWeek": 7, "hour": 1, "minute": 29, "second": 9, "millisecond": 123}`},
		{expr: `{"$dateToParts": {"date": {"$date": "2017-01-01T01:29:09.123Z"}, "timezone": "America/New_York"}}`, want: `{"year": 2016, "month": 12, "day": 31, "hour": 20, "minute": 29, "second": 9, "millisecond": 123}`},
		// $dateFromParts docs
		{expr: `{"$dateFromParts": {"year": 2017, "month": 2, "day": 8, "hour": 12}}`, want: `{"$date": "2017-02-08T12:00:00Z"}`},
		{expr: `{"$dateFromParts": {"isoWeekYear": 2017, "isoWeek": 6, "isoDayOfWeek": 3, "hour": 12}}`, want: `{"$date": "2017-02-08T12:00:00Z"}`},
		{expr: `{"$dateFromParts": {"year": 2017, "month": 2, "day": 8, "hour": 12, "timezone": "America/New_York"}}`, want: `{"$date": "2017-02-08T17:00:00Z"}`},
		{expr: `{"$dateFromParts": {"year": 2017, "month": 14, "day": 1, "hour": 12}}`, want: `{"$date": "2018-02-01T12:00:00Z"}`},
		{expr: `{"$dateFromParts": {"year": 2017, "month": 0, "day": 1, "hour": 12}}`, want: `{"$date": "2016-12-01T12:00:00Z"}`},
		{expr: `{"$dateFromParts": {"year": 2017, "month": 2, "day": 0}}`, want: `{"$date": "2017-01-31T00:00:00Z"}`},
		{expr: `{"$dateFromParts": {"year": 2017, "month": 2, "day": 8, "hour": -1, "minute": 70}}`, want: `{"$date": "2017-02-08T00:10:00Z"}`},
		{expr: `{"$dateFromParts": {"year": 2017, "millisecond": 1001}}`, want: `{"$date": "2017-01-01T00:00:01.001Z"}`},
		{expr: `{"$dateFromParts": {"year": 10000}}`, code: 40523},
		{expr: `{"$dateFromParts": {"year": 2017, "month": 1.5}}`, code: 40515},
		{expr: `{"$dateFromParts": {"month": 1}}`, code: 40516},
		// $dateAdd docs
		{expr: `{"$dateAdd": {"startDate": {"$date": "2020-10-31T12:10:05Z"}, "unit": "month", "amount": 1}}`, want: `{"$date": "2020-11-30T12:10:05Z"}`},
		{expr: `{"$dateAdd": {"startDate": {"$date": "2020-12-31T00:00:00Z"}, "unit": "day", "amount": 3}}`, want: `{"$date": "2021-01-03T00:00:00Z"}`},
		{expr: `{"$dateAdd": {"startDate": {"$date": "2021-02-28T00:00:00Z"}, "unit": "day", "amount": 3}}`, want: `{"$date": "2021-03-03T00:00:00Z"}`},
		{expr: `{"$dateAdd": {"startDate": {"$date": "2021-03-13T15:00:00Z"}, "unit": "day", "amount": 1, "timezone": "America/New_York"}}`, want: `{"$date": "2021-03-14T14:00:00Z"}`},
		{expr: `{"$dateAdd": {"startDate": {"$date": "2021-03-13T15:00:00Z"}, "unit": "hour", "amount": 24, "timezone": "America/New_York"}}`, want: `{"$date": "2021-03-14T15:00:00Z"}`},
		{expr: `{"$dateAdd": {"startDate": {"$date": "2020-02-29T00:00:00Z"}, "unit": "year", "amount": 1}}`, want: `{"$date": "2021-02-28T00:00:00Z"}`},
		{expr: `{"$dateAdd": {"startDate": {"$date": "2021-01-31T00:00:00Z"}, "unit": "quarter", "amount": 1}}`, want: `{"$date": "2021-04-30T00:00:00Z"}`},
		{expr: `{"$dateSubtract": {"startDate": {"$date": "2021-03-31T10:00:00Z"}, "unit": "month", "amount": 1}}`, want: `{"$date": "2021-02-28T10:00:00Z"}`},
		{expr: `{"$dateSubtract": {"startDate": {"$date": "2021-03-31T10:00:00Z"}, "unit": "hour", "amount": 2}}`, want: `{"$date": "2021-03-31T08:00:00Z"}`},
		{expr: `{"$dateAdd": {"startDate": "$missing", "unit": "day", "amount": 1}}`, want: `null`},
		// An unknown unit is FailedToParse for $dateAdd (MongoDB's own
		// date_add_subtract test), 5439014 for $dateDiff and $dateTrunc.
		{expr: `{"$dateAdd": {"startDate": {"$date": "2021-03-31T10:00:00Z"}, "unit": "fortnight", "amount": 1}}`, code: 9},
		// $dateDiff docs
		{expr: `{"$dateDiff": {"startDate": {"$date": "2010-01-01T00:00:00Z"}, "endDate": {"$date": "2011-01-01T00:00:00Z"}, "unit": "year"}}`, want: `{"$numberLong": "1"}`},
		{expr: `{"$dateDiff": {"startDate": {"$date": "2010-01-01T00:00:00Z"}, "endDate": {"$date": "2011-07-01T00:00:00Z"}, "unit": "month"}}`, want: `{"$numberLong": "18"}`},
		{expr: `{"$dateDiff": {"startDate": {"$date": "2010-01-01T00:00:00Z"}, "endDate": {"$date": "2011-07-01T00:00:00Z"}, "unit": "day"}}`, want: `{"$numberLong": "546"}`},
		{expr: `{"$dateDiff": {"startDate": {"$date": "2010-03-01T00:00:00Z"}, "endDate": {"$date": "2010-04-30T00:00:00Z"}, "unit": "month"}}`, want: `{"$numberLong": "1"}`},
		{expr: `{"$dateDiff": {"startDate": {"$date": "2010-03-01T00:00:00Z"}, "endDate": {"$date": "2010-04-30T00:00:00Z"}, "unit": "day"}}`, want: `{"$numberLong": "60"}`},
		{expr: `{"$dateDiff": {"startDate": {"$date": "2021-01-01T00:00:00Z"}, "endDate": {"$date": "2021-01-31T00:00:00Z"}, "unit": "week"}}`, want: `{"$numberLong": "5"}`},
		{expr: `{"$dateDiff": {"startDate": {"$date": "2021-01-01T00:00:00Z"}, "endDate": {"$date": "2021-01-31T00:00:00Z"}, "unit": "week", "startOfWeek": "Monday"}}`, want: `{"$numberLong": "4"}`},
		{expr: `{"$dateDiff": {"startDate": {"$date": "2021-02-01T00:00:00Z"}, "endDate": {"$date": "2021-02-28T00:00:00Z"}, "unit": "week", "startOfWeek": "Monday"}}`, want: `{"$numberLong": "3"}`},
		{expr: `{"$dateDiff": {"startDate": {"$date": "2021-02-01T00:00:00Z"}, "endDate": {"$date": "2021-02-28T00:00:00Z"}, "unit": "week", "startOfWeek": "fri"}}`, want: `{"$numberLong": "4"}`},
		{expr: `{"$dateDiff": {"startDate": {"$date": "2021-02-01T00:00:00Z"}, "endDate": {"$date": "2021-02-28T00:00:00Z"}, "unit": "week"}}`, want: `{"$numberLong": "4"}`},
		{expr: `{"$dateDiff": {"startDate": {"$date": "2021-03-01T00:00:00Z"}, "endDate": {"$date": "2021-03-31T00:00:00Z"}, "unit": "week", "startOfWeek": "fri"}}`, want: `{"$numberLong": "4"}`},
		{expr: `{"$dateDiff": {"startDate": {"$date": "2020-12-31T23:59:59Z"}, "endDate": {"$date": "2021-01-01T00:00:00Z"}, "unit": "year"}}`, want: `{"$numberLong": "1"}`},
		{expr: `{"$dateDiff": {"startDate": {"$date": "2021-01-01T03:00:00Z"}, "endDate": {"$date": "2021-01-01T06:00:00Z"}, "unit": "day", "timezone": "America/New_York"}}`, want: `{"$numberLong": "1"}`},
		// $dateTrunc
		{expr: `{"$dateTrunc": {"date": {"$date": "2020-05-18T14:10:30Z"}, "unit": "month"}}`, want: `{"$date": "2020-05-01T00:00:00Z"}`},
		{expr: `{"$dateTrunc": {"date": {"$date": "2020-05-18T14:10:30Z"}, "unit": "year", "binSize": 10}}`, want: `{"$date": "2020-01-01T00:00:00Z"}`},
		{expr: `{"$dateTrunc": {"date": {"$date": "2020-05-18T14:10:30Z"}, "unit": "quarter"}}`, want: `{"$date": "2020-04-01T00:00:00Z"}`},
		{expr: `{"$dateTrunc": {"date": {"$date": "2020-05-18T14:10:30Z"}, "unit": "week"}}`, want: `{"$date": "2020-05-17T00:00:00Z"}`},
		{expr: `{"$dateTrunc": {"date": {"$date": "2020-05-18T14:10:30Z"}, "unit": "week", "startOfWeek": "monday"}}`, want: `{"$date": "2020-05-18T00:00:00Z"}`},
		{expr: `{"$dateTrunc": {"date": {"$date": "2020-05-18T14:10:30Z"}, "unit": "hour", "binSize": 6}}`, want: `{"$date": "2020-05-18T12:00:00Z"}`},
		{expr: `{"$dateTrunc": {"date": {"$date": "2020-05-18T02:10:30Z"}, "unit": "day", "timezone": "America/New_York"}}`, want: `{"$date": "2020-05-17T04:00:00Z"}`},
		{expr: `{"$dateTrunc": {"date": {"$date": "2020-05-18T14:10:30.5Z"}, "unit": "second"}}`, want: `{"$date": "2020-05-18T14:10:30Z"}`},
		// timestamps and ObjectIds as dates
		{expr: `{"$year": {"$timestamp": {"t": 1577836800, "i": 1}}}`, want: `2020`},
		{expr: `{"$year": {"$oid": "5e0be1000000000000000000"}}`, want: `2020`},
	})
}
