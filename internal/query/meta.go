package query

import (
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// MetaTextScore is the $meta keyword of a text search's relevance score.
const MetaTextScore = "textScore"

// parseMetaSort parses a sort key {$meta: "textScore"}: the score sorts
// descending, whatever the key's name.
func parseMetaSort(key string, v bsoncore.Value) (SortField, error) {
	elems, _ := v.Document().Elements()
	if len(elems) != 1 {
		return SortField{}, errs.New(errs.Location15974, "Illegal key in $sort specification: %s", bsonutil.FormatElem(key, v, msgStyle))
	}
	arg, ok := elems[0].Value().StringValueOK()
	switch {
	case !ok:
		return SortField{}, errs.New(errs.Location15974, "Illegal key in $sort specification: %s", bsonutil.FormatElem(key, v, msgStyle))
	case arg == MetaTextScore:
		return SortField{Path: key, Desc: true, Meta: arg, parts: splitPath(key)}, nil
	case arg == "randVal" || arg == "searchScore" || arg == "indexKey" || arg == "recordId" || arg == "geoNearDistance" || arg == "geoNearPoint" || arg == "searchHighlights" || arg == "sortKey" || arg == "searchScoreDetails" || arg == "searchSequenceToken" || arg == "vectorSearchScore":
		return SortField{}, errs.New(errs.NotImplemented, "$meta sort by %s is not supported by Lode", bsonutil.FormatValue(v, msgStyle))
	}
	return SortField{}, errs.New(errs.Location31138, "Illegal $meta sort: %s", bsonutil.FormatElem(key, v, msgStyle))
}

// HasMeta reports whether the sort has a {$meta: "textScore"} key.
func (s *Sort) HasMeta() bool {
	if s == nil {
		return false
	}
	for _, f := range s.Fields {
		if f.Meta != "" {
			return true
		}
	}
	return false
}

// KeyScore is Key for a document whose text score is score: a
// {$meta: "textScore"} key takes the score.
func (s *Sort) KeyScore(doc bsoncore.Document, score float64) SortKey {
	key := s.Key(doc)
	for i, f := range s.Fields {
		if f.Meta != "" {
			if math.IsNaN(score) {
				score = 0 // mongod sorts a document without a score as 0
			}
			key[i] = bsoncore.Value{Type: bsoncore.TypeDouble, Data: bsoncore.AppendDouble(nil, score)}
		}
	}
	return key
}

// addMeta records a {$meta: ...} projection field. Only "textScore" is
// computed; "indexKey" and the search metadata are refused.
func (p *Projection) addMeta(key string, arg bsoncore.Value) error {
	s, ok := arg.StringValueOK()
	switch {
	case ok && s == MetaTextScore:
	case ok && (s == "indexKey" || s == "recordId" || s == "randVal" || s == "searchScore" || s == "searchHighlights" ||
		s == "sortKey" || s == "geoNearDistance" || s == "geoNearPoint" || s == "searchScoreDetails" || s == "vectorSearchScore"):
		return errs.New(errs.NotImplemented, "$meta projection of %q is not supported by Lode", s)
	case !ok:
		return errs.New(errs.Location17307, "$meta only supports String arguments")
	default:
		return errs.New(errs.Location17308, "Unsupported argument to $meta: %s", s)
	}
	if strings.Contains(key, ".") {
		return errs.New(errs.NotImplemented, "$meta projection into a dotted path (%s) is not supported by Lode", key)
	}
	p.metas = append(p.metas, key)
	return nil
}

// HasMeta reports whether the projection asks for the text score.
func (p *Projection) HasMeta() bool { return p != nil && len(p.metas) > 0 }

// ApplyScore is Apply for a document whose text score is score: each
// {$meta: "textScore"} field is set to it, replacing a field of the same
// name, after the projected fields.
func (p *Projection) ApplyScore(doc bsoncore.Document, pos int, score float64) (bsoncore.Document, error) {
	out, err := p.Apply(doc, pos)
	if err != nil || len(p.metas) == 0 {
		return out, err
	}
	idx, b := bsoncore.AppendDocumentStart(nil)
	elems, _ := out.Elements()
	for _, e := range elems {
		skip := false
		for _, m := range p.metas {
			if e.Key() == m {
				skip = true
			}
		}
		if !skip {
			b = append(b, e...)
		}
	}
	for _, m := range p.metas {
		if math.IsNaN(score) {
			break // no score: the field is missing, as in mongod
		}
		b = bsoncore.AppendDoubleElement(b, m, score)
	}
	b, _ = bsoncore.AppendDocumentEnd(b, idx)
	return b, nil
}

// HiddenTextScore is the top-level field that carries a document's text
// score through an aggregation pipeline (a '$' name, which no $project or
// $addFields path can produce). A {$meta: "textScore"} sort key reads it
// when the score is not given (KeyScore).
const HiddenTextScore = "$textScore"

// WithScoreField returns p with the text score added under name, after
// the projected fields; a nil p keeps whole documents.
func (p *Projection) WithScoreField(name string) *Projection {
	if p == nil {
		p = &Projection{empty: true}
	} else {
		c := *p
		p = &c
	}
	p.metas = append(append([]string(nil), p.metas...), name)
	return p
}
