package server

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

// parseTextIndexOption reads one of a text index's options into spec;
// the engine validates them against the key pattern (a text key is
// required for them to mean anything).
func parseTextIndexOption(spec *engine.IndexSpec, k string, v bsoncore.Value) error {
	switch k {
	case "weights":
		switch v.Type {
		case bsoncore.TypeEmbeddedDocument:
			spec.Weights = v.Document()
		case bsoncore.TypeString:
			if v.StringValue() != "$**" {
				return errs.New(errs.CannotCreateIndex, "text index option 'weights' must be an object or \"$**\"")
			}
			spec.Weights = bsoncore.NewDocumentBuilder().AppendInt32("$**", 1).Build()
		default:
			return errs.New(errs.TypeMismatch, "text index option 'weights' must be an object, but got %s", bsonutil.TypeName(v.Type))
		}
	case "default_language":
		s, ok := v.StringValueOK()
		if !ok {
			return errs.New(errs.TypeMismatch, "text index option 'default_language' must be a string, but got %s", bsonutil.TypeName(v.Type))
		}
		spec.DefaultLanguage = s
	case "language_override":
		s, ok := v.StringValueOK()
		if !ok {
			return errs.New(errs.TypeMismatch, "text index option 'language_override' must be a string, but got %s", bsonutil.TypeName(v.Type))
		}
		spec.LanguageOverride = s
	case "textIndexVersion":
		if !bsonutil.IsNumber(v.Type) {
			return errs.New(errs.TypeMismatch, "text index option 'textIndexVersion' must be a number, but got %s", bsonutil.TypeName(v.Type))
		}
		spec.TextIndexVersion = int32(bsonutil.AsFloat64(v))
	}
	return nil
}
