package server

import (
	"bytes"
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/errs"
)

// A view has a default collation (none: the simple one), given to create
// and stored normalised in its system.views document. As in mongod,
// every operation on the view runs under it: a command may repeat it but
// not give another (OptionNotSupportedOnView), a view on a view must
// have the collation of the view it is defined on, and a pipeline may
// read a view ($lookup, $unionWith, $graphLookup) only under the view's
// collation.

// normalCollation returns a collation document's normalised spec
// document; nil for the simple collation and for nil.
func normalCollation(d bsoncore.Document) (bsoncore.Document, error) {
	if d == nil {
		return nil, nil
	}
	sp, err := collation.Parse(d)
	if err != nil || sp == nil {
		return nil, err
	}
	return sp.Document(), nil
}

// viewCollation returns the collation an operation on the view db.coll
// runs under: the view's, as a collation document ({locale: "simple"} for
// the simple one). given is the command's collation (nil: none); one
// other than the view's is refused with OptionNotSupportedOnView.
func (s *Server) viewCollation(ctx context.Context, db, coll string, given bsoncore.Document) (bsoncore.Document, error) {
	v, err := s.lookupView(ctx, db, coll)
	if err != nil {
		return nil, err
	}
	var vc bsoncore.Document
	if v != nil {
		vc = v.Collation
	}
	if given != nil {
		g, err := normalCollation(given)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(g, vc) {
			return nil, errs.New(errs.OptionNotSupportedOnView, "Cannot override a view's default collation")
		}
	}
	if vc == nil {
		return simpleCollationDoc, nil
	}
	return vc, nil
}
