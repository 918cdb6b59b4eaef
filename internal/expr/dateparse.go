package expr

import (
	"strconv"
	"strings"
	"time"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(map[string]opParser{"$dateFromString": parseDateFromString})
}

func dateParseErr(s, why string) error {
	return errs.New(errs.ConversionFailure, "Error parsing date string '%s'; %s", s, why)
}

func dateConversionErr(format string, args ...any) error {
	return errs.New(errs.ConversionFailure, format, args...)
}

// isUTCLocation reports whether a timezone argument is UTC itself ("UTC"
// or a zero offset): mongod then lets a zone written in the string stand,
// where any other timezone argument beside one is an error.
func isUTCLocation(loc *time.Location) bool {
	if loc == time.UTC {
		return true
	}
	name, off := time.Unix(0, 0).In(loc).Zone()
	return off == 0 && name != "" && (name[0] == '+' || name[0] == '-')
}

// parseDateString parses s with a $dateFromString format ("" for none:
// parseFree's forms) in loc, the timezone argument (nil when there is
// none: UTC unless s names a zone). It returns milliseconds since the
// epoch. mongod's parser stops at a NUL in the string or the format.
func parseDateString(s, format string, loc *time.Location) (int64, error) {
	var p parsedDate
	var err error
	if format == "" {
		p, err = parseFree(s)
	} else {
		p, err = parseFormatted(s, format)
	}
	if err != nil {
		return 0, err
	}
	if p.iso {
		if p.natural {
			return 0, dateParseErr(s, "Mixing of ISO dates with natural dates is not allowed")
		}
		if p.isoY < 0 {
			return 0, dateParseErr(s, "The parsed date was invalid")
		}
		if p.isoW < 0 {
			p.isoW = 1
		}
		if p.isoD < 0 {
			p.isoD = 1
		}
		jan4 := time.Date(p.isoY, 1, 4, 0, 0, 0, 0, time.UTC)
		t := jan4.AddDate(0, 0, 1-isoDOW(jan4)+(p.isoW-1)*7+p.isoD-1)
		p.y, p.m, p.d, p.hasDate, p.hasYear = t.Year(), int(t.Month()), t.Day(), true, true
	}
	if !p.hasDate || !p.hasYear {
		return 0, dateIncomplete(s)
	}
	if p.m < 1 || p.m > 12 || p.d < 1 || (!p.dayOfYear && p.d > daysIn(p.y, time.Month(p.m))) {
		return 0, dateParseErr(s, "The parsed date was invalid")
	}
	if p.h > 23 || p.mi > 59 || p.sec > 59 {
		return 0, dateParseErr(s, "The parsed time was invalid")
	}
	if p.zone.kind != zoneNone && loc != nil && !isUTCLocation(loc) {
		if p.zone.kind == zoneOffset {
			return 0, dateConversionErr("you cannot pass in a date/time string with GMT offset together with a timezone argument")
		}
		return 0, dateConversionErr("you cannot pass in a date/time string with time zone information ('%s') together with a timezone argument", p.zone.abbr)
	}
	if p.weekday > 0 {
		// A day name moves the date forward to that weekday (none when
		// it already is one).
		wd := int(time.Date(p.y, time.Month(p.m), p.d, 0, 0, 0, 0, time.UTC).Weekday()) + 1
		p.d += (p.weekday - wd + 7) % 7
	}
	zone := loc
	if p.zone.kind != zoneNone {
		zone = time.FixedZone("", p.zone.offset)
	} else if zone == nil {
		zone = time.UTC
	}
	return time.Date(p.y, time.Month(p.m), p.d, p.h, p.mi, p.sec, p.ms*1e6, zone).UnixMilli(), nil
}

// checkFromStringFormat checks a $dateFromString format whole: every '%'
// followed by a specifier the parser reads (18536) or by another '%', and
// none at the end (18535).
func checkFromStringFormat(format string) error {
	for k := 0; k < len(format); k++ {
		if format[k] != '%' {
			continue
		}
		k++
		if k >= len(format) {
			return errs.New(errs.Location18535, "Unmatched '%s' at end of format string", "%")
		}
		if !strings.ContainsRune("YmdbBjHMSLGVuzZ%", rune(format[k])) {
			return errs.New(errs.Location18536, "Invalid format character '%%%c' in format string", format[k])
		}
	}
	return nil
}

