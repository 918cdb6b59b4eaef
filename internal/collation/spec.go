package collation

import (
	"math"
	"strings"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Version is the collation version mongod 7.0 reports (its ICU version).
const Version = "57.1"

// Spec is a normalised, non-simple collation: every field set, as mongod
// reports it in listIndexes, listCollections and explain.
type Spec struct {
	Locale          string
	CaseLevel       bool
	CaseFirst       string // "upper", "lower" or "off"
	Strength        int    // 1..5
	NumericOrdering bool
	Alternate       string // "non-ignorable" or "shifted"
	MaxVariable     string // "punct" or "space"
	Normalization   bool
	Backwards       bool
	Version         string
}

// Document renders the full specification in mongod's field order.
func (s *Spec) Document() bsoncore.Document {
	return bsoncore.NewDocumentBuilder().
		AppendString("locale", s.Locale).
		AppendBoolean("caseLevel", s.CaseLevel).
		AppendString("caseFirst", s.CaseFirst).
		AppendInt32("strength", int32(s.Strength)).
		AppendBoolean("numericOrdering", s.NumericOrdering).
		AppendString("alternate", s.Alternate).
		AppendString("maxVariable", s.MaxVariable).
		AppendBoolean("normalization", s.Normalization).
		AppendBoolean("backwards", s.Backwards).
		AppendString("version", s.Version).
		Build()
}

// Equal reports whether two specs (nil meaning simple) are the same
// collation.
func Equal(a, b *Spec) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// Parse validates a collation document as mongod 7.0's ICU collator
// factory does and returns its normalised spec; nil means the simple
// collation ({locale: "simple"}). Errors carry mongod's codes and
// messages; an option Lode cannot honour is NotImplemented.
func Parse(doc bsoncore.Document) (*Spec, error) {
	loc, err := doc.LookupErr("locale")
	if err != nil {
		return nil, errs.New(errs.Location40414, "BSON field 'locale' is missing but a required field")
	}
	locale, ok := loc.StringValueOK()
	if !ok {
		return nil, typeErr("locale", loc, "string")
	}
	elems, err := doc.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid collation document: %v", err)
	}
	if strings.IndexByte(locale, 0) >= 0 {
		return nil, errs.New(errs.BadValue, "Field 'locale' cannot contain null byte. Collation spec: %s", render(doc))
	}
	if locale == "simple" {
		if len(elems) > 1 {
			return nil, errs.New(errs.FailedToParse, "If locale=simple, no other fields should be present in: %s", render(doc))
		}
		return nil, nil
	}
	if locale == "" {
		return nil, errs.New(errs.BadValue, "Field 'locale' cannot be the empty string in: %s", render(doc))
	}
	tag, known := locales[locale]
	if !known {
		return nil, errs.New(errs.BadValue, "Field 'locale' is invalid in: %s", render(doc))
	}
	s := &Spec{Locale: locale, CaseFirst: defaultCaseFirst(locale), Strength: 3, Alternate: "non-ignorable",
		MaxVariable: "punct", Backwards: defaultBackwards[locale], Version: Version}
	parsed := 1
	for _, f := range []struct {
		name string
		set  func(bsoncore.Value) error
	}{
		{"caseLevel", boolField("caseLevel", &s.CaseLevel)},
		{"caseFirst", enumField("caseFirst", &s.CaseFirst, "Field 'caseFirst' must be 'upper', 'lower', or 'off'. Got: ", "upper", "lower", "off")},
		{"strength", func(v bsoncore.Value) error {
			n, err := intField("strength", v)
			if err != nil {
				return err
			}
			if n < 1 || n > 5 {
				return errs.New(errs.FailedToParse, "Field 'strength' must be an integer 1 through 5. Got: %d", n)
			}
			s.Strength = int(n)
			return nil
		}},
		{"numericOrdering", boolField("numericOrdering", &s.NumericOrdering)},
		{"alternate", enumField("alternate", &s.Alternate, "Field 'alternate' must be 'non-ignorable' or 'shifted'. Got: ", "non-ignorable", "shifted")},
		{"maxVariable", enumField("maxVariable", &s.MaxVariable, "Field 'maxVariable' must be 'punct' or 'space'. Got: ", "punct", "space")},
		{"normalization", boolField("normalization", &s.Normalization)},
		{"backwards", boolField("backwards", &s.Backwards)},
		{"version", func(v bsoncore.Value) error {
			str, ok := v.StringValueOK()
			if !ok {
				return typeErr("version", v, "string")
			}
			if str != Version {
				return errs.New(errs.IncompatibleCollationVersion, "Requested collation version %s but the only available collator version was %s. Requested collation spec: %s", str, Version, render(doc))
			}
			return nil
		}},
	} {
		v, err := doc.LookupErr(f.name)
		if err != nil {
			continue
		}
		parsed++
		if err := f.set(v); err != nil {
			return nil, err
		}
	}
	if parsed < len(elems) {
		return nil, errs.New(errs.FailedToParse, "Collation spec contains unknown field. Collation spec: %s", render(doc))
	}
	if s.Backwards && s.Strength == 1 {
		return nil, errs.New(errs.BadValue, "'backwards' is invalid with 'strength' of 1 in: %s", render(s.Document()))
	}
	if s.CaseFirst != "off" && !s.CaseLevel && s.Strength < 3 {
		return nil, errs.New(errs.BadValue, "'caseFirst' is invalid unless 'caseLevel' is on or 'strength' is greater than 2 in: %s", render(s.Document()))
	}
	if err := s.supported(tag); err != nil {
		return nil, err
	}
	return s, nil
}

