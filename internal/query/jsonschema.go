package query

import (
	"math"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/regex"
)

// JSONSchemaNode is {$jsonSchema: Schema}: the document matches MongoDB's
// dialect of JSON Schema draft 4 (with bsonType). Matching is in
// jsonschema_match.go.
type JSONSchemaNode struct {
	// Schema is the raw schema document.
	Schema bsoncore.Document
	root   *schema
}

// schema is one parsed (sub)schema. Keyword fields are nil or zero when
// the keyword is absent.
type schema struct {
	raw      bsoncore.Document
	typeKey  string          // "bsonType" or "type"
	types    []bsoncore.Type // bsonType or type; nil: any
	number   bool            // "number" among the types
	minimum  *bsoncore.Value
	maximum  *bsoncore.Value
	exclMin  bool
	exclMax  bool
	minLen   int64 // -1: absent
	maxLen   int64
	pattern  *regex.Regex
	minItems int64
	maxItems int64
	minProps int64
	maxProps int64
	unique   bool
	enum     []bsoncore.Value
	required []string

	properties map[string]*schema
	patProps   []patternSchema
	addProps   *schema // additionalProperties as a schema
	noAddProps bool    // additionalProperties: false
	itemsOne   *schema
	itemsTuple []*schema
	hasTuple   bool
	addItems   *schema
	noAddItems bool
	depSchemas map[string]*schema
	depFields  map[string][]string

	allOf, anyOf, oneOf []*schema
	not                 *schema
}

type patternSchema struct {
	re *regex.Regex
	s  *schema
}

// jsonTypes maps JSON Schema's type names to BSON types; "number" is
// handled apart.
var jsonTypes = map[string][]bsoncore.Type{
	"object":  {bsoncore.TypeEmbeddedDocument},
	"array":   {bsoncore.TypeArray},
	"boolean": {bsoncore.TypeBoolean},
	"string":  {bsoncore.TypeString},
	"null":    {bsoncore.TypeNull},
}

func newJSONSchemaNode(v bsoncore.Value) (Node, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.TypeMismatch, "$jsonSchema must be an object")
	}
	s, err := parseSchema(d)
	if err != nil {
		return nil, err
	}
	return &JSONSchemaNode{Schema: d, root: s}, nil
}

