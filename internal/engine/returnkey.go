package engine

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/query/plan"
)

// find's returnKey: each result is the key the plan's index holds for
// the document, {field: value} in key pattern order, or {} when the plan
// scans the collection (mongod's RETURN_KEY stage).
//
// Lode rebuilds the key from the document. That is the index key exactly
// when no indexed path holds an array; over a multikey index, where the
// key is one element of the array, and over plans that read several
// indexes, returnKey is refused.

// returnKeyFields returns the key fields of the index sol scans.
func returnKeyFields(sol *plan.Solution) ([]plan.Field, error) {
	if sol.Index == nil {
		if sol.Root != nil && sol.Root.Stage != plan.StageCollScan && sol.Root.Stage != plan.StageEOF {
			return nil, errs.New(errs.NotImplemented, "returnKey over a plan that reads several indexes is not supported by Lode; hint one index")
		}
		return nil, nil
	}
	if sol.Index.Multikey {
		return nil, errs.New(errs.NotImplemented, "returnKey over the multikey index %s is not supported by Lode", sol.Index.Name)
	}
	return sol.Index.Fields, nil
}

// indexKeyDoc builds doc's key for an index on fields; a missing field
// is null, as in the index, and a hashed field's value is its hash.
func indexKeyDoc(doc bsoncore.Document, fields []plan.Field) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	for _, f := range fields {
		v, err := doc.LookupErr(strings.Split(f.Path, ".")...)
		if err != nil {
			v = bsoncore.Value{Type: bsoncore.TypeNull}
		}
		if f.Hashed {
			b.AppendInt64(f.Path, expr.HashedIndexKey(v))
			continue
		}
		b.AppendValue(f.Path, v)
	}
	return b.Build()
}
