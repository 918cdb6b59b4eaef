package expr

import "strings"

// A time zone written in a date string, as mongod's date parser reads one
// after a time or for %z: a UTC offset ("+03", "+0330", "+03:30",
// "GMT+02:00"), an abbreviation ("UTC", "CEST", "EST") or a military
// letter ("A" is UTC+1, "Z" UTC). mongod refuses a zone identifier
// ("Europe/Paris") inside the string; the timezone argument names those.
type strZone struct {
	kind   int // zoneNone, zoneOffset or zoneAbbr: mongod's errors name the last two apart
	offset int // seconds east of UTC
	abbr   string
}

const (
	zoneNone = iota
	zoneOffset
	zoneAbbr
)

// zoneAbbrs are the abbreviations a date string may end with and their
// offsets in seconds, summer time included (BST is UTC+1, as mongod reads
// it). Ambiguous ones mongod's table resolves by a preference of its own
// (IST, for one) are left out: a string naming one fails to parse.
var zoneAbbrs = map[string]int{
	"utc": 0, "ut": 0, "gmt": 0, "wet": 0, "west": 3600, "bst": 3600,
	"cet": 3600, "cest": 7200, "met": 3600, "mest": 7200,
	"eet": 7200, "eest": 10800, "msk": 10800,
	"est": -5 * 3600, "edt": -4 * 3600, "cst": -6 * 3600, "cdt": -5 * 3600,
	"mst": -7 * 3600, "mdt": -6 * 3600, "pst": -8 * 3600, "pdt": -7 * 3600,
	"akst": -9 * 3600, "akdt": -8 * 3600, "hst": -10 * 3600,
	"ast": -4 * 3600, "adt": -3 * 3600, "nst": -(3*3600 + 1800), "ndt": -(2*3600 + 1800),
	"jst": 9 * 3600, "kst": 9 * 3600, "hkt": 8 * 3600,
	"awst": 8 * 3600, "acst": 9*3600 + 1800, "acdt": 10*3600 + 1800,
	"aest": 10 * 3600, "aedt": 11 * 3600, "nzst": 12 * 3600, "nzdt": 13 * 3600,
}

// militaryZone is the offset of a one-letter military zone: A to I are
// UTC+1 to +9, K to M +10 to +12, N to Y -1 to -12, Z is UTC (J, the
// observer's local time, is none).
func militaryZone(c byte) (int, bool) {
	c |= 0x20
	switch {
	case c >= 'a' && c <= 'i':
		return int(c-'a'+1) * 3600, true
	case c >= 'k' && c <= 'm':
		return int(c-'k'+10) * 3600, true
	case c >= 'n' && c <= 'y':
		return -int(c-'n'+1) * 3600, true
	case c == 'z':
		return 0, true
	}
	return 0, false
}

// errZoneID marks a zone word that is not an abbreviation: mongod's parser
// would look it up as an identifier, which it does not allow in the string.
const errZoneID = "passing a time zone identifier as part of the string is not allowed"

// readZone reads a zone at s[i:], after any spaces, tabs or '('; it
// returns the zone and the index after it, or an error message and the
// index where reading failed.
func readZone(s string, i int) (z strZone, next int, msg string) {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '(') {
		i++
	}
	if len(s)-i > 3 && strings.EqualFold(s[i:i+3], "gmt") && (s[i+3] == '+' || s[i+3] == '-') {
		i += 3
	}
	if i >= len(s) {
		return z, i, "The timezone could not be found in the database"
	}
	if c := s[i]; c == '+' || c == '-' {
		off, n, ok := readOffset(s, i+1)
		if !ok {
			return z, i, "The timezone could not be found in the database"
		}
		if c == '-' {
			off = -off
		}
		return strZone{kind: zoneOffset, offset: off}, closeParen(s, n), ""
	}
	j := i
	for j < len(s) && (isLetter(s[j]) || s[j] == '/' || s[j] == '_') {
		j++
	}
	word := s[i:j]
	if word == "" {
		return z, i, "The timezone could not be found in the database"
	}
	if off, ok := zoneAbbrs[strings.ToLower(word)]; ok {
		return strZone{kind: zoneAbbr, offset: off, abbr: strings.ToUpper(word)}, closeParen(s, j), ""
	}
	if len(word) == 1 {
		if off, ok := militaryZone(word[0]); ok {
			return strZone{kind: zoneAbbr, offset: off, abbr: strings.ToUpper(word)}, closeParen(s, j), ""
		}
	}
	return z, i, errZoneID
}

// readOffset reads the digits of a UTC offset after its sign: H, HH,
// HMM, HHMM, H:MM or HH:MM; it returns the offset in seconds.
func readOffset(s string, i int) (off, next int, ok bool) {
	j := i
	for j < len(s) && (isDigit(s[j]) || s[j] == ':') {
		j++
	}
	d := s[i:j]
	var h, m int
	switch {
	case len(d) == 1 || len(d) == 2:
		h = atoiDigits(d)
	case len(d) == 3 && d[1] != ':' && d[2] != ':':
		h, m = atoiDigits(d[:1]), atoiDigits(d[1:])
	case len(d) == 4 && d[1] == ':':
		h, m = atoiDigits(d[:1]), atoiDigits(d[2:])
	case len(d) == 4 && !strings.Contains(d, ":"):
		h, m = atoiDigits(d[:2]), atoiDigits(d[2:])
	case len(d) == 5 && d[2] == ':':
		h, m = atoiDigits(d[:2]), atoiDigits(d[3:])
	default:
		return 0, i, false
	}
	if h < 0 || m < 0 || m > 59 {
		return 0, i, false
	}
	return h*3600 + m*60, j, true
}

func closeParen(s string, i int) int {
	if i < len(s) && s[i] == ')' {
		return i + 1
	}
	return i
}

// atoiDigits is the value of a run of ASCII digits, -1 if any is not one.
func atoiDigits(d string) int {
	if d == "" {
		return -1
	}
	n := 0
	for i := 0; i < len(d); i++ {
		if !isDigit(d[i]) {
			return -1
		}
		n = n*10 + int(d[i]-'0')
	}
	return n
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// monthNames are the month names a date string may spell, full or in
// three letters (and "sept"), in any case.
var monthNames = map[string]int{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8,
	"sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
	"january": 1, "february": 2, "march": 3, "april": 4, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
}

// readMonthName reads a month name at s[i:] (the whole run of letters);
// it returns the month and the index after it, or 0.
func readMonthName(s string, i int) (month, next int) {
	j := i
	for j < len(s) && isLetter(s[j]) {
		j++
	}
	if m, ok := monthNames[strings.ToLower(s[i:j])]; ok {
		return m, j
	}
	return 0, i
}
