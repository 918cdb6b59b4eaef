package expr

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// defaultDateFormat is $dateToString's default format.
const defaultDateFormat = "%Y-%m-%dT%H:%M:%S.%LZ"

var zoneCache sync.Map // string -> *time.Location

func utcZone() *time.Location { return time.UTC }

// ParseTimezone parses a MongoDB timezone: an Olson name, "UTC"/"GMT", or
// an offset "+hh:mm", "+hhmm", "+hh".
func ParseTimezone(s string) (*time.Location, error) {
	if l, ok := zoneCache.Load(s); ok {
		return l.(*time.Location), nil
	}
	loc, err := parseTZ(s)
	if err != nil {
		return nil, err
	}
	zoneCache.Store(s, loc)
	return loc, nil
}

func parseTZ(s string) (*time.Location, error) {
	bad := errs.New(errs.Location40485, "unrecognized time zone identifier: \"%s\"", s)
	if s == "" {
		return nil, bad
	}
	if s[0] == '+' || s[0] == '-' {
		sign := 1
		if s[0] == '-' {
			sign = -1
		}
		d := strings.ReplaceAll(s[1:], ":", "")
		if strings.Count(s, ":") > 1 || (len(d) != 2 && len(d) != 4) {
			return nil, bad
		}
		for _, c := range d {
			if c < '0' || c > '9' {
				return nil, bad
			}
		}
		h, _ := strconv.Atoi(d[:2])
		m := 0
		if len(d) == 4 {
			m, _ = strconv.Atoi(d[2:])
		}
		off := sign * (h*3600 + m*60)
		return time.FixedZone(s, off), nil
	}
	if s == "UTC" || s == "GMT" || s == "Z" {
		return time.UTC, nil
	}
	if strings.Contains(s, "..") || strings.HasPrefix(s, "/") {
		return nil, bad
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, bad
	}
	return loc, nil
}

// evalTimezone evaluates an optional timezone expression; ok is false when
// it evaluated to null/missing (the operator then returns null).
func evalTimezone(name string, e Expr, doc bsoncore.Document, vars *Vars) (loc *time.Location, ok bool, err error) {
	if e == nil {
		return time.UTC, true, nil
	}
	v, err := e.Eval(doc, vars)
	if err != nil {
		return nil, false, err
	}
	if IsNullish(v) {
		return nil, false, nil
	}
	loc, err = timezoneOf(v)
	return loc, err == nil, err
}

// timezoneOf parses an evaluated, non-null timezone argument.
func timezoneOf(v bsoncore.Value) (*time.Location, error) {
	if v.Type != bsoncore.TypeString {
		return nil, errs.New(errs.Location40517, "timezone must evaluate to a string, found %s", bsonutil.TypeName(v.Type))
	}
	return ParseTimezone(v.StringValue())
}

// toMillis converts a date-like value (date, timestamp, ObjectId) to
// milliseconds since the epoch.
func toMillis(name string, v bsoncore.Value) (int64, error) {
	switch v.Type {
	case bsoncore.TypeDateTime:
		return v.DateTime(), nil
	case bsoncore.TypeTimestamp:
		t, _ := v.Timestamp()
		return int64(t) * 1000, nil
	case bsoncore.TypeObjectID:
		id := v.ObjectID()
		secs := uint32(id[0])<<24 | uint32(id[1])<<16 | uint32(id[2])<<8 | uint32(id[3])
		return int64(secs) * 1000, nil
	}
	return 0, errs.New(errs.Location16006, "can't convert from BSON type %s to Date", bsonutil.TypeName(v.Type))
}

// localTime returns the time of ms in loc.
func localTime(ms int64, loc *time.Location) time.Time {
	if loc == time.UTC {
		return time.UnixMilli(ms).UTC()
	}
	return time.UnixMilli(ms).In(loc)
}