// parseSchema parses one schema object.
func parseSchema(d bsoncore.Document) (*schema, error) {
	s := &schema{raw: d, minLen: -1, maxLen: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}
	els, err := d.Elements()
	if err != nil {
		return nil, errs.New(errs.FailedToParse, "invalid $jsonSchema document")
	}
	seenType := ""
	for _, el := range els {
		k, v := el.Key(), el.Value()
		var err error
		switch k {
		case "bsonType", "type":
			if seenType != "" {
				return nil, errs.New(errs.FailedToParse, "Cannot specify both $jsonSchema keywords 'type' and 'bsonType'")
			}
			seenType = k
			s.typeKey = k
			err = s.parseTypes(k, v)
		case "minimum", "maximum":
			if !bsonutil.IsNumber(v.Type) {
				return nil, errs.New(errs.TypeMismatch, "$jsonSchema keyword '%s' must be a number", k)
			}
			x := v
			if k == "minimum" {
				s.minimum = &x
			} else {
				s.maximum = &x
			}
		case "exclusiveMinimum", "exclusiveMaximum":
			b, ok := v.BooleanOK()
			if !ok {
				return nil, errs.New(errs.TypeMismatch, "$jsonSchema keyword '%s' must be a boolean", k)
			}
			bound := "minimum"
			if k == "exclusiveMaximum" {
				bound = "maximum"
				s.exclMax = b
			} else {
				s.exclMin = b
			}
			if _, err := d.LookupErr(bound); err != nil {
				return nil, errs.New(errs.FailedToParse, "$jsonSchema keyword '%s' must be a present if %s is present", bound, k)
			}
		case "minLength":
			s.minLen, err = schemaCount(k, v)
		case "maxLength":
			s.maxLen, err = schemaCount(k, v)
		case "minItems":
			s.minItems, err = schemaCount(k, v)
		case "maxItems":
			s.maxItems, err = schemaCount(k, v)
		case "minProperties":
			s.minProps, err = schemaCount(k, v)
		case "maxProperties":
			s.maxProps, err = schemaCount(k, v)
		case "pattern":
			p, ok := v.StringValueOK()
			if !ok {
				return nil, errs.New(errs.TypeMismatch, "$jsonSchema keyword 'pattern' must be a string")
			}
			if s.pattern, err = compileRegex(p, ""); err != nil {
				return nil, err
			}
		case "uniqueItems":
			b, ok := v.BooleanOK()
			if !ok {
				return nil, errs.New(errs.TypeMismatch, "$jsonSchema keyword 'uniqueItems' must be a boolean")
			}
			s.unique = b
		case "enum":
			s.enum, err = schemaUniqueArray(k, v, false)
		case "required":
			var vals []bsoncore.Value
			if vals, err = schemaUniqueArray(k, v, true); err == nil {
				for _, x := range vals {
					s.required = append(s.required, x.StringValue())
				}
			}
		case "properties":
			err = s.parseProperties(v)
		case "patternProperties":
			err = s.parsePatternProperties(v)
		case "additionalProperties":
			s.addProps, s.noAddProps, err = schemaOrBool(k, v)
		case "items":
			err = s.parseItems(v)
		case "additionalItems":
			s.addItems, s.noAddItems, err = schemaOrBool(k, v)
		case "dependencies":
			err = s.parseDependencies(v)
		case "allOf":
			s.allOf, err = schemaList(k, v)
		case "anyOf":
			s.anyOf, err = schemaList(k, v)
		case "oneOf":
			s.oneOf, err = schemaList(k, v)
		case "not":
			sd, ok := v.DocumentOK()
			if !ok {
				return nil, errs.New(errs.TypeMismatch, "$jsonSchema keyword 'not' must be an object")
			}
			s.not, err = parseSchema(sd)
		case "title", "description":
			if v.Type != bsoncore.TypeString {
				return nil, errs.New(errs.TypeMismatch, "$jsonSchema keyword '%s' must be of type string", k)
			}
		case "$ref", "$schema", "default", "definitions", "format", "id":
			return nil, errs.New(errs.FailedToParse, "$jsonSchema keyword '%s' is not currently supported", k)
		case "encrypt", "encryptMetadata":
			return nil, errs.New(errs.NotImplemented, "$jsonSchema keyword '%s' is not supported by Lode", k)
		default:
			return nil, errs.New(errs.FailedToParse, "Unknown $jsonSchema keyword: %s", k)
		}
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *schema) parseTypes(k string, v bsoncore.Value) error {
	var names []string
	switch v.Type {
	case bsoncore.TypeString:
		names = []string{v.StringValue()}
	case bsoncore.TypeArray:
		vals, _ := v.Array().Values()
		for _, x := range vals {
			n, ok := x.StringValueOK()
			if !ok {
				return errs.New(errs.TypeMismatch, "$jsonSchema keyword '%s' array elements must be strings", k)
			}
			names = append(names, n)
		}
		if len(names) == 0 {
			return errs.New(errs.FailedToParse, "$jsonSchema keyword '%s' must name at least one type", k)
		}
	default:
		return errs.New(errs.TypeMismatch, "$jsonSchema keyword '%s' must be either a string or an array of strings", k)
	}
	for _, n := range names {
		if n == "number" {
			s.number = true
			continue
		}
		if k == "type" {
			ts, ok := jsonTypes[n]
			if !ok {
				if n == "integer" {
					return errs.New(errs.FailedToParse, "$jsonSchema type 'integer' is not currently supported.")
				}
				return errs.New(errs.BadValue, "Unknown type name alias: %s", n)
			}
			s.types = append(s.types, ts...)
			continue
		}
		t, ok := typeAliases[n]
		if !ok {
			return errs.New(errs.BadValue, "Unknown type name alias: %s", n)
		}
		s.types = append(s.types, t)
	}
	return nil
}

// schemaCount reads a non-negative integral count keyword.
func schemaCount(k string, v bsoncore.Value) (int64, error) {
	if !bsonutil.IsNumber(v.Type) {
		return 0, errs.New(errs.TypeMismatch, "$jsonSchema keyword '%s' must be a number", k)
	}
	n, ok := integral64(v)
	if !ok || n < 0 || n > math.MaxInt32 {
		return 0, errs.New(errs.FailedToParse, "$jsonSchema keyword '%s' must be representable as a non-negative 32-bit integer", k)
	}
	return n, nil
}

// schemaUniqueArray reads enum or required: a non-empty array of distinct
// values (strings when strs).
func schemaUniqueArray(k string, v bsoncore.Value, strs bool) ([]bsoncore.Value, error) {
	a, ok := v.ArrayOK()
	if !ok {
		return nil, errs.New(errs.TypeMismatch, "$jsonSchema keyword '%s' must be an array", k)
	}
	vals, _ := a.Values()
	if len(vals) == 0 {
		return nil, errs.New(errs.BadValue, "$jsonSchema keyword '%s' cannot be an empty array", k)
	}
	for i, x := range vals {
		if strs && x.Type != bsoncore.TypeString {
			return nil, errs.New(errs.TypeMismatch, "$jsonSchema keyword '%s' array can only contain strings", k)
		}
		for _, y := range vals[:i] {
			if bsonutil.Equal(x, y) {
				return nil, errs.New(errs.FailedToParse, "$jsonSchema keyword '%s' array cannot contain duplicate values", k)
			}
		}
	}
	return vals, nil
}

// schemaOrBool reads additionalProperties or additionalItems.
func schemaOrBool(k string, v bsoncore.Value) (*schema, bool, error) {
	if b, ok := v.BooleanOK(); ok {
		return nil, !b, nil
	}
	d, ok := v.DocumentOK()
	if !ok {
		return nil, false, errs.New(errs.TypeMismatch, "$jsonSchema keyword '%s' must be either an object or a boolean", k)
	}
	s, err := parseSchema(d)
	return s, false, err
}

// schemaList reads allOf, anyOf or oneOf: a non-empty array of schemas.
func schemaList(k string, v bsoncore.Value) ([]*schema, error) {
	a, ok := v.ArrayOK()
	if !ok {
		return nil, errs.New(errs.TypeMismatch, "$jsonSchema keyword '%s' must be an array", k)
	}
	vals, _ := a.Values()
	if len(vals) == 0 {
		return nil, errs.New(errs.BadValue, "$jsonSchema keyword '%s' must be a nonempty array", k)
	}
	out := make([]*schema, 0, len(vals))
	for _, x := range vals {
		d, ok := x.DocumentOK()
		if !ok {
			return nil, errs.New(errs.TypeMismatch, "$jsonSchema keyword '%s' must be an array of objects, but found an element of type %s", k, bsonutil.TypeName(x.Type))
		}
		s, err := parseSchema(d)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (s *schema) parseProperties(v bsoncore.Value) error {
	d, ok := v.DocumentOK()
	if !ok {
		return errs.New(errs.TypeMismatch, "$jsonSchema keyword 'properties' must be an object")
	}
	els, _ := d.Elements()
	s.properties = make(map[string]*schema, len(els))
	for _, el := range els {
		sd, ok := el.Value().DocumentOK()
		if !ok {
			return errs.New(errs.TypeMismatch, "Nested schema for $jsonSchema property '%s' must be an object", el.Key())
		}
		sub, err := parseSchema(sd)
		if err != nil {
			return err
		}
		s.properties[el.Key()] = sub
	}
	return nil
}

func (s *schema) parsePatternProperties(v bsoncore.Value) error {
	d, ok := v.DocumentOK()
	if !ok {
		return errs.New(errs.TypeMismatch, "$jsonSchema keyword 'patternProperties' must be an object")
	}
	els, _ := d.Elements()
	for _, el := range els {
		sd, ok := el.Value().DocumentOK()
		if !ok {
			return errs.New(errs.TypeMismatch, "$jsonSchema keyword 'patternProperties' requires all properties to be objects")
		}
		re, err := compileRegex(el.Key(), "")
		if err != nil {
			return err
		}
		sub, err := parseSchema(sd)
		if err != nil {
			return err
		}
		s.patProps = append(s.patProps, patternSchema{re: re, s: sub})
	}
	return nil
}

func (s *schema) parseItems(v bsoncore.Value) error {
	if d, ok := v.DocumentOK(); ok {
		sub, err := parseSchema(d)
		s.itemsOne = sub
		return err
	}
	a, ok := v.ArrayOK()
	if !ok {
		return errs.New(errs.TypeMismatch, "$jsonSchema keyword 'items' must be an array or an object")
	}
	s.hasTuple = true
	vals, _ := a.Values()
	for _, x := range vals {
		d, ok := x.DocumentOK()
		if !ok {
			return errs.New(errs.TypeMismatch, "$jsonSchema keyword 'items' requires that each element of the array is an object, but found a %s", bsonutil.TypeName(x.Type))
		}
		sub, err := parseSchema(d)
		if err != nil {
			return err
		}
		s.itemsTuple = append(s.itemsTuple, sub)
	}
	return nil
}

func (s *schema) parseDependencies(v bsoncore.Value) error {
	d, ok := v.DocumentOK()
	if !ok {
		return errs.New(errs.TypeMismatch, "$jsonSchema keyword 'dependencies' must be an object")
	}
	els, _ := d.Elements()
	for _, el := range els {
		x := el.Value()
		if sd, ok := x.DocumentOK(); ok {
			sub, err := parseSchema(sd)
			if err != nil {
				return err
			}
			if s.depSchemas == nil {
				s.depSchemas = map[string]*schema{}
			}
			s.depSchemas[el.Key()] = sub
			continue
		}
		if x.Type != bsoncore.TypeArray {
			return errs.New(errs.TypeMismatch, "property '%s' in $jsonSchema keyword 'dependencies' must be either an object or an array", el.Key())
		}
		vals, err := schemaUniqueArray("dependencies", x, true)
		if err != nil {
			return err
		}
		if s.depFields == nil {
			s.depFields = map[string][]string{}
		}
		for _, f := range vals {
			s.depFields[el.Key()] = append(s.depFields[el.Key()], f.StringValue())
		}
	}
	return nil
}

// stringLength is a string's length in code points, as $jsonSchema's
// minLength and maxLength count.
func stringLength(s string) int64 { return int64(utf8.RuneCountInString(s)) }
