package expr

import (
	"strings"
	"time"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(map[string]opParser{
		"$dateAdd": parseDateAdd(1), "$dateSubtract": parseDateAdd(-1),
		"$dateDiff": parseDateDiff, "$dateTrunc": parseDateTrunc,
	})
}

var unitMillis = map[string]int64{
	"week": 7 * 86400000, "day": 86400000, "hour": 3600000, "minute": 60000, "second": 1000, "millisecond": 1,
}

func validUnit(u string) bool {
	switch u {
	case "year", "quarter", "month", "week", "day", "hour", "minute", "second", "millisecond":
		return true
	}
	return false
}

// evalUnit evaluates a unit parameter; ok false means null.
func evalUnit(name, param string, e Expr, doc bsoncore.Document, vars *Vars) (string, bool, error) {
	v, err := e.Eval(doc, vars)
	if err != nil {
		return "", false, err
	}
	if IsNullish(v) {
		return "", false, nil
	}
	u, err := unitOf(name, param, v)
	return u, err == nil, err
}

// unitOf parses an evaluated, non-null unit argument.
func unitOf(name, param string, v bsoncore.Value) (string, error) {
	if v.Type != bsoncore.TypeString {
		return "", errs.New(errs.Location5439013, "%s requires '%s' to be a string, but got %s", name, param, bsonutil.TypeName(v.Type))
	}
	u := v.StringValue()
	if !validUnit(u) {
		return "", errs.New(errs.Location5439014, "%s parameter '%s' value cannot be recognized as a time unit: %s", name, param, u)
	}
	return u, nil
}

// evalArgs evaluates the named arguments of spec present in it; any
// nullish makes the operator's result null (ok false), checked before any
// argument is validated, as mongod's date arithmetic does.
func evalArgs(spec map[string]Expr, doc bsoncore.Document, vars *Vars, names ...string) (map[string]bsoncore.Value, bool, error) {
	vals := make(map[string]bsoncore.Value, len(names))
	ok := true
	for _, n := range names {
		e := spec[n]
		if e == nil {
			continue
		}
		v, err := e.Eval(doc, vars)
		if err != nil {
			return nil, false, err
		}
		if IsNullish(v) {
			ok = false
		}
		vals[n] = v
	}
	return vals, ok, nil
}

// timezoneArg parses the evaluated timezone argument, UTC when absent.
func timezoneArg(vals map[string]bsoncore.Value) (*time.Location, error) {
	v, ok := vals["timezone"]
	if !ok {
		return time.UTC, nil
	}
	return timezoneOf(v)
}

// startOfWeekArg parses the evaluated startOfWeek argument, Sunday when
// absent; mongod reads it only for the unit week.
func startOfWeekArg(name string, vals map[string]bsoncore.Value) (time.Weekday, error) {
	v, ok := vals["startOfWeek"]
	if !ok {
		return time.Sunday, nil
	}
	if v.Type != bsoncore.TypeString {
		return 0, errs.New(errs.Location5439015, "%s requires 'startOfWeek' to be a string, but got %s", name, bsonutil.TypeName(v.Type))
	}
	d, ok := parseDayOfWeek(v.StringValue())
	if !ok {
		return 0, errs.New(errs.Location5439016, "%s parameter 'startOfWeek' value cannot be recognized as a day of a week: %s", name, v.StringValue())
	}
	return d, nil
}

// unrecognized turns parseSpec's unknown-argument error into mongod's
// message for the operator, with code.
func unrecognized(name string, err error, code errs.Code) error {
	msg := err.(*errs.Error).Msg
	if arg, ok := strings.CutPrefix(msg, name+" found an unknown argument: "); ok {
		return errs.New(code, "Unrecognized argument to %s: %s", name, arg)
	}
	return errs.New(code, "%s", msg)
}

