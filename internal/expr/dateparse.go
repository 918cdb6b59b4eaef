package expr

import (
	"regexp"
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

var isoDateRe = regexp.MustCompile(`^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?|[A-Za-z][A-Za-z_/+-]*)?$`)

func dateParseErr(s, why string) error {
	return errs.New(errs.ConversionFailure, "Error parsing date string '%s'; %s", s, why)
}

// parseDateString parses s with a $dateFromString format ("" for the
// default ISO-8601-like formats) in loc (nil: UTC unless s names a zone).
func parseDateString(s, format string, loc *time.Location) (int64, error) {
	var y, mo, d, h, mi, sec, ms int
	var zone *time.Location
	isoY, isoW, isoD := -1, -1, -1
	mo, d = 1, 1
	if format == "" {
		m := isoDateRe.FindStringSubmatch(strings.TrimSpace(s))
		if m == nil {
			return 0, dateParseErr(s, "0: Unexpected character")
		}
		y, _ = strconv.Atoi(m[1])
		mo, _ = strconv.Atoi(m[2])
		d, _ = strconv.Atoi(m[3])
		h, _ = strconv.Atoi(m[4])
		mi, _ = strconv.Atoi(m[5])
		sec, _ = strconv.Atoi(m[6])
		if m[7] != "" {
			frac := (m[7] + "00")[:3]
			ms, _ = strconv.Atoi(frac)
		}
		if m[8] != "" {
			z, err := ParseTimezone(m[8])
			if err != nil {
				return 0, dateParseErr(s, "unknown time zone")
			}
			zone = z
		}
	} else {
		i := 0
		num := func(maxDigits int) (int, bool) {
			j := i
			for j < len(s) && j-i < maxDigits && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j == i {
				return 0, false
			}
			n, _ := strconv.Atoi(s[i:j])
			i = j
			return n, true
		}
		for k := 0; k < len(format); k++ {
			c := format[k]
			if c != '%' {
				if i >= len(s) || s[i] != c {
					return 0, dateParseErr(s, "Format literal not found")
				}
				i++
				continue
			}
			k++
			if k >= len(format) {
				return 0, errs.New(errs.Location18535, "Unmatched '%%' at end of format string")
			}
			var ok bool
			switch format[k] {
			case 'Y':
				y, ok = num(4)
			case 'm':
				mo, ok = num(2)
			case 'd':
				d, ok = num(2)
			case 'H':
				h, ok = num(2)
			case 'M':
				mi, ok = num(2)
			case 'S':
				sec, ok = num(2)
			case 'L':
				start := i
				ms, ok = num(3)
				for n := i - start; n < 3; n++ {
					ms *= 10
				}
			case 'j':
				var yd int
				yd, ok = num(3)
				mo, d = 1, yd
			case 'G':
				isoY, ok = num(4)
			case 'V':
				isoW, ok = num(2)
			case 'u':
				isoD, ok = num(1)
			case 'z', 'Z':
				j := i
				for j < len(s) && strings.IndexByte("+-:0123456789", s[j]) >= 0 {
					j++
				}
				if format[k] == 'Z' {
					mins, err := strconv.Atoi(s[i:j])
					if err == nil {
						zone, ok = time.FixedZone(s[i:j], mins*60), true
					}
				} else if z, err := ParseTimezone(s[i:j]); err == nil {
					zone, ok = z, true
				}
				i = j
			case '%':
				ok = i < len(s) && s[i] == '%'
				i++
			default:
				return 0, errs.New(errs.Location18536, "Invalid format character '%%%c' in format string", format[k])
			}
			if !ok {
				return 0, dateParseErr(s, "Unexpected data found")
			}
		}
		if i != len(s) {
			return 0, dateParseErr(s, "Trailing data")
		}
	}
	if zone != nil && loc != nil {
		return 0, errs.New(errs.ConversionFailure, "you cannot pass in a date/time string with time zone information ('%s') together with a second timezone argument", s)
	}
	if zone == nil {
		zone = loc
	}
	if zone == nil {
		zone = time.UTC
	}
	if isoY >= 0 {
		if isoW < 0 {
			isoW = 1
		}
		if isoD < 0 {
			isoD = 1
		}
		jan4 := time.Date(isoY, 1, 4, 0, 0, 0, 0, time.UTC)
		t := jan4.AddDate(0, 0, 1-isoDOW(jan4)+(isoW-1)*7+isoD-1)
		y, mo, d = t.Year(), int(t.Month()), t.Day()
	}
	if mo < 1 || mo > 12 || d < 1 || (d > daysIn(y, time.Month(mo)) && format != "" && !strings.Contains(format, "%j")) || h > 23 || mi > 59 || sec > 59 {
		return 0, dateParseErr(s, "The parsed date was invalid")
	}
	return time.Date(y, time.Month(mo), d, h, mi, sec, ms*1e6, zone).UnixMilli(), nil
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
		ds, err := spec["dateString"].Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		var loc *time.Location
		if spec["timezone"] != nil {
			l, ok, err := evalTimezone(name, spec["timezone"], doc, vars)
			if err != nil {
				return Missing, err
			}
			if !ok {
				return Null, nil
			}
			loc = l
		}
		format := ""
		if fe := spec["format"]; fe != nil {
			fv, err := fe.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if IsNullish(fv) {
				return Null, nil
			}
			if fv.Type != bsoncore.TypeString {
				return Missing, errs.New(errs.Location40684, "$dateFromString requires that 'format' be a string, found: %s with value %s", bsonutil.TypeName(fv.Type), bsonutil.FormatValue(fv, msgStyle))
			}
			format = fv.StringValue()
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
