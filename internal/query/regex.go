package query

import (
	"regexp"
	"strings"

	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// RegexNode is a regular-expression predicate ({a: /re/opts} or
// {a: {$regex: ..., $options: ...}}). It matches strings and symbols the
// pattern matches, and regex values with the same pattern and options.
type RegexNode struct {
	pathed
	Pattern string
	Options string
	re      *regexp.Regexp
	// collated is set under a non-simple collation: regexes ignore the
	// collation, but an index under it holds sort keys, so the literal
	// prefix bounds nothing there.
	collated bool
}

// Prefix returns the literal prefix the pattern requires at the start of
// the string when the pattern is anchored with ^ (or \A) and has no "i"
// option, and whether the pattern is such an anchored prefix. The planner
// turns it into an index range.
func (n *RegexNode) Prefix() (string, bool) {
	if n.collated || strings.ContainsAny(n.Options, "ix") {
		return "", false
	}
	p := n.Pattern
	switch {
	case strings.HasPrefix(p, "\\A"):
		p = p[2:]
	case strings.HasPrefix(p, "^"):
		if strings.Contains(n.Options, "m") {
			return "", false
		}
		p = p[1:]
	default:
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if strings.IndexByte(`\^$.|?*+()[]{}`, c) >= 0 {
			if c == '*' || c == '?' || c == '{' {
				// the last literal is optional: drop it
				s := b.String()
				if len(s) > 0 {
					s = s[:len(s)-1]
				}
				return s, true
			}
			if c == '|' {
				return "", true
			}
			break
		}
		b.WriteByte(c)
	}
	return b.String(), true
}

func (n *RegexNode) match(doc []byte, pos *int) bool {
	return walkPath(doc, n.parts, true, n, pos, -1)
}

func (n *RegexNode) matchValue(v bsoncore.Value, _ *int) bool {
	switch v.Type {
	case bsoncore.TypeString, bsoncore.TypeSymbol:
		if len(v.Data) < 5 {
			return false
		}
		return n.re.Match(v.Data[4 : len(v.Data)-1])
	case bsoncore.TypeRegex:
		p, o, ok := v.RegexOK()
		return ok && p == n.Pattern && o == n.Options
	}
	return false
}

// newRegexNode compiles a MongoDB (PCRE) pattern with its options into Go's
// regexp syntax.
func newRegexNode(path, pattern, options string) (*RegexNode, error) {
	re, err := compileRegex(pattern, options)
	if err != nil {
		return nil, err
	}
	return &RegexNode{pathed: newPathed(path), Pattern: pattern, Options: options, re: re}, nil
}

// compileRegex validates options and compiles the pattern.
func compileRegex(pattern, options string) (*regexp.Regexp, error) {
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
		default:
			return nil, errs.New(errs.Location51108, "invalid flag in regex options: %c", c)
		}
	}
	if strings.IndexByte(pattern, 0) >= 0 {
		return nil, errs.New(errs.BadValue, "Regular expression cannot contain an embedded null byte")
	}
	p := pattern
	if extended {
		p = stripExtended(p)
	}
	if flags.Len() > 0 {
		p = "(?" + flags.String() + ")" + p
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, errs.New(errs.Location51091, "Regular expression is invalid: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return re, nil
}

// stripExtended removes the whitespace and #-comments that the "x" option
// makes insignificant, outside character classes and escapes.
func stripExtended(p string) string {
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
