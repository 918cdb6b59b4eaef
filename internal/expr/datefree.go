package expr

import (
	"fmt"
	"strings"
)

// parsedDate is what a date string gave: each part with whether it was
// there, and the zone the string named.
type parsedDate struct {
	y, m, d                 int
	hasDate, hasYear        bool
	h, mi, sec, ms          int
	hasTime                 bool
	zone                    strZone
	isoY, isoW, isoD        int // %G, %V, %u (-1 unset)
	natural, iso, dayOfYear bool
	// weekday is a day name the string gave ("Tue, 04 Jul 2017"), 1
	// (Sunday) to 7, or 0: the date moves forward to that weekday when
	// it is another one, as mongod's parser treats the name.
	weekday int
}

// parseFree reads a date string without a format, as mongod does when
// $dateFromString (or $toDate, $convert) has none: a date in one of the
// common forms, then optionally a time and a zone, in any case and with
// spaces between. The dates: 2017-07-04, 2017-7-4, 2017/07/04, 2017-07
// (the 1st), 2017-Jul-04, 7/4/2017 and 7/4/17 (month first), 04-07-2017,
// 04.07.2017 and 04.07.17 (day first), July 4th, 2017 and Jul 4 2017,
// 4 July 2017 and 4-Jul-2017, July 2017 (the 1st). A two-digit year is
// 1970–2069. The times: 11:56, 11:56:02, 11:56.02, 11:56:02.813, with
// "T" or a space before them, 11am, 11:30 p.m., noon, midnight. The zones:
// readZone's. A string without a year (July 4th) or without a date
// (12:50:53) is incomplete, which mongod reports apart from a string it
// cannot read.
func parseFree(s string) (parsedDate, error) {
	p := parsedDate{isoY: -1, isoW: -1, isoD: -1}
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ',') {
			i++
		}
		if i >= len(s) {
			break
		}
		if p.weekday == 0 && isLetter(s[i]) {
			if d, n := readDayName(s, i); d > 0 {
				p.weekday, i = d, n
				continue
			}
		}
		if !p.hasDate {
			if n := p.readDate(s, i); n > i {
				i = n
				continue
			}
		}
		if !p.hasTime {
			j := i
			if p.hasDate && (s[j] == 'T' || s[j] == 't') && j+1 < len(s) && isDigit(s[j+1]) {
				j++
			}
			if n := p.readTime(s, j); n > j {
				i = n
				continue
			}
		}
		if p.zone.kind == zoneNone && (p.hasDate || p.hasTime) && (s[i] == '+' || s[i] == '-' || isLetter(s[i]) || s[i] == '(') {
			z, n, msg := readZone(s, i)
			if msg != "" {
				return p, freeErr(s, n, msg)
			}
			p.zone, i = z, n
			continue
		}
		return p, freeErr(s, i, "Unexpected character")
	}
	if !p.hasDate || !p.hasYear {
		return p, dateIncomplete(s)
	}
	return p, nil
}

func freeErr(s string, i int, msg string) error {
	c := ""
	if i < len(s) {
		c = s[i : i+1]
	}
	return dateParseErr(s, fmt.Sprintf("%d: %s '%s'", i, msg, c))
}

func dateIncomplete(s string) error {
	return dateConversionErr("an incomplete date/time string has been found, with elements missing: \"%s\"", s)
}

// dayNames are the weekday names a date string may start with, full or
// in three letters, Sunday first (1).
var dayNames = map[string]int{
	"sun": 1, "mon": 2, "tue": 3, "wed": 4, "thu": 5, "fri": 6, "sat": 7,
	"sunday": 1, "monday": 2, "tuesday": 3, "wednesday": 4, "thursday": 5, "friday": 6, "saturday": 7,
}

// readDayName reads a weekday name at s[i:] (the whole run of letters)
// and returns it (1 Sunday to 7) with the index after it, or 0.
func readDayName(s string, i int) (day, next int) {
	j := i
	for j < len(s) && isLetter(s[j]) {
		j++
	}
	if d, ok := dayNames[strings.ToLower(s[i:j])]; ok {
		return d, j
	}
	return 0, i
}

// digitsAt reads 1 to max digits at s[i:]; n is how many.
func digitsAt(s string, i, max int) (v, n int) {
	for n < max && i+n < len(s) && isDigit(s[i+n]) {
		v = v*10 + int(s[i+n]-'0')
		n++
	}
	return v, n
}