// supported refuses, with NotImplemented, what Lode cannot honour on
// x/text. caseFirst and caseLevel are honoured (casekey.go).
func (s *Spec) supported(tag string) error {
	switch {
	case tag == "":
		return errs.New(errs.NotImplemented, "collation locale %q is not supported by Lode: golang.org/x/text has no faithful collation for it", s.Locale)
	case s.MaxVariable == "space" && s.Alternate == "shifted":
		return errs.New(errs.NotImplemented, "collation maxVariable \"space\" with alternate \"shifted\" is not supported by Lode: golang.org/x/text always shifts punctuation and spaces")
	}
	return nil
}

func render(d bsoncore.Document) string {
	return bsonutil.FormatDoc(d, bsonutil.Style{})
}

func typeErr(field string, v bsoncore.Value, want string) error {
	return errs.New(errs.TypeMismatch, "\"%s\" had the wrong type. Expected %s, found %s", field, want, bsonutil.TypeName(v.Type))
}

func boolField(name string, dst *bool) func(bsoncore.Value) error {
	return func(v bsoncore.Value) error {
		b, ok := v.BooleanOK()
		if !ok {
			return typeErr(name, v, "bool")
		}
		*dst = b
		return nil
	}
}

func enumField(name string, dst *string, msg string, allowed ...string) func(bsoncore.Value) error {
	return func(v bsoncore.Value) error {
		str, ok := v.StringValueOK()
		if !ok {
			return typeErr(name, v, "string")
		}
		for _, a := range allowed {
			if str == a {
				*dst = str
				return nil
			}
		}
		return errs.New(errs.FailedToParse, "%s%s", msg, str)
	}
}

// intField reads a number that must hold an integer, as mongod's
// bsonExtractIntegerField does.
func intField(name string, v bsoncore.Value) (int64, error) {
	switch v.Type {
	case bsoncore.TypeInt32:
		return int64(v.Int32()), nil
	case bsoncore.TypeInt64:
		return v.Int64(), nil
	case bsoncore.TypeDouble:
		f := v.Double()
		if f != math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) > 1<<53 {
			return 0, errs.New(errs.BadValue, "Expected field \"%s\" to have a value exactly representable as a 64-bit integer, but found %s: %s", name, name, bsonutil.FormatValue(v, bsonutil.Style{}))
		}
		return int64(f), nil
	case bsoncore.TypeDecimal128:
		return 0, errs.New(errs.NotImplemented, "collation %s as a decimal is not supported by Lode", name)
	}
	return 0, errs.New(errs.TypeMismatch, "Expected field \"%s\" to have numeric type, but found %s", name, bsonutil.TypeName(v.Type))
}
