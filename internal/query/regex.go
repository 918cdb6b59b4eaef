package query

import (
	"errors"
	"strings"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/regex"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// RegexNode is a regular-expression predicate ({a: /re/opts} or
// {a: {$regex: ..., $options: ...}}). It matches strings and symbols the
// pattern matches, and regex values with the same pattern and options.
type RegexNode struct {
	pathed
	Pattern string
	Options string
	re      *regex.Regex
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
		// Past the match limit the value does not match, as mongod's
		// RegexMatchExpression treats any PCRE error.
		ok, _ := n.re.Match(v.Data[4 : len(v.Data)-1])
		return ok
	case bsoncore.TypeRegex:
		p, o, ok := v.RegexOK()
		return ok && p == n.Pattern && o == n.Options
	}
	return false
}

// newRegexNode compiles a MongoDB (PCRE) pattern with its options
// (internal/regex: RE2 when it can, else the bounded backtracking engine).
func newRegexNode(path, pattern, options string) (*RegexNode, error) {
	re, err := compileRegex(pattern, options)
	if err != nil {
		return nil, err
	}
	return &RegexNode{pathed: newPathed(path), Pattern: pattern, Options: options, re: re}, nil
}

// compileRegex validates options and compiles the pattern.
func compileRegex(pattern, options string) (*regex.Regex, error) {
	re, err := regex.Compile(pattern, options)
	var se *regex.SyntaxError
	if err != nil && !errors.As(err, &se) {
		return nil, err // invalid options
	}
	if strings.IndexByte(pattern, 0) >= 0 {
		return nil, errs.New(errs.BadValue, "Regular expression cannot contain an embedded null byte")
	}
	if se != nil {
		return nil, errs.New(errs.Location51091, "Regular expression is invalid: %s", se.Msg)
	}
	return re, nil
}