// parseFormatted reads s with a $dateFromString format, as mongod's
// parser does: a literal of the format must be in s ("Format literal not
// found"), each specifier reads its number (or month name, or zone), the
// string ending first is "Data missing" and the format ending first
// "Trailing data". The date's parts must all be there (the time's
// default to zero) or come from the ISO week date (%G, %V, %u), never
// mixed with %Y, %m, %d, %j, %b or %B.
func parseFormatted(s, format string) (parsedDate, error) {
	if n := strings.IndexByte(s, 0); n >= 0 {
		s = s[:n]
	}
	if n := strings.IndexByte(format, 0); n >= 0 {
		format = format[:n]
	}
	// The format is checked whole first, as mongod does.
	if err := checkFromStringFormat(format); err != nil {
		return parsedDate{}, err
	}
	p := parsedDate{isoY: -1, isoW: -1, isoD: -1}
	var hasM, hasD bool
	i, k := 0, 0
	num := func(maxDigits int) (int, bool) {
		v, n := digitsAt(s, i, maxDigits)
		i += n
		return v, n > 0
	}
	for ; k < len(format) && i < len(s); k++ {
		c := format[k]
		if c != '%' {
			if s[i] != c {
				return p, freeErr(s, i, "Format literal not found")
			}
			i++
			continue
		}
		k++
		at := i
		ok := true
		switch format[k] {
		case 'Y':
			p.y, ok = num(4)
			p.hasYear, p.natural = true, true
		case 'm':
			p.m, ok = num(2)
			hasM, p.natural = true, true
		case 'd':
			p.d, ok = num(2)
			hasD, p.natural = true, true
		case 'b', 'B':
			var n int
			p.m, n = readMonthName(s, i)
			if p.m == 0 {
				return p, freeErr(s, at, "A textual month could not be found")
			}
			i, hasM, p.natural = n, true, true
		case 'j':
			p.d, ok = num(3)
			p.m, hasM, hasD, p.dayOfYear, p.natural = 1, true, true, true, true
		case 'H':
			p.h, ok = num(2)
			p.hasTime = true
		case 'M':
			p.mi, ok = num(2)
			p.hasTime = true
		case 'S':
			p.sec, ok = num(2)
			p.hasTime = true
		case 'L':
			start := i
			p.ms, ok = num(3)
			for n := i - start; n < 3; n++ {
				p.ms *= 10
			}
			p.hasTime = true
		case 'G':
			p.isoY, ok = num(4)
			p.iso = true
		case 'V':
			p.isoW, ok = num(2)
			p.iso = true
		case 'u':
			p.isoD, ok = num(1)
			p.iso = true
		case 'z':
			z, n, msg := readZone(s, i)
			if msg != "" {
				return p, freeErr(s, n, msg)
			}
			p.zone, i = z, n
		case 'Z':
			j := i
			if j < len(s) && (s[j] == '+' || s[j] == '-') {
				j++
			}
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			mins, err := strconv.Atoi(s[i:j])
			ok = err == nil
			p.zone, i = strZone{kind: zoneOffset, offset: mins * 60}, j
		case '%':
			ok = s[i] == '%'
			i++
		}
		if !ok {
			return p, freeErr(s, at, "Unexpected data found.")
		}
	}
	if i < len(s) {
		return p, freeErr(s, i, "Trailing data")
	}
	if k < len(format) {
		return p, freeErr(s, i, "Data missing")
	}
	p.hasDate = p.hasYear && hasM && hasD
	return p, nil
}

func parseDateFromString(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	if args.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.Location40540, "$dateFromString only supports an object as an argument, found: %s", bsonutil.TypeName(args.Type))
	}
	spec, err := parseSpec(name, args, pc, nil, "dateString", "format", "timezone", "onError", "onNull")
	if err != nil {
		return nil, errs.New(errs.Location40541, "Unrecognized argument to $dateFromString: %s", strings.TrimPrefix(err.(*errs.Error).Msg, name+" found an unknown argument: "))
	}
	if spec["dateString"] == nil {
		return nil, errs.New(errs.Location40542, "Missing 'dateString' parameter to $dateFromString")
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		// mongod's order: the format and the timezone are checked first
		// (their errors are not onError's), then a null dateString is
		// onNull's, a dateString that is not a string onError's, and only
		// then does a null format or timezone make the result null.
		ds, err := spec["dateString"].Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		format, formatNull := "", false
		if fe := spec["format"]; fe != nil {
			fv, err := fe.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if IsNullish(fv) {
				formatNull = true
			} else if fv.Type != bsoncore.TypeString {
				return Missing, errs.New(errs.Location40684, "$dateFromString requires that 'format' be a string, found: %s with value %s", bsonutil.TypeName(fv.Type), bsonutil.FormatValue(fv, msgStyle))
			} else {
				format = fv.StringValue()
				if err := checkFromStringFormat(format); err != nil {
					return Missing, err
				}
			}
		}
		var loc *time.Location
		tzNull := false
		if spec["timezone"] != nil {
			l, ok, err := evalTimezone(name, spec["timezone"], doc, vars)
			if err != nil {
				return Missing, err
			}
			tzNull, loc = !ok, l
		}
		if IsNullish(ds) {
			if spec["onNull"] != nil {
				return spec["onNull"].Eval(doc, vars)
			}
			return Null, nil
		}
		var ms int64
		if ds.Type != bsoncore.TypeString {
			err = errs.New(errs.ConversionFailure, "$dateFromString requires that 'dateString' be a string, found: %s with value %s", bsonutil.TypeName(ds.Type), bsonutil.FormatValue(ds, msgStyle))
		} else if tzNull || formatNull {
			return Null, nil
		} else {
			ms, err = parseDateString(ds.StringValue(), format, loc)
		}
		if err != nil {
			if spec["onError"] != nil && errs.Is(err, errs.ConversionFailure) {
				return spec["onError"].Eval(doc, vars)
			}
			return Missing, err
		}
		return Date(ms), nil
	}), nil
}