// addUnits adds amount units to ms in loc as $dateAdd does.
func addUnits(ms int64, unit string, amount int64, loc *time.Location) (int64, error) {
	switch unit {
	case "year", "quarter", "month":
		months := amount
		if unit == "year" {
			months *= 12
		} else if unit == "quarter" {
			months *= 3
		}
		t := localTime(ms, loc)
		y, m := t.Year(), int64(t.Month())-1+months
		ny := int64(y) + floorDiv(m, 12)
		nm := time.Month(m - floorDiv(m, 12)*12 + 1)
		d := t.Day()
		if last := daysIn(int(ny), nm); d > last {
			d = last
		}
		return time.Date(int(ny), nm, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc).UnixMilli(), nil
	case "week", "day":
		days := amount
		if unit == "week" {
			days *= 7
		}
		if loc == time.UTC {
			return ms + days*86400000, nil
		}
		t := localTime(ms, loc)
		return time.Date(t.Year(), t.Month(), t.Day()+int(days), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc).UnixMilli(), nil
	}
	return ms + amount*unitMillis[unit], nil
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func parseDateAdd(sign int64) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		if args.Type != bsoncore.TypeEmbeddedDocument {
			return nil, errs.New(errs.Location5166400, "%s expects an object as its argument", name)
		}
		spec, err := parseSpec(name, args, pc, nil, "startDate", "unit", "amount", "timezone")
		if err != nil {
			return nil, unrecognized(name, err, errs.Location5166401)
		}
		if spec["startDate"] == nil || spec["unit"] == nil || spec["amount"] == nil {
			return nil, errs.New(errs.Location5166402, "%s requires startDate, unit, and amount to be present", name)
		}
		return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
			vals, ok, err := evalArgs(spec, doc, vars, "startDate", "unit", "amount", "timezone")
			if err != nil || !ok {
				return Null, err
			}
			sd := vals["startDate"]
			if sd.Type != bsoncore.TypeDateTime && sd.Type != bsoncore.TypeTimestamp && sd.Type != bsoncore.TypeObjectID {
				return Missing, errs.New(errs.Location5166403, "%s requires startDate to be convertible to a date", name)
			}
			ms, err := toMillis(name, sd)
			if err != nil {
				return Missing, err
			}
			uv := vals["unit"]
			if uv.Type != bsoncore.TypeString {
				return Missing, errs.New(errs.Location5166404, "%s expects string defining the time unit", name)
			}
			unit := uv.StringValue()
			if !validUnit(unit) {
				return Missing, errs.New(errs.FailedToParse, "unknown time unit value: %s", unit)
			}
			amount, ok := asIntegral(vals["amount"])
			if !ok {
				return Missing, errs.New(errs.Location5166405, "%s expects integer amount of time units", name)
			}
			loc, err := timezoneArg(vals)
			if err != nil {
				return Missing, err
			}
			r, err := addUnits(ms, unit, sign*amount, loc)
			if err != nil {
				return Missing, err
			}
			return Date(r), nil
		}), nil
	}
}

// monthIndex returns a local time's months since year 0.
func monthIndex(t time.Time) int64 { return int64(t.Year())*12 + int64(t.Month()) - 1 }

// dayIndex returns the local day number of ms in loc.
func dayIndex(ms int64, loc *time.Location) int64 {
	return floorDiv(wallMillis(ms, loc), 86400000)
}

// diffUnits counts unit boundaries crossed from a to b, as $dateDiff does.
func diffUnits(a, b int64, unit string, loc *time.Location, sow time.Weekday) int64 {
	switch unit {
	case "year":
		return int64(localTime(b, loc).Year() - localTime(a, loc).Year())
	case "quarter":
		return floorDiv(monthIndex(localTime(b, loc)), 3) - floorDiv(monthIndex(localTime(a, loc)), 3)
	case "month":
		return monthIndex(localTime(b, loc)) - monthIndex(localTime(a, loc))
	case "week":
		// day 0 (1970-01-01) is a Thursday (weekday 4)
		shift := (int64(4) - int64(sow) + 7) % 7
		return floorDiv(dayIndex(b, loc)+shift, 7) - floorDiv(dayIndex(a, loc)+shift, 7)
	case "day":
		return dayIndex(b, loc) - dayIndex(a, loc)
	case "millisecond":
		return b - a
	}
	u := unitMillis[unit]
	return floorDiv(wallMillis(b, loc), u) - floorDiv(wallMillis(a, loc), u)
}

func parseDateDiff(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	if args.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.Location5166301, "$dateDiff only supports an object as its argument")
	}
	spec, err := parseSpec(name, args, pc, nil, "startDate", "endDate", "unit", "timezone", "startOfWeek")
	if err != nil {
		return nil, unrecognized(name, err, errs.Location5166302)
	}
	for _, r := range []struct {
		arg  string
		code errs.Code
	}{{"startDate", errs.Location5166303}, {"endDate", errs.Location5166304}, {"unit", errs.Location5166305}} {
		if spec[r.arg] == nil {
			return nil, errs.New(r.code, "Missing '%s' parameter to $dateDiff", r.arg)
		}
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		vals, ok, err := evalArgs(spec, doc, vars, "startDate", "endDate", "unit", "timezone")
		if err != nil || !ok {
			return Null, err
		}
		// startOfWeek counts (a null one makes the result null) only when
		// the unit is "week", as mongod reads the unit's raw value.
		week := false
		if u, isStr := vals["unit"].StringValueOK(); isStr && u == "week" {
			week = true
			w, ok, err := evalArgs(spec, doc, vars, "startOfWeek")
			if err != nil || !ok {
				return Null, err
			}
			if v, has := w["startOfWeek"]; has {
				vals["startOfWeek"] = v
			}
		}
		loc, err := timezoneArg(vals)
		if err != nil {
			return Missing, err
		}
		a, err := toMillis(name, vals["startDate"])
		if err != nil {
			return Missing, errs.New(errs.Location5166307, "$dateDiff requires 'startDate' to be a date, but got %s", bsonutil.TypeName(vals["startDate"].Type))
		}
		b, err := toMillis(name, vals["endDate"])
		if err != nil {
			return Missing, errs.New(errs.Location5166307, "$dateDiff requires 'endDate' to be a date, but got %s", bsonutil.TypeName(vals["endDate"].Type))
		}
		unit, err := unitOf(name, "unit", vals["unit"])
		if err != nil {
			return Missing, err
		}
		sow := time.Sunday
		if week {
			if sow, err = startOfWeekArg(name, vals); err != nil {
				return Missing, err
			}
		}
		return Int64(diffUnits(a, b, unit, loc, sow)), nil
	}), nil
}

