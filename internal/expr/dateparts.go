package expr

import (
	"math"
	"strings"
	"time"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	parts := map[string]func(t time.Time) int{
		"$year":         func(t time.Time) int { return t.Year() },
		"$month":        func(t time.Time) int { return int(t.Month()) },
		"$dayOfMonth":   func(t time.Time) int { return t.Day() },
		"$hour":         func(t time.Time) int { return t.Hour() },
		"$minute":       func(t time.Time) int { return t.Minute() },
		"$second":       func(t time.Time) int { return t.Second() },
		"$millisecond":  func(t time.Time) int { return t.Nanosecond() / 1e6 },
		"$dayOfWeek":    func(t time.Time) int { return int(t.Weekday()) + 1 },
		"$dayOfYear":    func(t time.Time) int { return t.YearDay() },
		"$week":         mongoWeek,
		"$isoWeek":      func(t time.Time) int { _, w := t.ISOWeek(); return w },
		"$isoWeekYear":  func(t time.Time) int { y, _ := t.ISOWeek(); return y },
		"$isoDayOfWeek": isoDOW,
	}
	m := map[string]opParser{}
	for name, f := range parts {
		m[name] = parseDatePart(f)
	}
	m["$dateToString"] = parseDateToString
	m["$dateToParts"] = parseDateToParts
	m["$dateFromParts"] = parseDateFromParts
	register(m)
}

// parseDatePart handles `{$op: <date>}`, `{$op: [<date>]}` and
// `{$op: {date, timezone}}`.
func parseDatePart(f func(time.Time) int) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		var dateE, tzE Expr
		if args.Type == bsoncore.TypeEmbeddedDocument && !isOperatorDoc(args) {
			elems, _ := args.Document().Elements()
			for _, el := range elems {
				e, err := parse(el.Value(), pc)
				if err != nil {
					return nil, err
				}
				switch el.Key() {
				case "date":
					dateE = e
				case "timezone":
					tzE = e
				default:
					return nil, errs.New(errs.Location40535, "unrecognized option to %s: \"%s\"", name, el.Key())
				}
			}
			if dateE == nil {
				return nil, errs.New(errs.Location40539, "missing 'date' argument to %s, provided: %s", name, args.Document().String())
			}
		} else {
			es, err := parseN(name, args, pc, 1, 1)
			if err != nil {
				return nil, err
			}
			dateE = es[0]
		}
		// part is which of year, month and day the operator returns (0
		// for another part): those need no time.Time, and in UTC come
		// from the day's cache (Vars.utcDate).
		part := 0
		switch name {
		case "$year":
			part = 1
		case "$month":
			part = 2
		case "$dayOfMonth":
			part = 3
		}
		if part != 0 && tzE == nil {
			return &utcDatePart{date: dateE, part: part}, nil
		}
		return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
			// mongod's order: the date (null gives null, then its
			// conversion), then the timezone (null gives null, a
			// non-string is 40533, an unknown zone 40485).
			v, err := dateE.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if IsNullish(v) {
				return Null, nil
			}
			ms, err := toMillis(name, v)
			if err != nil {
				return Missing, err
			}
			loc := time.UTC
			if tzE != nil {
				tz, err := tzE.Eval(doc, vars)
				if err != nil {
					return Missing, err
				}
				if IsNullish(tz) {
					return Null, nil
				}
				if tz.Type != bsoncore.TypeString {
					return Missing, errs.New(errs.Code(40533), "%s requires a string for the timezone argument, but was given a %s (%s)", name, bsonutil.TypeName(tz.Type), bsonutil.FormatValue(tz, msgStyle))
				}
				if loc, err = ParseTimezone(tz.StringValue()); err != nil {
					return Missing, err
				}
			}
			var n int
			if part != 0 {
				var ymd [3]int
				if loc == time.UTC {
					ymd[0], ymd[1], ymd[2] = vars.utcDate(ms)
				} else {
					_, ymd[0], ymd[1], ymd[2] = vars.localDate(ms, loc)
				}
				n = ymd[part-1]
			} else {
				t, _, _, _ := vars.localDate(ms, loc)
				n = f(t)
			}
			if name == "$isoWeekYear" {
				// mongod's TimeZone::isoYear is a long long: the result
				// is a long, unlike the other parts.
				return Int64(int64(n)), nil
			}
			return Int32(int32(n)), nil
		}), nil
	}
}

