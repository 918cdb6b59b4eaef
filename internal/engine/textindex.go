package engine

import (
	"bytes"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/text"
)

// Text indexes (textIndexVersion 3) are stored as mongod stores them: the
// key pattern {prefix..., _fts: "text", _ftsx: 1, suffix...} with the text
// fields moved into "weights", plus default_language, language_override
// and textIndexVersion. Each document has one entry per distinct term:
// (prefix values, term, score, suffix values), the score being the
// document's weighted score for the term (text.Spec.Score).

const (
	textLanguageOverride = "language"
	textIndexVersion     = 3
	textWeightMax        = 100000
)

// isTextKey reports whether a key pattern declares a text index ("text"
// values, or the stored form's _fts field).
func isTextKey(key bsoncore.Document) bool {
	elems, _ := key.Elements()
	for _, e := range elems {
		if s, ok := e.Value().StringValueOK(); ok && s == "text" {
			return true
		}
	}
	return false
}

// normalizeTextSpec turns a text index specification into its stored
// form, as mongod's FTSSpec::fixSpec does: the "text" fields and the
// weights option become the sorted weights document, the key pattern gets
// _fts/_ftsx in their place, and the options get their defaults. A spec
// already in stored form (mongorestore's) keeps its weights.
func normalizeTextSpec(spec *IndexSpec) error {
	if !isTextKey(spec.Key) {
		// The text options mean nothing without a text field.
		spec.Weights, spec.DefaultLanguage, spec.LanguageOverride, spec.TextIndexVersion = nil, "", "", 0
		return nil
	}
	weights := map[string]float64{}
	if spec.Weights != nil {
		elems, err := spec.Weights.Elements()
		if err != nil {
			return errs.New(errs.CannotCreateIndex, "invalid weights: %v", err)
		}
		for _, e := range elems {
			v := e.Value()
			if !bsonutil.IsNumber(v.Type) {
				return errs.New(errs.Location17283, "weight for text index needs numeric type")
			}
			w := bsonutil.AsFloat64(v)
			if w <= 0 || w >= textWeightMax {
				return errs.New(errs.Location16674, "score for word too high")
			}
			weights[e.Key()] = w
		}
	}
	kb := bsoncore.NewDocumentBuilder()
	state := 0 // 0 prefix, 1 text fields, 2 suffix
	elems, _ := spec.Key.Elements()
	for _, e := range elems {
		k, v := e.Key(), e.Value()
		if s, ok := v.StringValueOK(); ok && s == "text" {
			if state == 2 {
				return errs.New(errs.Location17389, "'text' fields in index must all be adjacent")
			}
			if state == 0 {
				kb.AppendString("_fts", "text").AppendInt32("_ftsx", 1)
			}
			state = 1
			if k != "_fts" {
				if _, ok := weights[k]; !ok {
					weights[k] = 1
				}
			}
			continue
		}
		if k == "_ftsx" {
			continue
		}
		if v.Type == bsoncore.TypeString {
			// hashed, 2d, 2dsphere (or any other name) beside text.
			return errs.New(errs.CannotCreateIndex, "Can't use more than one index plugin for a single index.")
		}
		if !bsonutil.IsNumber(v.Type) {
			return errs.New(errs.CannotCreateIndex, "Values in v:2 index key pattern cannot be of type %s. Only numbers > 0, numbers < 0, and strings are allowed.", bsonutil.TypeName(v.Type))
		}
		if n := bsonutil.AsFloat64(v); n != 1 && n != -1 {
			return errs.New(errs.Location17273, "expected value 1 or -1 for non-text key in compound index")
		}
		if k == "_fts" {
			return errs.New(errs.Location17289, "text index with reserved fields _fts/_ftsx not allowed")
		}
		if state == 1 {
			state = 2
		}
		kb.AppendValue(k, v)
	}
	spec.Key = kb.Build()
	if len(weights) == 0 {
		return errs.New(errs.CannotCreateIndex, "text index has no text fields: %s", bsonutil.FormatDoc(spec.Key, msgStyle))
	}
	names := make([]string, 0, len(weights))
	for k := range weights {
		if k != "$**" {
			for _, part := range strings.Split(k, ".") {
				switch {
				case part == "":
					return errs.New(errs.Location17291, "weight cannot have empty path component")
				case strings.HasPrefix(part, "$"):
					return errs.New(errs.Location17292, "weight cannot have path component with $ prefix")
				}
			}
		}
		names = append(names, k)
	}
	sort.Strings(names)
	wb := bsoncore.NewDocumentBuilder()
	for _, k := range names {
		if w := weights[k]; w == float64(int32(w)) {
			wb.AppendInt32(k, int32(w))
		} else {
			wb.AppendDouble(k, w)
		}
	}
	spec.Weights = wb.Build()
	if spec.DefaultLanguage == "" {
		spec.DefaultLanguage = textDefaultLanguage
	}
	if _, ok := text.LookupLanguage(spec.DefaultLanguage); !ok {
		return errs.New(errs.Location17264, "default_language is not valid")
	}
	if spec.LanguageOverride == "" {
		spec.LanguageOverride = textLanguageOverride
	}
	switch spec.TextIndexVersion {
	case 0:
		spec.TextIndexVersion = textIndexVersion
	case textIndexVersion:
	case 1, 2:
		return errs.New(errs.NotImplemented, "textIndexVersion %d is not supported by Lode: only version 3 indexes are built", spec.TextIndexVersion)
	default:
		return errs.New(errs.Location16730, "bad textIndexVersion: %d", spec.TextIndexVersion)
	}
	if spec.Unique {
		return errs.New(errs.NotImplemented, "unique text indexes are not supported by Lode")
	}
	return nil
}

