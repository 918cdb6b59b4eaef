package aggregation_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// dateFromStringCase is one $dateFromString call: the expected date
// (RFC 3339), or the error code and part of its message.
type dateFromStringCase struct {
	s, format, tz string
	want          string
	code          int32
	msg           string
}

// TestDateFromString checks $dateFromString through the Go driver against
// the results mongod gives (the cases of MongoDB's own date_from_string
// test, and its documentation's): strings without a format in the forms
// mongod's parser reads (ISO dates with any time and zone, month names,
// day-first and month-first numbers, 12-hour times, zone abbreviations
// and military letters), formats with %b and %B, the ISO week date, the
// parser's errors, and a zone in the string beside a timezone argument.
func TestDateFromString(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	cases := []dateFromStringCase{
		// Without a format.
		{s: "2017-07-04T11:56:02Z", want: "2017-07-04T11:56:02Z"},
		{s: "2017-07-04T11:56:02.813Z", want: "2017-07-04T11:56:02.813Z"},
		{s: "2017-07-04T11:56:02.81Z", want: "2017-07-04T11:56:02.81Z"},
		{s: "2017-07-04T11:56.02", want: "2017-07-04T11:56:02Z"},
		{s: "2017-07-04T11:56.02.8", want: "2017-07-04T11:56:02.8Z"},
		{s: "2017-07-04T11:56.02", tz: "Europe/London", want: "2017-07-04T10:56:02Z"},
		{s: "2017-07-04T11:56.02", tz: "+01:00", want: "2017-07-04T10:56:02Z"},
		{s: "1960-07-10T12:10:37.448", want: "1960-07-10T12:10:37.448Z"},
		{s: "2017-07-06", want: "2017-07-06T00:00:00Z"},
		{s: "2017-07-06 11:36", want: "2017-07-06T11:36:00Z"},
		{s: "2017-07-14T12:02:44.771 GMT", want: "2017-07-14T12:02:44.771Z"},
		{s: "2017-07-14T12:02:44.771 GMT+02:00", want: "2017-07-14T10:02:44.771Z"},
		{s: "2017-07-14T12:02:44.771 GMT+02", want: "2017-07-14T10:02:44.771Z"},
		{s: "2017-07-14T12:02:44.771+03", want: "2017-07-14T09:02:44.771Z"},
		{s: "2017-07-14T12:02:44.771+0330", want: "2017-07-14T08:32:44.771Z"},
		{s: "2017-07-14T12:02:44.771+03:30", want: "2017-07-14T08:32:44.771Z"},
		{s: "2017-07-14T12:02:44.771 CEST", want: "2017-07-14T10:02:44.771Z"},
		{s: "2017-07-14T12:02:44.771 EST", want: "2017-07-14T17:02:44.771Z"},
		{s: "2017-07-14T12:02:44.771 PDT", want: "2017-07-14T19:02:44.771Z"},
		{s: "2017-07-14T12:02:44.771 A", want: "2017-07-14T11:02:44.771Z"},
		{s: "2017-07-14T12:02:44.771 L", want: "2017-07-14T01:02:44.771Z"},
		{s: "2017-07-14T12:02:44.771 P", want: "2017-07-14T15:02:44.771Z"},
		{s: "July 4th, 2017", want: "2017-07-04T00:00:00Z"},
		{s: "July 4th, 2017 12:39:30 BST", want: "2017-07-04T11:39:30Z"},
		{s: "July 4th, 2017 11am", want: "2017-07-04T11:00:00Z"},
		{s: "July 4th, 2017 12pm", want: "2017-07-04T12:00:00Z"},
		{s: "7/4/17", want: "2017-07-04T00:00:00Z"},
		{s: "04-07-2017", want: "2017-07-04T00:00:00Z"},
		{s: "2017-Jul-04 noon", want: "2017-07-04T12:00:00Z"},
		{s: "2017-07-04 12:48:07 GMT+0545", want: "2017-07-04T07:03:07Z"},
		{s: "2017-07-04 12:48:07 GMT-0200", want: "2017-07-04T14:48:07Z"},
		{s: "Tue, 04 Jul 2017 12:00:00 GMT", want: "2017-07-04T12:00:00Z"},
		{s: "Wed, 05 Jul 2017 08:00:00 +0000", want: "2017-07-05T08:00:00Z"},
		{s: "July 4th", code: 241, msg: "an incomplete date/time string has been found"},
		{s: "12:50:53", code: 241, msg: "an incomplete date/time string has been found"},
		{s: "2017, 12:50:53", code: 241, msg: "Error parsing date string"},
		{s: "60.Monday1770/06:59", code: 241, msg: "Error parsing date string"},
		{s: "2017-07-12T22:23:55 Europe/Amsterdam", code: 241, msg: "passing a time zone identifier as part of the string is not allowed"},
		{s: "2017-02-30", code: 241, msg: "The parsed date was invalid"},
		// A zone in the string beside a timezone argument: refused, unless
		// the argument is UTC itself.
		{s: "2017-07-12T22:23:55 GMT+02:00", tz: "Europe/Amsterdam", code: 241, msg: "with GMT offset together with a timezone argument"},
		{s: "2017-07-12T22:23:55Z", tz: "Europe/Amsterdam", code: 241, msg: "with time zone information ('Z') together with a timezone argument"},
		{s: "2017-07-12T22:23:55+02:00", tz: "UTC", want: "2017-07-12T20:23:55Z"},
		// With a format.
		{s: "2017-07-04T11:56.02.813", format: "%Y-%m-%dT%H:%M.%S.%L", want: "2017-07-04T11:56:02.813Z"},
		{s: "2017-07-14T12:02:44.771 EST", format: "%Y-%m-%dT%H:%M:%S.%L%z", want: "2017-07-14T17:02:44.771Z"},
		{s: "2017-07-14T12:02:44.771 GMT+02:00", format: "%Y-%m-%dT%H:%M:%S.%L%z", want: "2017-07-14T10:02:44.771Z"},
		{s: "05*12*1988", format: "%d*%m*%Y", want: "1988-12-05T00:00:00Z"},
		{s: "1992 % 04 % 26", format: "%Y %% %m %% %d", want: "1992-04-26T00:00:00Z"},
		{s: "4/26/1992:+0445", format: "%m/%d/%Y:%z", want: "1992-04-25T19:15:00Z"},
		{s: "4/26/1992:+285", format: "%m/%d/%Y:%Z", want: "1992-04-25T19:15:00Z"},
		{s: "15 March 2024", format: "%d %B %Y", want: "2024-03-15T00:00:00Z"},
		{s: "15 mar 2024", format: "%d %b %Y", want: "2024-03-15T00:00:00Z"},
		{s: "2017", format: "%G", want: "2017-01-02T00:00:00Z"},
		{s: "2017, Week 53", format: "%G, Week %V", want: "2018-01-01T00:00:00Z"},
		{s: "53.7.2017", format: "%V.%u.%G", want: "2018-01-07T00:00:00Z"},
		{s: "2018-01", format: "%Y-%m-%d", code: 241, msg: "Data missing"},
		{s: "2018-01", format: "%Y", code: 241, msg: "Trailing data"},
		{s: "1992-26-04", format: "Y-d-m", code: 241, msg: "Format literal not found"},
		{s: "1992", format: "%n", code: 18536, msg: "Invalid format character '%n' in format string"},
		{s: "15 Foo 2024", format: "%d %b %Y", code: 241, msg: "A textual month could not be found"},
		{s: "ISO Day 6", format: "ISO Day %u", code: 241, msg: "The parsed date was invalid"},
		{s: "ISO Week 1, 2018", format: "ISO Week %V, %Y", code: 241, msg: "Mixing of ISO dates with natural dates is not allowed"},
		{s: "12/31/2018", format: "%m/%d/%G", code: 241, msg: "Mixing of ISO dates with natural dates is not allowed"},
		{s: "12/31\x00/2018", format: "%m/%d/%Y", code: 241, msg: "Data missing"},
		{s: "12/31/2018", format: "%m/%d\x00/%Y", code: 241, msg: "Trailing data"},
		{s: "4/26/1992:+0445", format: "%m/%d/%Y:%z", tz: "+0500", code: 241, msg: "you cannot pass in a date/time string with GMT offset together with a timezone argument"},
	}
	for _, c := range cases {
		checkDateFromString(t, d, c)
	}
	// onError (MongoDB's own date_from_string_on_error test): a
	// dateString that is not a string takes it even when the format is
	// null; an unreadable string with a null format gives null.
	for _, c := range []struct{ pipeline, want string }{
		{`[{"$project": {"_id": 0, "d": {"$dateFromString": {"dateString": 5, "format": null, "onError": "E"}}}}]`, `"E"`},
		{`[{"$project": {"_id": 0, "d": {"$dateFromString": {"dateString": "Invalid date string", "format": null, "onError": "E"}}}}]`, `null`},
		{`[{"$project": {"_id": 0, "d": {"$dateFromString": {"dateString": "2017", "onError": "E"}}}}]`, `"E"`},
	} {
		r, err, _ := aggOne(t, d, c.pipeline, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.pipeline, err)
		}
		if got := r.Lookup("cursor", "firstBatch", "0", "d").String(); got != c.want {
			t.Errorf("%s: %s, want %s", c.pipeline, got, c.want)
		}
	}
}