// isOperatorDoc reports whether a document value's first key starts with $.
func isOperatorDoc(v bsoncore.Value) bool {
	el, err := v.Document().IndexErr(0)
	return err == nil && strings.HasPrefix(el.Key(), "$")
}

func parseDateToString(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	if args.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.Location18629, "$dateToString only supports an object as its argument")
	}
	spec, err := parseSpec(name, args, pc, nil, "date", "format", "timezone", "onNull")
	if err != nil {
		return nil, errs.New(errs.Location18534, "Unrecognized argument to $dateToString: %s", strings.TrimPrefix(err.(*errs.Error).Msg, name+" found an unknown argument: "))
	}
	if spec["date"] == nil {
		return nil, errs.New(errs.Location18628, "Missing 'date' parameter to $dateToString")
	}
	if f, ok := spec["format"].(constExpr); ok && f.v.Type == bsoncore.TypeString {
		if err := validateFormat(f.v.StringValue()); err != nil {
			return nil, err
		}
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		format := defaultDateFormat
		if fe := spec["format"]; fe != nil {
			fv, err := fe.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if IsNullish(fv) {
				return Null, nil
			}
			if fv.Type != bsoncore.TypeString {
				return Missing, errs.New(errs.Location18533, "$dateToString requires that 'format' be a string, found: %s with value %s", bsonutil.TypeName(fv.Type), bsonutil.FormatValue(fv, msgStyle))
			}
			format = fv.StringValue()
		}
		loc, ok, err := evalTimezone(name, spec["timezone"], doc, vars)
		if err != nil {
			return Missing, err
		}
		if !ok {
			return Null, nil
		}
		d, err := spec["date"].Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		if IsNullish(d) {
			if spec["onNull"] != nil {
				return spec["onNull"].Eval(doc, vars)
			}
			return Null, nil
		}
		ms, err := toMillis(name, d)
		if err != nil {
			return Missing, err
		}
		s, err := formatDate(format, ms, loc)
		if err != nil {
			return Missing, err
		}
		return String(s), nil
	}), nil
}

func parseDateToParts(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	if args.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.Location40524, "$dateToParts only supports an object as its argument")
	}
	spec, err := parseSpec(name, args, pc, nil, "date", "timezone", "iso8601")
	if err != nil {
		return nil, errs.New(errs.Location40520, "Unrecognized argument to $dateToParts: %s", strings.TrimPrefix(err.(*errs.Error).Msg, name+" found an unknown argument: "))
	}
	if spec["date"] == nil {
		return nil, errs.New(errs.Location40522, "Missing 'date' parameter to $dateToParts")
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		d, err := spec["date"].Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		loc, ok, err := evalTimezone(name, spec["timezone"], doc, vars)
		if err != nil {
			return Missing, err
		}
		iso := false
		if ie := spec["iso8601"]; ie != nil {
			iv, err := ie.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if IsNullish(iv) {
				return Null, nil
			}
			if iv.Type != bsoncore.TypeBoolean {
				return Missing, errs.New(errs.Location40521, "iso8601 must evaluate to a bool, found %s", bsonutil.TypeName(iv.Type))
			}
			iso = iv.Boolean()
		}
		if !ok || IsNullish(d) {
			return Null, nil
		}
		ms, err := toMillis(name, d)
		if err != nil {
			return Missing, err
		}
		t := localTime(ms, loc)
		b := NewDocBuilder()
		if iso {
			y, w := t.ISOWeek()
			b.Append("isoWeekYear", Int32(int32(y)))
			b.Append("isoWeek", Int32(int32(w)))
			b.Append("isoDayOfWeek", Int32(int32(isoDOW(t))))
		} else {
			b.Append("year", Int32(int32(t.Year())))
			b.Append("month", Int32(int32(t.Month())))
			b.Append("day", Int32(int32(t.Day())))
		}
		b.Append("hour", Int32(int32(t.Hour())))
		b.Append("minute", Int32(int32(t.Minute())))
		b.Append("second", Int32(int32(t.Second())))
		b.Append("millisecond", Int32(int32(t.Nanosecond()/1e6)))
		return b.Value(), nil
	}), nil
}