// textSpecEqual reports whether two text index specs have the same text
// options.
func textSpecEqual(a, b IndexSpec) bool {
	return bytes.Equal(a.Weights, b.Weights) && a.DefaultLanguage == b.DefaultLanguage &&
		a.LanguageOverride == b.LanguageOverride && a.TextIndexVersion == b.TextIndexVersion
}

// textIndexConflict applies mongod's one-text-index rule: a second text
// index under another name is refused; the same name with other text
// options is a conflict.
func textIndexConflict(indexes []*index, spec IndexSpec) error {
	if spec.TextIndexVersion == 0 {
		return nil
	}
	for _, ix := range indexes {
		if ix.Text == nil {
			continue
		}
		if ix.Name != spec.Name {
			return errs.New(errs.CannotCreateIndex, "only one text index per collection allowed, found existing text index \"%s\"", ix.Name)
		}
		if !textSpecEqual(ix.Spec(), spec) || !keyEqual(ix.Key, spec.Key) {
			return errs.New(errs.IndexOptionsConflict, "An equivalent index already exists with the same name but different options. Requested index: %s, existing index: %s", specString(spec), specString(ix.Spec()))
		}
	}
	return nil
}

// textPlanIndex describes c's text index for the planner, nil when c has
// none (or it is hidden).
func textPlanIndex(c *collection) *plan.Index {
	for _, ix := range c.Indexes {
		if ix.Text == nil || ix.Hidden {
			continue
		}
		return ix.PlanIndex(ix.Collator)
	}
	return nil
}

// checkTextMeta refuses a textScore sort or projection in a query without
// $text, as mongod does (40218).
func checkTextMeta(q planReq) error {
	if !q.sort.HasMeta() && !q.opts.Projection.HasMeta() && !q.opts.Sort.HasMeta() {
		return nil
	}
	if tn, err := query.TextOf(q.filter); err == nil && tn != nil {
		return nil
	}
	if _, _, tn := query.TextOrBranch(q.filter); tn != nil {
		return nil
	}
	return errs.New(errs.Location40218, "query requires text score metadata, but it is not available")
}
