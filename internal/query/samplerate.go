package query

import (
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// parseSampleRate parses {$sampleRate: x}: each document matches with
// probability x. As in mongod, 0 and 1 become a contradiction and a
// tautology, and any other x in (0, 1) the expression
// {$expr: {$lt: [{$rand: {}}, x]}}, which explain shows.
func (p *parser) parseSampleRate(v bsoncore.Value, level int) (Node, error) {
	if level == levelSubDocument {
		return nil, errs.New(errs.BadValue, "$sampleRate can only be applied to the top-level document")
	}
	if !isNumber(v) {
		return nil, errs.New(errs.BadValue, "argument to $sampleRate must be a numeric type")
	}
	x := bsonutilFloat(v)
	if !(x >= 0 && x <= 1) {
		return nil, errs.New(errs.BadValue, "numeric argument to $sampleRate must be in [0, 1]")
	}
	switch x {
	case 0:
		return &BoolNode{Value: false}, nil
	case 1:
		return &BoolNode{Value: true}, nil
	}
	lt := expr.NewArrayBuilder()
	lt.Append(bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: bsoncore.NewDocumentBuilder().
		AppendDocument("$rand", bsoncore.NewDocumentBuilder().Build()).Build()})
	lt.Append(expr.Double(x))
	e := bsoncore.NewDocumentBuilder().AppendArray("$lt", lt.Value().Data).Build()
	return p.newExprNode(bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: e})
}
