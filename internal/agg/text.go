package agg

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
)

// Text search in a pipeline. As in mongod, $text may appear only in a
// $match that is the pipeline's first stage (17313 otherwise). That
// $match goes down to the engine as the query, which then adds each
// document's score in the hidden top-level field query.HiddenTextScore.
// Later stages read it: a {$meta: "textScore"} expression is rewritten to
// a $getField of that field, and a {$meta: "textScore"} sort key reads it
// (query.Sort.Key). The field is removed from the pipeline's output, and
// from the input of the stages that declare dropsTextScore ($out, $merge
// and $facet). Where mongod keeps the score
// as metadata that survives a $project or $group, the field is only kept
// by stages that keep the document's other fields: after an inclusion
// $project or a $group, $meta: "textScore" gives null here.

// prepareText checks $text's placement and rewrites the pipeline's
// {$meta: "textScore"} expressions; pc.textScore records that the first
// stage is a text query.
func prepareText(pipeline []bsoncore.Document, pc *ParseContext) ([]bsoncore.Document, error) {
	text := false
	uses := false
	for i, d := range pipeline {
		elems, err := d.Elements()
		if err != nil || len(elems) != 1 {
			return pipeline, nil // stageSpec reports it
		}
		name, v := elems[0].Key(), elems[0].Value()
		if name == "$match" && v.Type == bsoncore.TypeEmbeddedDocument && isTextMatch(v.Document()) {
			if i != 0 || pc.inFacet {
				return nil, errs.New(errs.Location17313, "$match with $text is only allowed as the first pipeline stage")
			}
			text = true
			continue
		}
		if !ownsMeta(name) && hasMetaTextScore(v) {
			uses = true
		}
	}
	pc.textScore = text && pc.Coll != ""
	if !uses {
		return pipeline, nil
	}
	if !pc.textScore {
		return nil, errs.New(errs.Location40218, "query requires text score metadata, but it is not available")
	}
	out := make([]bsoncore.Document, len(pipeline))
	for i, d := range pipeline {
		e, _ := d.IndexErr(0)
		name := e.Key()
		if ownsMeta(name) || !hasMetaTextScore(e.Value()) {
			out[i] = d
			continue
		}
		out[i] = bsoncore.NewDocumentBuilder().AppendValue(name, rewriteMeta(e.Value())).Build()
	}
	return out, nil
}

// ownsMeta reports whether a stage's {$meta: "textScore"} is not one
// for this pipeline to rewrite, as the stage declares (ownsTextMeta:
// $match and $sort take it as is, and the sub-pipelines of $lookup,
// $unionWith and $facet are prepared on their own).
func ownsMeta(stage string) bool {
	d := stageDefs[stage]
	return d != nil && d.where.ownsTextMeta == yes
}

// dropsTextScore reports whether s's input loses the hidden score field
// before s, as the stage declares ($out and $merge store it, $facet runs
// sub-pipelines over it).
func dropsTextScore(s stage) bool {
	d := stageDefs[s.name()]
	return d != nil && d.where.dropsTextScore == yes
}

// isTextMatch reports whether a $match filter has $text at its top level
// or inside a top-level $and, $or or $nor (mongod's isTextQuery).
func isTextMatch(d bsoncore.Document) bool {
	elems, _ := d.Elements()
	for _, e := range elems {
		switch e.Key() {
		case "$text":
			return true
		case "$and", "$or", "$nor":
			vals, _ := e.Value().Array().Values()
			for _, v := range vals {
				if v.Type == bsoncore.TypeEmbeddedDocument && isTextMatch(v.Document()) {
					return true
				}
			}
		}
	}
	return false
}

// isMetaTextScore reports whether v is {$meta: "textScore"}.
func isMetaTextScore(v bsoncore.Value) bool {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return false
	}
	elems, _ := v.Document().Elements()
	if len(elems) != 1 || elems[0].Key() != "$meta" {
		return false
	}
	s, ok := elems[0].Value().StringValueOK()
	return ok && s == query.MetaTextScore
}

// hasMetaTextScore reports whether {$meta: "textScore"} appears in v.
func hasMetaTextScore(v bsoncore.Value) bool {
	if isMetaTextScore(v) {
		return true
	}
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
		vals, _ := bsoncore.Document(v.Data).Values()
		for _, x := range vals {
			if hasMetaTextScore(x) {
				return true
			}
		}
	}
	return false
}

// scoreExpr is the expression that reads the hidden score field.
var scoreExpr = func() bsoncore.Value {
	field := bsoncore.NewDocumentBuilder().AppendString("$literal", query.HiddenTextScore).Build()
	args := bsoncore.NewDocumentBuilder().AppendDocument("field", field).AppendString("input", "$$CURRENT").Build()
	d := bsoncore.NewDocumentBuilder().AppendDocument("$getField", args).Build()
	return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: d}
}()

// rewriteMeta replaces every {$meta: "textScore"} in v by scoreExpr.
func rewriteMeta(v bsoncore.Value) bsoncore.Value {
	if isMetaTextScore(v) {
		return scoreExpr
	}
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument:
		b := bsoncore.NewDocumentBuilder()
		elems, _ := v.Document().Elements()
		for _, e := range elems {
			b.AppendValue(e.Key(), rewriteMeta(e.Value()))
		}
		return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: b.Build()}
	case bsoncore.TypeArray:
		b := bsoncore.NewArrayBuilder()
		vals, _ := v.Array().Values()
		for _, x := range vals {
			b.AppendValue(rewriteMeta(x))
		}
		return bsoncore.Value{Type: bsoncore.TypeArray, Data: b.Build()}
	}
	return v
}

// stripTextScore removes the hidden score field from each document.
func stripTextScore(in Iterator) Iterator {
	if in == nil {
		return nil
	}
	return mapIter(in, func(d bsoncore.Document) (bsoncore.Document, error) {
		if _, err := d.LookupErr(query.HiddenTextScore); err != nil {
			return d, nil
		}
		idx, b := bsoncore.AppendDocumentStart(nil)
		elems, _ := d.Elements()
		for _, e := range elems {
			if e.Key() != query.HiddenTextScore {
				b = append(b, e...)
			}
		}
		b, _ = bsoncore.AppendDocumentEnd(b, idx)
		return b, nil
	})
}

// withoutKey returns d without its top-level field key.
func withoutKey(d bsoncore.Document, key string) bsoncore.Document {
	idx, b := bsoncore.AppendDocumentStart(nil)
	elems, _ := d.Elements()
	for _, e := range elems {
		if e.Key() != key {
			b = append(b, e...)
		}
	}
	b, _ = bsoncore.AppendDocumentEnd(b, idx)
	return b
}

// checkTextPushed refuses a pipeline whose $text $match was not pushed
// down to the engine as its query (a sub-pipeline over documents in
// memory, such as $facet's): only the text plan evaluates $text.
func checkTextPushed(p *Pipeline) error {
	for _, s := range p.stages {
		if m, ok := s.(*matchStage); ok && isTextMatch(m.raw) {
			if m.pushedText && !isTextMatch(withoutKey(m.raw, "$text")) {
				// What the first $match left behind when its top-level
				// $text went down with the query: its $expr clauses
				// that use variables.
				continue
			}
			if p.push == nil || p.pc.Coll == "" {
				return errs.New(errs.Location17313, "$match with $text is only allowed as the first pipeline stage")
			}
			return errs.New(errs.NotImplemented, "$match with $text that is not the pipeline's query is not supported by Lode")
		}
	}
	return nil
}