// twoDigitYear maps a year written in fewer than four digits as mongod
// does: below 70 into the 2000s, below 100 into the 1900s.
func twoDigitYear(y, digits int) int {
	if digits < 4 {
		if y < 70 {
			return y + 2000
		}
		if y < 100 {
			return y + 1900
		}
	}
	return y
}

// endOfNumber reports whether s[i:] does not continue a number.
func endOfNumber(s string, i int) bool { return i >= len(s) || !isDigit(s[i]) }

// readDate reads one of parseFree's date forms at s[i:] and returns the
// index after it, or i.
func (p *parsedDate) readDate(s string, i int) int {
	set := func(y, yd, m, d, next int) int {
		p.m, p.d, p.hasDate = m, d, true
		if yd > 0 {
			p.y, p.hasYear = twoDigitYear(y, yd), true
		}
		return next
	}
	if isLetter(s[i]) {
		return p.readTextualDate(s, i, set)
	}
	a, an := digitsAt(s, i, 4)
	if an == 0 {
		return i
	}
	j := i + an
	if an == 4 && j < len(s) && (s[j] == '-' || s[j] == '/') {
		sep := s[j]
		if m, mn := digitsAt(s, j+1, 2); mn > 0 {
			k := j + 1 + mn
			if k < len(s) && s[k] == sep {
				if d, dn := digitsAt(s, k+1, 2); dn > 0 && endOfNumber(s, k+1+dn) {
					return set(a, 4, m, d, k+1+dn) // 2017-07-04, 2017/07/04
				}
				return i
			}
			if sep == '-' && endOfNumber(s, k) && (k >= len(s) || s[k] != ':') {
				return set(a, 4, m, 1, k) // 2017-07
			}
			return i
		}
		if m, k := readMonthName(s, j+1); m > 0 && sep == '-' && k < len(s) && s[k] == '-' {
			if d, dn := digitsAt(s, k+1, 2); dn > 0 && endOfNumber(s, k+1+dn) {
				return set(a, 4, m, d, k+1+dn) // 2017-Jul-04
			}
		}
		return i
	}
	if an > 2 || j >= len(s) {
		return i
	}
	switch s[j] {
	case '/': // month first: 7/4/2017, 7/4/17, 7/4
		b, bn := digitsAt(s, j+1, 2)
		if bn == 0 {
			return i
		}
		k := j + 1 + bn
		if k < len(s) && s[k] == '/' {
			if y, yn := digitsAt(s, k+1, 4); yn > 0 && endOfNumber(s, k+1+yn) {
				return set(y, yn, a, b, k+1+yn)
			}
			return i
		}
		if endOfNumber(s, k) {
			return set(0, 0, a, b, k)
		}
	case '-', '.': // day first: 04-07-2017, 04.07.2017, 04.07.17
		sep := s[j]
		b, bn := digitsAt(s, j+1, 2)
		if bn > 0 {
			k := j + 1 + bn
			if k < len(s) && (s[k] == '-' || s[k] == '.') {
				if y, yn := digitsAt(s, k+1, 4); endOfNumber(s, k+1+yn) && (yn == 4 || (yn == 2 && sep == '.' && s[k] == '.')) {
					return set(y, yn, b, a, k+1+yn)
				}
			}
			return i
		}
		if m, k := readMonthName(s, j+1); m > 0 {
			return p.readYearAfter(s, k, a, m, set) // 4-Jul-2017
		}
	case ' ', '\t', 's', 'n', 'r', 't': // 4 July 2017, 4th July 2017
		k := skipOrdinal(s, j)
		for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '.' || s[k] == '-') {
			k++
		}
		if m, n := readMonthName(s, k); m > 0 {
			return p.readYearAfter(s, n, a, m, set)
		}
	}
	return i
}

// readYearAfter reads the year after a day and a month name (4 July
// 2017), or none (4 July, which has no year).
func (p *parsedDate) readYearAfter(s string, k, day, month int, set func(y, yd, m, d, next int) int) int {
	j := k
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '.' || s[j] == '-') {
		j++
	}
	if y, yn := digitsAt(s, j, 4); yn > 0 && endOfNumber(s, j+yn) && (j+yn >= len(s) || s[j+yn] != ':') {
		return set(y, yn, month, day, j+yn)
	}
	return set(0, 0, month, day, k)
}

