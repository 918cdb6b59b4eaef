package engine

import (
	"context"
	"log/slog"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
)

// docValidator is a collection's document validation (the validator,
// validationLevel and validationAction collection options), parsed once
// when the collection's metadata is built.
type docValidator struct {
	filter *query.Filter
	// level is "strict" (every insert and update), "moderate" (updates of
	// documents that already fail are not checked) or "off".
	level string
	// action is "error" (the write fails with 121) or "warn" (it is
	// logged and succeeds).
	action string
	// invalid is why a stored validator no longer parses (stored before
	// Lode checked validators): writes fail with it rather than go
	// unchecked.
	invalid error
}

// ParseValidationOptions checks the validator, validationLevel and
// validationAction fields of options (create's or collMod's), as mongod
// does before it stores them: cmd names the command in messages.
func ParseValidationOptions(cmd string, options bsoncore.Document) error {
	_, err := parseValidator(cmd, options)
	return err
}

// parseValidator builds the docValidator of a collection's options; nil
// when there is no validator (absent or {}).
func parseValidator(cmd string, options bsoncore.Document) (*docValidator, error) {
	if len(options) <= 5 {
		return nil, nil
	}
	v := &docValidator{level: "strict", action: "error"}
	var raw bsoncore.Document
	if x, err := options.LookupErr("validationLevel"); err == nil {
		s, ok := x.StringValueOK()
		if !ok {
			return nil, errs.New(errs.TypeMismatch, "BSON field '%s.validationLevel' is the wrong type '%s', expected type 'string'", cmd, typeName(x))
		}
		if s != "strict" && s != "moderate" && s != "off" {
			return nil, errs.New(errs.BadValue, "Enumeration value '%s' for field '%s.validationLevel' is not a valid value.", s, cmd)
		}
		v.level = s
	}
	if x, err := options.LookupErr("validationAction"); err == nil {
		s, ok := x.StringValueOK()
		if !ok {
			return nil, errs.New(errs.TypeMismatch, "BSON field '%s.validationAction' is the wrong type '%s', expected type 'string'", cmd, typeName(x))
		}
		if s != "error" && s != "warn" {
			return nil, errs.New(errs.BadValue, "Enumeration value '%s' for field '%s.validationAction' is not a valid value.", s, cmd)
		}
		v.action = s
	}
	if x, err := options.LookupErr("validator"); err == nil {
		d, ok := x.DocumentOK()
		if !ok {
			return nil, errs.New(errs.TypeMismatch, "BSON field '%s.validator' is the wrong type '%s', expected type 'object'", cmd, typeName(x))
		}
		raw = d
	}
	if len(raw) <= 5 {
		return nil, nil
	}
	// The validator matches under the collection's default collation, as
	// mongod parses it with the collection's collator.
	var coll *collation.Collator
	if cd, ok := options.Lookup("collation").DocumentOK(); ok {
		sp, err := collation.Parse(cd)
		if err != nil {
			return nil, err
		}
		coll = collation.New(sp)
	}
	f, err := query.ParseCollated(raw, nil, nil, coll)
	if err != nil {
		return nil, err
	}
	if err := query.RefuseText(f); err != nil {
		return nil, err
	}
	v.filter = f
	return v, nil
}

// typeName is the BSON type name of v in mongod's messages.
func typeName(v bsoncore.Value) string { return bsonutil.TypeName(v.Type) }

// checkValidatorNamespace refuses a validator (options with a non-empty
// one) on a system collection or in the admin, local and config
// databases, as mongod does.
func checkValidatorNamespace(db, coll string, options bsoncore.Document) error {
	d, ok := options.Lookup("validator").DocumentOK()
	if !ok || len(d) <= 5 {
		return nil
	}
	if strings.HasPrefix(coll, "system.") && !strings.HasPrefix(coll, "system.buckets.") {
		// mongod gives a time series collection's buckets its validator.
		return errs.New(errs.InvalidOptions, "Document validators not allowed on system collection %s.%s", db, coll)
	}
	if db == "admin" || db == "local" || db == "config" {
		return errs.New(errs.InvalidOptions, "Document validators are not allowed on collections in the %s database", db)
	}
	return nil
}

// validatorOf parses the validator stored in options. Options that no
// longer parse (stored before Lode checked them) give a validator that
// refuses writes with the parse error, never one that checks nothing.
func validatorOf(options bsoncore.Document) *docValidator {
	v, err := parseValidator("create", options)
	if err != nil {
		return &docValidator{level: "strict", action: "error", invalid: err}
	}
	return v
}

// bypassKey marks a context whose writes skip document validation.
type bypassKey struct{}

// WithBypassValidation returns a context whose engine writes skip the
// collection's validator (bypassDocumentValidation: true).
func WithBypassValidation(ctx context.Context, bypass bool) context.Context {
	if !bypass {
		return ctx
	}
	return context.WithValue(ctx, bypassKey{}, true)
}

func bypassFrom(ctx context.Context) bool {
	b, _ := ctx.Value(bypassKey{}).(bool)
	return b
}

// validate checks doc, about to be written, against the collection's
// validator; old is the document an update replaces (nil for an insert
// or an upsert).
func (t *writeBatch) validate(old, doc bsoncore.Document) error {
	v := t.c.validator
	if v == nil || t.bypass || v.level == "off" {
		return nil
	}
	if v.invalid != nil {
		return v.invalid
	}
	if v.filter.Match(doc) {
		return nil
	}
	if old != nil && v.level == "moderate" && !v.filter.Match(old) {
		return nil
	}
	info := validationInfo(v, doc)
	if v.action == "warn" {
		t.e.log.Warn("Document would fail validation", slog.String("namespace", t.c.NS()),
			slog.String("document", docString(doc)), slog.String("errInfo", docString(info)))
		return nil
	}
	e := errs.New(errs.DocumentValidationFailure, "Document failed validation")
	e.Info = bsoncore.NewDocumentBuilder().AppendDocument("errInfo", info).Build()
	return e
}

// validationInfo is the errInfo of a validation failure:
// {failingDocumentId, details}.
func validationInfo(v *docValidator, doc bsoncore.Document) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	if id, err := doc.LookupErr("_id"); err == nil {
		b.AppendValue("failingDocumentId", id)
	}
	b.AppendDocument("details", v.filter.FailureDetails(doc))
	return b.Build()
}

func docString(d bsoncore.Document) string { return d.String() }