// mongoWeek is %U / $week: weeks starting on Sunday, days before the first
// Sunday are week 0.
func mongoWeek(t time.Time) int {
	yday := t.YearDay() - 1
	wday := int(t.Weekday())
	return (yday + 7 - wday) / 7
}

// isoDOW returns 1 (Monday) .. 7 (Sunday).
func isoDOW(t time.Time) int {
	d := int(t.Weekday())
	if d == 0 {
		return 7
	}
	return d
}

var monthAbbr = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// formatDate renders ms in loc with a $dateToString format.
func formatDate(format string, ms int64, loc *time.Location) (string, error) {
	t := localTime(ms, loc)
	var sb strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			sb.WriteByte(c)
			continue
		}
		if i+1 >= len(format) {
			return "", errs.New(errs.Location18535, "Unmatched '%s' at end of format string", "%")
		}
		i++
		switch format[i] {
		case '%':
			sb.WriteByte('%')
		case 'Y':
			y := t.Year()
			if y < 0 || y > 9999 {
				return "", errs.New(errs.Location18537, "Could not convert date to string: date component was outside the supported range of 0-9999: %d", y)
			}
			fmt.Fprintf(&sb, "%04d", y)
		case 'G':
			y, _ := t.ISOWeek()
			if y < 0 || y > 9999 {
				return "", errs.New(errs.Location18537, "Could not convert date to string: date component was outside the supported range of 0-9999: %d", y)
			}
			fmt.Fprintf(&sb, "%04d", y)
		case 'm':
			fmt.Fprintf(&sb, "%02d", int(t.Month()))
		case 'd':
			fmt.Fprintf(&sb, "%02d", t.Day())
		case 'H':
			fmt.Fprintf(&sb, "%02d", t.Hour())
		case 'M':
			fmt.Fprintf(&sb, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&sb, "%02d", t.Second())
		case 'L':
			fmt.Fprintf(&sb, "%03d", t.Nanosecond()/1e6)
		case 'j':
			fmt.Fprintf(&sb, "%03d", t.YearDay())
		case 'w':
			fmt.Fprintf(&sb, "%d", int(t.Weekday())+1)
		case 'u':
			fmt.Fprintf(&sb, "%d", isoDOW(t))
		case 'U':
			fmt.Fprintf(&sb, "%02d", mongoWeek(t))
		case 'V':
			_, w := t.ISOWeek()
			fmt.Fprintf(&sb, "%02d", w)
		case 'b':
			sb.WriteString(monthAbbr[t.Month()-1])
		case 'B':
			sb.WriteString(t.Month().String())
		case 'z', 'Z':
			_, off := t.Zone()
			if format[i] == 'Z' {
				// minutes offset, e.g. "-300" or "270" (no '+')
				fmt.Fprintf(&sb, "%d", off/60)
				break
			}
			sign := byte('+')
			if off < 0 {
				sign, off = '-', -off
			}
			sb.WriteByte(sign)
			fmt.Fprintf(&sb, "%02d%02d", off/3600, off%3600/60)
		default:
			return "", errs.New(errs.Location18536, "Invalid format character '%%%c' in format string", format[i])
		}
	}
	return sb.String(), nil
}

// validateFormat checks a constant format string at parse time.
func validateFormat(format string) error {
	_, err := formatDate(format, 0, time.UTC)
	return err
}

// floorDiv divides rounding toward negative infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// wallMillis returns ms shifted by loc's offset at that instant: the local
// wall clock read as if it were UTC.
func wallMillis(ms int64, loc *time.Location) int64 {
	_, off := localTime(ms, loc).Zone()
	return ms + int64(off)*1000
}

// parseDayOfWeek parses startOfWeek names ("monday", "mon", ...).
func parseDayOfWeek(s string) (time.Weekday, bool) {
	s = strings.ToLower(s)
	for d := time.Sunday; d <= time.Saturday; d++ {
		full := strings.ToLower(d.String())
		if s == full || s == full[:3] {
			return d, true
		}
	}
	return 0, false
}