func checkDateFromString(t *testing.T, d *mongo.Database, c dateFromStringCase) {
	t.Helper()
	spec := bson.D{{Key: "dateString", Value: c.s}}
	if c.format != "" {
		spec = append(spec, bson.E{Key: "format", Value: c.format})
	}
	if c.tz != "" {
		spec = append(spec, bson.E{Key: "timezone", Value: c.tz})
	}
	pipeline, err := bson.MarshalExtJSON(bson.D{{Key: "p", Value: bson.A{bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}, {Key: "d", Value: bson.D{{Key: "$dateFromString", Value: spec}}}}}}}}}, false, false)
	if err != nil {
		t.Fatal(err)
	}
	raw := string(pipeline)
	raw = raw[strings.Index(raw, "[") : strings.LastIndex(raw, "]")+1]
	r, err, _ := aggOne(t, d, raw, 0)
	if c.code != 0 {
		var ce mongo.CommandError
		if err == nil || !errors.As(err, &ce) || ce.Code != c.code || !strings.Contains(ce.Message, c.msg) {
			t.Errorf("%q format %q tz %q: error %v, want code %d with %q", c.s, c.format, c.tz, err, c.code, c.msg)
		}
		return
	}
	if err != nil {
		t.Errorf("%q format %q tz %q: %v", c.s, c.format, c.tz, err)
		return
	}
	got, ok := r.Lookup("cursor", "firstBatch", "0", "d").DateTimeOK()
	want, perr := time.Parse(time.RFC3339Nano, c.want)
	if perr != nil {
		t.Fatal(perr)
	}
	if !ok || got != want.UnixMilli() {
		t.Errorf("%q format %q tz %q: got %v, want %s", c.s, c.format, c.tz, r.Lookup("cursor", "firstBatch"), c.want)
	}
}
