package eventlog

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Event is one request from an access log, with the fields seed 003 keeps
// plus the status and size.
type Event struct {
	Host      string    `bson:"host"`
	User      string    `bson:"user,omitempty"`
	Time      time.Time `bson:"time"`
	Method    string    `bson:"method,omitempty"`
	Path      string    `bson:"path"`
	Protocol  string    `bson:"protocol,omitempty"`
	Status    int       `bson:"status"`
	Size      int64     `bson:"response_size"`
	Referer   string    `bson:"referer,omitempty"`
	UserAgent string    `bson:"user_agent,omitempty"`
}

// ParseError describes a line that is not in the combined log format.
type ParseError struct {
	Col  int    // 1-based byte column where parsing failed
	Msg  string // what was expected
	Line string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("column %d: %s", e.Col, e.Msg)
}

// timeLayout is Apache's %t: [10/Oct/2000:13:55:36 -0700].
const timeLayout = "02/Jan/2006:15:04:05 -0700"

// ParseCombined parses one line of the Apache combined log format:
//
//	host ident user [time] "request" status size "referer" "user-agent"
//
// The referer and user agent are optional (the common log format); nothing
// may follow the user agent (a line with extra fields is an error). "-"
// means absent for user, size, referer and user agent. Quoted fields may
// contain \" escapes. Time is converted to UTC. A request that is not
// "METHOD PATH PROTOCOL" (for example a bare "-" from a bad client) is
// kept with an empty method and the raw text as path.
func ParseCombined(line string) (Event, error) {
	p := &lineParser{s: strings.TrimRight(line, "\r\n")}
	var e Event
	var err error
	if e.Host, err = p.word("host"); err != nil {
		return e, err
	}
	if _, err = p.word("ident"); err != nil {
		return e, err
	}
	if e.User, err = p.word("user"); err != nil {
		return e, err
	}
	if e.User == "-" {
		e.User = ""
	}
	ts, col, err := p.bracketed("time")
	if err != nil {
		return e, err
	}
	t, terr := time.Parse(timeLayout, ts)
	if terr != nil {
		return e, p.errAt(col, fmt.Sprintf("time %q is not dd/Mon/yyyy:hh:mm:ss -zzzz", ts))
	}
	e.Time = t.UTC()
	req, col, err := p.quoted("request")
	if err != nil {
		return e, err
	}
	if parts := strings.Fields(req); len(parts) == 3 {
		e.Method, e.Path, e.Protocol = parts[0], parts[1], parts[2]
	} else if len(parts) == 2 && strings.HasPrefix(parts[1], "/") {
		e.Method, e.Path = parts[0], parts[1]
	} else if req == "" {
		return e, p.errAt(col, "empty request")
	} else {
		e.Path = req
	}
	p.skipSpaces()
	col = p.pos + 1
	st, err := p.word("status")
	if err != nil {
		return e, err
	}
	if e.Status, err = strconv.Atoi(st); err != nil || e.Status < 100 || e.Status > 999 {
		return e, p.errAt(col, fmt.Sprintf("status %q is not a 3-digit number", st))
	}
	p.skipSpaces()
	col = p.pos + 1
	sz, err := p.word("size")
	if err != nil {
		return e, err
	}
	if sz != "-" {
		if e.Size, err = strconv.ParseInt(sz, 10, 64); err != nil || e.Size < 0 {
			return e, p.errAt(col, fmt.Sprintf("size %q is not a number or -", sz))
		}
	}
	if p.done() {
		return e, nil // common log format
	}
	if e.Referer, _, err = p.quoted("referer"); err != nil {
		return e, err
	}
	if e.UserAgent, _, err = p.quoted("user agent"); err != nil {
		return e, err
	}
	if !p.done() {
		junk := p.s[p.pos:]
		if len(junk) > 40 {
			junk = junk[:40] + "..."
		}
		return e, p.errAt(p.pos+1, fmt.Sprintf("unexpected text %q after the user agent", junk))
	}
	if e.Referer == "-" {
		e.Referer = ""
	}
	if e.UserAgent == "-" {
		e.UserAgent = ""
	}
	return e, nil
}

type lineParser struct {
	s   string
	pos int
}

func (p *lineParser) errAt(col int, msg string) error {
	return &ParseError{Col: col, Msg: msg, Line: p.s}
}

func (p *lineParser) skipSpaces() {
	for p.pos < len(p.s) && p.s[p.pos] == ' ' {
		p.pos++
	}
}

func (p *lineParser) done() bool {
	p.skipSpaces()
	return p.pos >= len(p.s)
}

func (p *lineParser) word(what string) (string, error) {
	p.skipSpaces()
	if p.pos >= len(p.s) {
		return "", p.errAt(p.pos+1, "line ends before the "+what)
	}
	start := p.pos
	for p.pos < len(p.s) && p.s[p.pos] != ' ' {
		p.pos++
	}
	return p.s[start:p.pos], nil
}

func (p *lineParser) bracketed(what string) (string, int, error) {
	p.skipSpaces()
	col := p.pos + 1
	if p.pos >= len(p.s) || p.s[p.pos] != '[' {
		return "", col, p.errAt(col, "expected [ before the "+what)
	}
	end := strings.IndexByte(p.s[p.pos:], ']')
	if end < 0 {
		return "", col, p.errAt(col, "unterminated [ of the "+what)
	}
	v := p.s[p.pos+1 : p.pos+end]
	p.pos += end + 1
	return v, col + 1, nil
}

func (p *lineParser) quoted(what string) (string, int, error) {
	p.skipSpaces()
	col := p.pos + 1
	if p.pos >= len(p.s) || p.s[p.pos] != '"' {
		return "", col, p.errAt(col, "expected \" before the "+what)
	}
	var b strings.Builder
	for i := p.pos + 1; i < len(p.s); i++ {
		switch c := p.s[i]; c {
		case '\\':
			if i+1 < len(p.s) {
				i++
				b.WriteByte(p.s[i])
			}
		case '"':
			p.pos = i + 1
			if p.pos < len(p.s) && p.s[p.pos] != ' ' {
				return "", col, p.errAt(p.pos+1, "expected a space after the "+what)
			}
			return b.String(), col + 1, nil
		default:
			b.WriteByte(c)
		}
	}
	return "", col, p.errAt(col, "unterminated quote of the "+what)
}