// readTextualDate reads a date that starts with a month name: July 4th,
// 2017, Jul-04-2017, July 2017, or July 4 (no year).
func (p *parsedDate) readTextualDate(s string, i int, set func(y, yd, m, d, next int) int) int {
	m, j := readMonthName(s, i)
	if m == 0 {
		return i
	}
	k := j
	for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '.' || s[k] == '-') {
		k++
	}
	a, an := digitsAt(s, k, 4)
	if an == 0 {
		return i
	}
	if an == 4 && endOfNumber(s, k+4) {
		return set(a, 4, m, 1, k+4) // July 2017
	}
	if an > 2 {
		return i
	}
	day := a
	k = skipOrdinal(s, k+an)
	if k < len(s) && s[k] == ':' {
		return i // a time, not a day
	}
	n := k
	for n < len(s) && (s[n] == ' ' || s[n] == '\t' || s[n] == ',' || s[n] == '.' || s[n] == '-') {
		n++
	}
	if y, yn := digitsAt(s, n, 4); yn > 0 && endOfNumber(s, n+yn) && (n+yn >= len(s) || s[n+yn] != ':') {
		return set(y, yn, m, day, n+yn)
	}
	return set(0, 0, m, day, k)
}

// skipOrdinal skips a day's "st", "nd", "rd" or "th".
func skipOrdinal(s string, i int) int {
	if i+1 < len(s) {
		switch strings.ToLower(s[i : i+2]) {
		case "st", "nd", "rd", "th":
			if i+2 >= len(s) || !isLetter(s[i+2]) {
				return i + 2
			}
		}
	}
	return i
}

// readTime reads one of parseFree's time forms at s[i:] and returns the
// index after it, or i.
func (p *parsedDate) readTime(s string, i int) int {
	for _, w := range [...]struct {
		word string
		h    int
	}{{"noon", 12}, {"midnight", 0}} {
		if len(s)-i >= len(w.word) && strings.EqualFold(s[i:i+len(w.word)], w.word) && (i+len(w.word) == len(s) || !isLetter(s[i+len(w.word)])) {
			p.h, p.mi, p.sec, p.ms, p.hasTime = w.h, 0, 0, 0, true
			return i + len(w.word)
		}
	}
	h, hn := digitsAt(s, i, 2)
	if hn == 0 {
		return i
	}
	j := i + hn
	mi, sec, ms := 0, 0, 0
	if j < len(s) && (s[j] == ':' || s[j] == '.') {
		m, mn := digitsAt(s, j+1, 2)
		if mn != 2 {
			return i
		}
		mi, j = m, j+3
		if j < len(s) && (s[j] == ':' || s[j] == '.') {
			if sc, sn := digitsAt(s, j+1, 2); sn == 2 {
				sec, j = sc, j+3
				if j < len(s) && (s[j] == '.' || s[j] == ',' || s[j] == ':') && j+1 < len(s) && isDigit(s[j+1]) {
					k := j + 1
					for n := 0; k < len(s) && isDigit(s[k]); k, n = k+1, n+1 {
						if n < 3 {
							ms = ms*10 + int(s[k]-'0')
						}
					}
					for n := k - j - 1; n < 3; n++ {
						ms *= 10
					}
					j = k
				}
			}
		}
	} else if m := meridian(s, j); m == 0 {
		return i // a number alone is not a time
	}
	if m := meridian(s, j); m != 0 {
		if h < 1 || h > 12 {
			return i
		}
		h %= 12
		if m > 0 {
			h += 12
		}
		j = skipMeridian(s, j)
	}
	if !endOfNumber(s, j) {
		return i
	}
	p.h, p.mi, p.sec, p.ms, p.hasTime = h, mi, sec, ms, true
	return j
}

// meridian reports an "am" (-1) or "pm" (1) at s[i:], after an optional
// space, written am, a.m., AM ...; 0 when there is none.
func meridian(s string, i int) int {
	if i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i >= len(s) {
		return 0
	}
	c := s[i] | 0x20
	if c != 'a' && c != 'p' {
		return 0
	}
	k := i + 1
	if k < len(s) && s[k] == '.' {
		k++
	}
	if k >= len(s) || s[k]|0x20 != 'm' {
		return 0
	}
	k++
	if k < len(s) && s[k] == '.' {
		k++
	}
	if k < len(s) && isLetter(s[k]) {
		return 0
	}
	if c == 'a' {
		return -1
	}
	return 1
}

func skipMeridian(s string, i int) int {
	if s[i] == ' ' || s[i] == '\t' {
		i++
	}
	i++ // a or p
	if i < len(s) && s[i] == '.' {
		i++
	}
	i++ // m
	if i < len(s) && s[i] == '.' {
		i++
	}
	return i
}
