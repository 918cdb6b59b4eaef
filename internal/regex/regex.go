// Package regex compiles and runs MongoDB's (PCRE-flavoured) regular
// expressions. A pattern runs on Go's RE2 engine (regexp) whenever that
// engine accepts it, in linear time; a pattern RE2 cannot run
// (backreferences, lookahead and lookbehind, atomic groups, counted
// repetition above RE2's 1000) runs on regexp2's backtracking engine in
// its RE2-compatible mode, so that both engines give the same meaning to
// the syntax and to the options i, m, s, x and u. A backtracking match is
// bounded: past MatchLimit of run time or its backtracking stack, it
// stops with ErrMatchLimit, as PCRE stops at its match limit.
package regex

import (
	"errors"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dlclark/regexp2/v2"

	"github.com/lodedb/lode/internal/errs"
)

// MatchLimit bounds one backtracking match, as PCRE's match limit
// (10,000,000 steps by default) bounds one of mongod's. The engine checks
// it against a clock that ticks every 100ms, so a match stops within
// about MatchLimit+100ms.
const MatchLimit = 200 * time.Millisecond

// backtrackStack bounds the backtracking engine's stack (integer slots per
// match, about 8 MiB), in place of PCRE2's heap limit.
const backtrackStack = 1 << 20

// slowMatch is how long a backtracking match runs before it bumps
// SlowEpoch.
const slowMatch = 5 * time.Millisecond

var slowEpoch atomic.Uint64

// SlowEpoch changes whenever a backtracking match ran longer than a few
// milliseconds. A loop that checks its context only every so many
// iterations checks it also when SlowEpoch changes, so that a deadline or
// a kill is noticed after one slow match rather than after hundreds of
// them (mongod checks for interrupts every 10ms of work as well as every
// so many iterations). Reading it is one atomic load.
func SlowEpoch() uint64 { return slowEpoch.Load() }

// timed runs a backtracking match and bumps SlowEpoch when it was slow.
func timed[T any](f func() (T, error)) (T, error) {
	start := time.Now()
	v, err := f()
	if time.Since(start) > slowMatch {
		slowEpoch.Add(1)
	}
	return v, err
}

// ErrMatchLimit is returned by a match that ran past MatchLimit or the
// backtracking stack. Its text is PCRE2's for PCRE2_ERROR_MATCHLIMIT.
var ErrMatchLimit = errors.New("match limit exceeded")

// SyntaxError is a pattern neither engine accepts. Msg is RE2's
// description, without its "error parsing regexp: " prefix.
type SyntaxError struct{ Msg string }

func (e *SyntaxError) Error() string { return e.Msg }

// Regex is a compiled pattern; it is safe for concurrent use.
type Regex struct {
	re2 *regexp.Regexp
	bt  *regexp2.Regexp
}

// Compile checks the options (i, m, s, x, u, as mongod accepts; any other
// letter is error 51108) and compiles the pattern. A pattern neither
// engine accepts returns a *SyntaxError, which each caller words as
// mongod does in its place.
func Compile(pattern, options string) (*Regex, error) {
	p, err := prepare(pattern, options)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(p)
	if err == nil {
		return &Regex{re2: re}, nil
	}
	bt, err2 := compileBacktracking(p)
	if err2 != nil {
		return nil, &SyntaxError{Msg: strings.TrimPrefix(err.Error(), "error parsing regexp: ")}
	}
	return &Regex{bt: bt}, nil
}

// compileBacktracking compiles a prepared pattern for regexp2's engine in
// its RE2-compatible mode (Go's meaning of \w, \d, $, case folding),
// with captures numbered in pattern order as in PCRE and RE2.
func compileBacktracking(p string) (*regexp2.Regexp, error) {
	bt, err := regexp2.Compile(p, regexp2.RE2, regexp2.OptionMaintainCaptureOrder(),
		regexp2.OptionMaxBacktrackingStackSize(backtrackStack))
	if err != nil {
		return nil, err
	}
	bt.MatchTimeout = MatchLimit
	return bt, nil
}

// prepare checks the options and returns the pattern both engines
// compile: with x, whitespace and comments removed; i, m and s as one
// leading inline group, so that both engines read them identically.
func prepare(pattern, options string) (string, error) {
	var flags strings.Builder
	extended := false
	for _, c := range options {
		switch c {
		case 'i', 'm', 's':
			if !strings.ContainsRune(flags.String(), c) {
				flags.WriteRune(c)
			}
		case 'x':
			extended = true
		case 'u':
			// Patterns and subjects are always UTF-8 here, as under
			// PCRE's UTF mode that 'u' selects.
		default:
			return "", errs.New(errs.Location51108, "invalid flag in regex options: %c", c)
		}
	}
	p := pattern
	if extended {
		p = StripExtended(p)
	}
	if flags.Len() > 0 {
		p = "(?" + flags.String() + ")" + p
	}
	return p, nil
}

// Backtracking reports whether the pattern runs on the backtracking
// engine.
func (r *Regex) Backtracking() bool { return r.bt != nil }

func matchErr(err error) error {
	if err == nil {
		return nil
	}
	return ErrMatchLimit
}

// MatchString reports whether the pattern matches somewhere in s.
func (r *Regex) MatchString(s string) (bool, error) {
	if r.re2 != nil {
		return r.re2.MatchString(s), nil
	}
	ok, err := timed(func() (bool, error) { return r.bt.MatchString(s) })
	return ok, matchErr(err)
}

// Match is MatchString on bytes.
func (r *Regex) Match(b []byte) (bool, error) {
	if r.re2 != nil {
		return r.re2.Match(b), nil
	}
	return r.MatchString(string(b))
}

// FindStringSubmatchIndex returns the byte offsets of the first match and
// its groups as regexp's method of that name does (-1 for a group that
// did not take part), or nil.
func (r *Regex) FindStringSubmatchIndex(s string) ([]int, error) {
	if r.re2 != nil {
		return r.re2.FindStringSubmatchIndex(s), nil
	}
	m, err := timed(func() (*regexp2.Match, error) { return r.bt.FindStringMatch(s) })
	if err != nil || m == nil {
		return nil, matchErr(err)
	}
	return indexes(m), nil
}

// FindAllStringSubmatchIndex returns every successive non-overlapping
// match as FindStringSubmatchIndex does.
func (r *Regex) FindAllStringSubmatchIndex(s string) ([][]int, error) {
	if r.re2 != nil {
		return r.re2.FindAllStringSubmatchIndex(s, -1), nil
	}
	var out [][]int
	m, err := timed(func() (*regexp2.Match, error) { return r.bt.FindStringMatch(s) })
	for err == nil && m != nil {
		out = append(out, indexes(m))
		prev := m
		m, err = timed(func() (*regexp2.Match, error) { return r.bt.FindNextMatch(prev) })
	}
	if err != nil {
		return nil, matchErr(err)
	}
	return out, nil
}

func indexes(m *regexp2.Match) []int {
	groups := m.Groups()
	out := make([]int, 0, 2*len(groups))
	for i := range groups {
		g := &groups[i]
		if len(g.Captures) == 0 {
			out = append(out, -1, -1)
			continue
		}
		start, n := g.ByteRange()
		out = append(out, start, start+n)
	}
	return out
}

// StripExtended removes the whitespace and #-comments that the "x" option
// makes insignificant, outside character classes and escapes.
func StripExtended(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			b.WriteByte(p[i+1])
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		case c == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Matches is MatchString for the places where mongod counts a PCRE
// error as no match ($regex in a filter, $jsonSchema's pattern).
func (r *Regex) Matches(s string) bool {
	ok, _ := r.MatchString(s)
	return ok
}