func parseDateFromParts(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	if args.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.Location40519, "$dateFromParts only supports an object as its argument")
	}
	all := []string{"year", "month", "day", "hour", "minute", "second", "millisecond", "isoWeekYear", "isoWeek", "isoDayOfWeek", "timezone"}
	spec, err := parseSpec(name, args, pc, nil, all...)
	if err != nil {
		return nil, errs.New(errs.Location40518, "Unrecognized argument to $dateFromParts: %s", strings.TrimPrefix(err.(*errs.Error).Msg, name+" found an unknown argument: "))
	}
	iso := spec["isoWeekYear"] != nil
	if spec["year"] == nil && !iso {
		return nil, errs.New(errs.Location40516, "$dateFromParts requires either 'year' or 'isoWeekYear' to be present")
	}
	if spec["year"] != nil && (iso || spec["isoWeek"] != nil || spec["isoDayOfWeek"] != nil) {
		return nil, errs.New(errs.Location40489, "$dateFromParts does not allow mixing natural dates with ISO dates")
	}
	if iso && (spec["month"] != nil || spec["day"] != nil) {
		return nil, errs.New(errs.Location40525, "$dateFromParts does not allow mixing ISO dates with natural dates")
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		vals := map[string]int64{}
		null := false
		for _, k := range all[:10] {
			e := spec[k]
			def := int64(0)
			if k == "month" || k == "day" || k == "isoWeek" || k == "isoDayOfWeek" {
				def = 1
			}
			if e == nil {
				vals[k] = def
				continue
			}
			v, err := e.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if IsNullish(v) {
				null = true
				continue
			}
			if !isNum(v) {
				return Missing, errs.New(errs.Location40515, "'%s' must evaluate to an integer, found %s with value %s", k, bsonutil.TypeName(v.Type), bsonutil.FormatValue(v, msgStyle))
			}
			x, ok := asIntegral(v)
			if !ok {
				return Missing, errs.New(errs.Location40515, "'%s' must evaluate to an integer, found %s with value %s", k, bsonutil.TypeName(v.Type), bsonutil.FormatValue(v, msgStyle))
			}
			// The seconds and milliseconds take any value, which carries
			// into the larger units; mongod bounds the other parts.
			switch {
			case k == "year" && (x < 1 || x > 9999):
				return Missing, errs.New(errs.Location40523, "'year' must evaluate to an integer in the range 1 to 9999, found %d", x)
			case k == "isoWeekYear" && (x < 1 || x > 9999):
				return Missing, errs.New(errs.Location31095, "'isoWeekYear' must evaluate to an integer in the range 1 to 9999, found %d", x)
			case (k == "second" && (x > math.MaxInt64/1000000 || x < math.MinInt64/1000000)) || (k == "millisecond" && (x > math.MaxInt64/1000 || x < math.MinInt64/1000)):
				// mongod carries them in microseconds.
				return Missing, errs.New(errs.DurationOverflow, "Overflow casting from a lower-precision duration to a higher-precision duration")
			case k == "year" || k == "isoWeekYear":
			case k != "second" && k != "millisecond" && (x < -32768 || x > 32767):
				return Missing, errs.New(errs.Location31034, "'%s' must evaluate to a value in the range [-32768, 32767]; value %d is not in range", k, x)
			}
			vals[k] = x
		}
		loc, ok, err := evalTimezone(name, spec["timezone"], doc, vars)
		if err != nil {
			return Missing, err
		}
		if null || !ok {
			return Null, nil
		}
		h, mi, s, ms := int(vals["hour"]), int(vals["minute"]), int(vals["second"]), int(vals["millisecond"])
		if !iso {
			return Date(time.Date(int(vals["year"]), time.Month(vals["month"]), int(vals["day"]), h, mi, s, 0, loc).UnixMilli() + int64(ms)), nil
		}
		// ISO week 1 contains January 4th.
		jan4 := time.Date(int(vals["isoWeekYear"]), 1, 4, 0, 0, 0, 0, time.UTC)
		week1Mon := jan4.AddDate(0, 0, 1-isoDOW(jan4))
		d := week1Mon.AddDate(0, 0, int((vals["isoWeek"]-1)*7+vals["isoDayOfWeek"]-1))
		return Date(time.Date(d.Year(), d.Month(), d.Day(), h, mi, s, 0, loc).UnixMilli() + int64(ms)), nil
	}), nil
}