// truncDate rounds ms down to a multiple of binSize units in loc, with
// bins anchored at 2000-01-01T00:00 local time.
func truncDate(ms int64, unit string, bin int64, loc *time.Location, sow time.Weekday) int64 {
	t := localTime(ms, loc)
	switch unit {
	case "year", "quarter", "month":
		per := int64(1)
		if unit == "year" {
			per = 12
		} else if unit == "quarter" {
			per = 3
		}
		m := monthIndex(t) - 2000*12
		m = floorDiv(m, per*bin) * per * bin
		y := 2000 + floorDiv(m, 12)
		return time.Date(int(y), time.Month(m-floorDiv(m, 12)*12+1), 1, 0, 0, 0, 0, loc).UnixMilli()
	case "week", "day":
		ref := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
		step := bin
		if unit == "week" {
			for ref.Weekday() != sow {
				ref = ref.AddDate(0, 0, 1)
			}
			step *= 7
		}
		refDay := ref.Unix() / 86400
		day := dayIndex(ms, loc)
		d := refDay + floorDiv(day-refDay, step)*step
		dt := time.Unix(d*86400, 0).UTC()
		return time.Date(dt.Year(), dt.Month(), dt.Day(), 0, 0, 0, 0, loc).UnixMilli()
	}
	u := unitMillis[unit] * bin
	ref := wallMillis(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), time.UTC)
	w := wallMillis(ms, loc)
	tw := ref + floorDiv(w-ref, u)*u
	// back to an instant: subtract the offset in effect
	return ms - (w - tw)
}

func parseDateTrunc(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	if args.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.Location5439007, "$dateTrunc only supports an object as its argument")
	}
	spec, err := parseSpec(name, args, pc, nil, "date", "unit", "binSize", "timezone", "startOfWeek")
	if err != nil {
		return nil, unrecognized(name, err, errs.Location5439008)
	}
	if spec["date"] == nil {
		return nil, errs.New(errs.Location5439009, "Missing 'date' parameter to $dateTrunc")
	}
	if spec["unit"] == nil {
		return nil, errs.New(errs.Location5439010, "Missing 'unit' parameter to $dateTrunc")
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		vals, ok, err := evalArgs(spec, doc, vars, "date", "unit", "binSize", "timezone")
		if err != nil || !ok {
			return Null, err
		}
		// startOfWeek counts only for the unit "week" (its raw value), as
		// in $dateDiff.
		week := false
		if u, isStr := vals["unit"].StringValueOK(); isStr && u == "week" {
			week = true
			w, ok, err := evalArgs(spec, doc, vars, "startOfWeek")
			if err != nil || !ok {
				return Null, err
			}
			if v, has := w["startOfWeek"]; has {
				vals["startOfWeek"] = v
			}
		}
		dv := vals["date"]
		ms, err := toMillis(name, dv)
		if err != nil {
			return Missing, errs.New(errs.Location5439012, "$dateTrunc requires 'date' to be a date, but got %s", bsonutil.TypeName(dv.Type))
		}
		unit, err := unitOf(name, "unit", vals["unit"])
		if err != nil {
			return Missing, err
		}
		bin := int64(1)
		if bv, ok := vals["binSize"]; ok {
			b, integral := asIntegral(bv)
			if !integral {
				return Missing, errs.New(errs.Location5439017, "$dateTrunc requires 'binSize' to be a 64-bit integer, but got value '%s' of type %s", bsonutil.FormatValue(bv, msgStyle), bsonutil.TypeName(bv.Type))
			}
			if b <= 0 {
				return Missing, errs.New(errs.Location5439018, "$dateTrunc requires 'binSize' to be greater than 0, but got value %d", b)
			}
			bin = b
		}
		loc, err := timezoneArg(vals)
		if err != nil {
			return Missing, err
		}
		sow := time.Sunday
		if week {
			if sow, err = startOfWeekArg(name, vals); err != nil {
				return Missing, err
			}
		}
		return Date(truncDate(ms, unit, bin, loc, sow)), nil
	}), nil
}
