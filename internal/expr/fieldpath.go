package expr

import (
	"github.com/lodedb/lode/internal/bsonutil"
	"strings"

	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Variable kinds of a field path's base.
const (
	varCurrent = iota
	varRoot
	varRemove
	varNow
	varClusterTime
	varUser
	varOther
)

// fieldPathExpr is "$a.b" or "$$var.a.b".
type fieldPathExpr struct {
	kind int
	slot int
	name string
	path []string
}

// AsFieldPath reports whether e is a plain field path on the current
// document ("$a.b" or "$$CURRENT.a.b") and returns its dotted path.
func AsFieldPath(e Expr) (string, bool) {
	f, ok := e.(*fieldPathExpr)
	if !ok || (f.kind != varCurrent && f.kind != varRoot) || len(f.path) == 0 {
		return "", false
	}
	return strings.Join(f.path, "."), true
}

// ParseFieldPath validates a dotted field path (without '$').
func ParseFieldPath(s string) ([]string, error) {
	if s == "" {
		return nil, errs.New(errs.Location40352, "FieldPath cannot be constructed with empty string")
	}
	if strings.HasSuffix(s, ".") {
		return nil, errs.New(errs.Location40353, "FieldPath must not end with a '.'.")
	}
	parts := strings.Split(s, ".")
	for _, p := range parts {
		if p == "" {
			return nil, errs.New(errs.Location15998, "FieldPath field names may not be empty strings.")
		}
		if p[0] == '$' {
			return nil, errs.New(errs.Location16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
		}
	}
	return parts, nil
}

func parseFieldPath(s string, pc *ParseContext) (Expr, error) {
	if s == "$" {
		return nil, errs.New(errs.Location16872, "'$' by itself is not a valid FieldPath")
	}
	if !strings.HasPrefix(s, "$$") {
		parts, err := ParseFieldPath(s[1:])
		if err != nil {
			return nil, err
		}
		if pc.inline != nil {
			if e, ok := pc.inline(parts); ok {
				return e, nil
			}
			pc.inlineFailed = true
		}
		return &fieldPathExpr{kind: varCurrent, path: parts}, nil
	}
	rest := s[2:]
	name, tail, hasTail := strings.Cut(rest, ".")
	if err := validateVarName(name, true); err != nil {
		return nil, err
	}
	f := &fieldPathExpr{name: name}
	if hasTail {
		parts, err := ParseFieldPath(tail)
		if err != nil {
			return nil, err
		}
		f.path = parts
	}
	if slot, ok := pc.Lookup(name); ok {
		f.kind, f.slot = varUser, slot
		return f, nil
	}
	switch name {
	case "CURRENT":
		f.kind = varCurrent
		if pc.inline != nil {
			if len(f.path) == 0 {
				pc.inlineFailed = true
			} else if e, ok := pc.inline(f.path); ok {
				return e, nil
			} else {
				pc.inlineFailed = true
			}
		}
	case "ROOT":
		f.kind = varRoot
		if pc.inline != nil {
			pc.inlineFailed = true
		}
	case "REMOVE":
		f.kind = varRemove
	case "NOW":
		f.kind = varNow
	case "CLUSTER_TIME":
		f.kind = varClusterTime
	case "SEARCH_META", "USER_ROLES":
		// $$DESCEND, $$PRUNE and $$KEEP exist only inside $redact, which
		// defines them in its own scope (agg/redact.go); elsewhere they are
		// undefined, as in mongod.
		f.kind = varOther
	default:
		return nil, errs.New(errs.Location17276, "Use of undefined variable: %s", name)
	}
	return f, nil
}

// validateVarName checks a variable name; system names (upper-case first
// letter) are allowed only when system is true.
func validateVarName(name string, system bool) error {
	if name == "" {
		return errs.New(errs.Location16869, "empty variable names are not allowed")
	}
	c := name[0]
	if !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z' && system) && c < 0x80 {
		return errs.New(errs.Location16870, "'%s' starts with an invalid character for a user variable name", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') && c != '_' && c < 0x80 {
			return errs.New(errs.Location16871, "'%s' contains an invalid character for a variable name: '%c'", name, c)
		}
	}
	return nil
}

func (f *fieldPathExpr) Eval(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
	var base bsoncore.Value
	switch f.kind {
	case varCurrent:
		if len(f.path) == 1 {
			return vars.lookupTop(doc, f.path[0]), nil
		}
		return lookupPath(doc, f.path), nil
	case varRoot:
		d := doc
		if vars != nil && vars.Root != nil {
			d = vars.Root
		}
		return lookupPath(d, f.path), nil
	case varRemove:
		return Missing, nil
	case varNow:
		base = TimeValue(vars.now())
	case varClusterTime:
		t := vars.now()
		base = bsoncore.Value{Type: bsoncore.TypeTimestamp, Data: bsoncore.AppendTimestamp(nil, uint32(t.Unix()), 1)}
	case varUser:
		base = vars.Get(f.slot)
	default:
		return Missing, errs.New(errs.Location17276, "Use of undefined variable: %s", f.name)
	}
	if len(f.path) == 0 {
		return base, nil
	}
	switch base.Type {
	case bsoncore.TypeEmbeddedDocument:
		return lookupPath(base.Data, f.path), nil
	case bsoncore.TypeArray:
		return pathArray(base, f.path), nil
	}
	return Missing, nil
}

// lookupPath evaluates a dotted path on a document as aggregation field
// paths do. An empty path returns the document itself.
func lookupPath(doc bsoncore.Document, path []string) bsoncore.Value {
	if len(path) == 0 {
		if doc == nil {
			return Missing
		}
		return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: doc}
	}
	v := lookupField(doc, path[0])
	if len(path) == 1 || v.Type == 0 {
		return v
	}
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument:
		return lookupPath(v.Data, path[1:])
	case bsoncore.TypeArray:
		return pathArray(v, path[1:])
	}
	return Missing
}

// pathArray maps the rest of a path over an array's elements: documents
// recurse, and everything else is dropped, nested arrays included, as
// mongod's field path does ("$a.b" of {a: [[{b: 1}], {b: 2}]} is [2]);
// so are missing results.
func pathArray(arr bsoncore.Value, path []string) bsoncore.Value {
	b := NewArrayBuilder()
	forEach(arr.Data, func(_ []byte, x bsoncore.Value) bool {
		if x.Type == bsoncore.TypeEmbeddedDocument {
			b.Append(lookupPath(x.Data, path))
		}
		return true
	})
	return b.Value()
}

// lookupField returns the value of a top-level field without allocating.
func lookupField(doc []byte, key string) bsoncore.Value {
	v, _ := bsonutil.LookupField(doc, key)
	return v
}

// GetPath evaluates the dotted path (already split) on doc with aggregation
// semantics (arrays map over their elements).
func GetPath(doc bsoncore.Document, path []string) bsoncore.Value {
	return lookupPath(doc, path)
}
