package server

import (
	"strings"

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
				return errs.New(errs.Location17284, "text index option 'weights' must be an object")
			}
			spec.Weights = bsoncore.NewDocumentBuilder().AppendInt32("$**", 1).Build()
		default:
			return errs.New(errs.Location17284, "text index option 'weights' must be an object")
		}
	case "default_language":
		s, ok := v.StringValueOK()
		if !ok {
			return errs.New(errs.Location17263, "default_language needs a string type")
		}
		spec.DefaultLanguage = s
	case "language_override":
		s, ok := v.StringValueOK()
		if !ok || s == "" || strings.HasPrefix(s, "$") || strings.Contains(s, ".") {
			return errs.New(errs.Location17136, "language_override is not valid")
		}
		spec.LanguageOverride = s
	case "textIndexVersion":
		if !bsonutil.IsNumber(v.Type) {
			return errs.New(errs.Location17293, "text index option 'textIndexVersion' must be a number")
		}
		spec.TextIndexVersion = int32(bsonutil.AsFloat64(v))
	}
	return nil
}
