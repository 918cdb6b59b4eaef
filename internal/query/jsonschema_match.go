package query

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
)

// Matching of $jsonSchema. As in MongoDB, a keyword that restricts one
// kind of value (minimum: numbers, minLength: strings, items: arrays,
// properties: objects) is satisfied by values of other kinds, and arrays
// are not traversed implicitly.

func (n *JSONSchemaNode) match(doc []byte, _ *int) bool {
	return n.root.matches(bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: doc})
}

func (n *JSONSchemaNode) matchValue(v bsoncore.Value, _ *int) bool {
	return v.Type == bsoncore.TypeEmbeddedDocument && n.root.matches(v)
}

func (n *JSONSchemaNode) kind() matchType { return mtJSONSchema }

func (n *JSONSchemaNode) serialize(b *bsoncore.DocumentBuilder, _ bool) {
	b.AppendDocument("$jsonSchema", n.Schema)
}

// matches reports whether v satisfies s.
func (s *schema) matches(v bsoncore.Value) bool {
	if (s.types != nil || s.number) && !s.typeOK(v) {
		return false
	}
	if len(s.enum) > 0 {
		found := false
		for _, e := range s.enum {
			if bsonutil.Equal(e, v) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	switch {
	case bsonutil.IsNumber(v.Type):
		if !s.numberOK(v) {
			return false
		}
	case v.Type == bsoncore.TypeString:
		if !s.stringOK(v.StringValue()) {
			return false
		}
	case v.Type == bsoncore.TypeArray:
		if !s.arrayOK(v.Array()) {
			return false
		}
	case v.Type == bsoncore.TypeEmbeddedDocument:
		if !s.objectOK(v.Document()) {
			return false
		}
	}
	for _, sub := range s.allOf {
		if !sub.matches(v) {
			return false
		}
	}
	if len(s.anyOf) > 0 {
		ok := false
		for _, sub := range s.anyOf {
			if sub.matches(v) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if len(s.oneOf) > 0 {
		n := 0
		for _, sub := range s.oneOf {
			if sub.matches(v) {
				n++
			}
		}
		if n != 1 {
			return false
		}
	}
	return s.not == nil || !s.not.matches(v)
}

func (s *schema) typeOK(v bsoncore.Value) bool {
	if s.number && bsonutil.IsNumber(v.Type) {
		return true
	}
	for _, t := range s.types {
		if t == v.Type {
			return true
		}
	}
	return false
}

func (s *schema) numberOK(v bsoncore.Value) bool {
	if s.minimum != nil {
		c := bsonutil.Compare(v, *s.minimum)
		if c < 0 || (c == 0 && s.exclMin) || isNaN(v) {
			return false
		}
	}
	if s.maximum != nil {
		c := bsonutil.Compare(v, *s.maximum)
		if c > 0 || (c == 0 && s.exclMax) || isNaN(v) {
			return false
		}
	}
	return true
}

func (s *schema) stringOK(str string) bool {
	if s.minLen >= 0 || s.maxLen >= 0 {
		n := stringLength(str)
		if (s.minLen >= 0 && n < s.minLen) || (s.maxLen >= 0 && n > s.maxLen) {
			return false
		}
	}
	return s.pattern == nil || s.pattern.Matches(str)
}

func (s *schema) arrayOK(a bsoncore.Array) bool {
	vals, _ := a.Values()
	n := int64(len(vals))
	if (s.minItems >= 0 && n < s.minItems) || (s.maxItems >= 0 && n > s.maxItems) {
		return false
	}
	if s.unique {
		for i := range vals {
			for j := 0; j < i; j++ {
				if bsonutil.Equal(vals[i], vals[j]) {
					return false
				}
			}
		}
	}
	if s.itemsOne != nil {
		for _, x := range vals {
			if !s.itemsOne.matches(x) {
				return false
			}
		}
	}
	if s.hasTuple {
		for i, x := range vals {
			if i < len(s.itemsTuple) {
				if !s.itemsTuple[i].matches(x) {
					return false
				}
				continue
			}
			if s.noAddItems || (s.addItems != nil && !s.addItems.matches(x)) {
				return false
			}
		}
	}
	return true
}

func (s *schema) objectOK(d bsoncore.Document) bool {
	els, _ := d.Elements()
	n := int64(len(els))
	if (s.minProps >= 0 && n < s.minProps) || (s.maxProps >= 0 && n > s.maxProps) {
		return false
	}
	for _, r := range s.required {
		if _, err := d.LookupErr(r); err != nil {
			return false
		}
	}
	for _, el := range els {
		k, v := el.Key(), el.Value()
		known := false
		if sub, ok := s.properties[k]; ok {
			known = true
			if !sub.matches(v) {
				return false
			}
		}
		for _, p := range s.patProps {
			if p.re.Matches(k) {
				known = true
				if !p.s.matches(v) {
					return false
				}
			}
		}
		if !known && (s.noAddProps || (s.addProps != nil && !s.addProps.matches(v))) {
			return false
		}
		if sub, ok := s.depSchemas[k]; ok && !sub.matches(bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: d}) {
			return false
		}
		for _, f := range s.depFields[k] {
			if _, err := d.LookupErr(f); err != nil {
				return false
			}
		}
	}
	return true
}
