package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(command{names: []string{"dropIndexes", "deleteIndexes"}, handler: cmdDropIndexes, authz: requires(collNeeds(auth.ActDropIndex)),
		api: apiV1, inTxn: no, retryable: no, snapshotRead: no, writeConcern: yes, explain: notExplained, applyOps: yes,
		observe: observed(opCommand, onColl)})
}

// cmdDropIndexes drops indexes by name, by key pattern, by an array of
// names, or all but _id with "*". The reply carries nIndexesWas.
func cmdDropIndexes(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	if v, err := s.lookupView(ctx, req.DB, coll); err != nil {
		return nil, err
	} else if v != nil {
		if o := s.timeseriesOfView(req.DB, v); o != nil {
			return s.timeseriesDropIndexes(ctx, req, coll, o) // timeseries_indexes.go
		}
		return nil, errs.New(errs.CommandNotSupportedOnView, "Cannot drop indexes on view %s.%s", req.DB, coll) // views.go
	}
	var target bsoncore.Value
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "index":
			target = v
		case "collectionUUID":
			return true, s.argCollectionUUID(req.Name, req.DB, coll, v)
		case "isTimeseriesNamespace":
			return true, refuseTimeseriesNS(req.Name, v)
		default:
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if target.Type == 0 {
		return nil, errs.New(errs.Location40414, "BSON field 'dropIndexes.index' is missing but a required field")
	}
	ixs, err := s.eng.ListIndexes(req.DB, coll)
	if err != nil {
		return nil, errs.New(errs.NamespaceNotFound, "ns not found %s.%s", req.DB, coll)
	}
	var names []string
	all := false
	switch target.Type {
	case bsoncore.TypeString:
		name := target.StringValue()
		if name == "*" {
			all = true
			for _, ix := range ixs {
				if ix.Name != "_id_" && ix.Clustered == nil {
					names = append(names, ix.Name)
				}
			}
		} else {
			names = []string{name}
		}
	case bsoncore.TypeArray:
		vals, _ := target.Array().Values()
		for _, v := range vals {
			n, ok := v.StringValueOK()
			if !ok {
				return nil, errs.New(errs.TypeMismatch, "dropIndexes %s.%s (%s) failed to drop multiple indexes: index names must be strings", req.DB, coll, target.String())
			}
			names = append(names, n)
		}
	case bsoncore.TypeEmbeddedDocument:
		key := target.Document()
		var found []engine.IndexInfo
		for _, ix := range ixs {
			if sameKeyPattern(ix.Key, key) {
				found = append(found, ix)
			}
		}
		switch len(found) {
		case 0:
			return nil, errs.New(errs.IndexNotFound, "can't find index with key: %s", key.String())
		case 1:
			names = []string{found[0].Name}
		default:
			return nil, errs.New(errs.AmbiguousIndexKeyPattern, "%d indexes found for key: %s, identify by name instead. Conflicting indexes: %s, %s", len(found), key.String(), found[0].Name, found[1].Name)
		}
	default:
		return nil, wrongType(req.Name, "index", target, "[string, object, array]")
	}
	// Check every name before dropping any, as MongoDB does.
	for _, n := range names {
		exists := false
		for _, ix := range ixs {
			exists = exists || ix.Name == n
			if ix.Name == n && ix.Clustered != nil {
				return nil, errs.New(errs.Location5979800, "It is illegal to drop the clusteredIndex")
			}
		}
		if n == "_id_" {
			return nil, errs.New(errs.InvalidOptions, "cannot drop _id index")
		}
		if !exists {
			return nil, errs.New(errs.IndexNotFound, "index not found with name [%s]", n)
		}
	}
	for _, n := range names {
		if err := s.eng.DropIndex(req.DB, coll, n); err != nil {
			return nil, err
		}
	}
	b := bsoncore.NewDocumentBuilder().AppendInt32("nIndexesWas", int32(countIndexes(ixs)))
	if all {
		b.AppendString("msg", "non-_id indexes dropped for collection")
	}
	return b.Build(), nil
}

// sameKeyPattern compares two key patterns field by field.
func sameKeyPattern(a, b bsoncore.Document) bool {
	ea, _ := a.Elements()
	eb, _ := b.Elements()
	if len(ea) != len(eb) {
		return false
	}
	for i := range ea {
		if ea[i].Key() != eb[i].Key() {
			return false
		}
		va, vb := ea[i].Value(), eb[i].Value()
		if bsonIsNumber(va.Type) && bsonIsNumber(vb.Type) {
			x, _ := asInt64(va)
			y, _ := asInt64(vb)
			if (x < 0) != (y < 0) {
				return false
			}
			continue
		}
		if va.Type != vb.Type || string(va.Data) != string(vb.Data) {
			return false
		}
	}
	return true
}
