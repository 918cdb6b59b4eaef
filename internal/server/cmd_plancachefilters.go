package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	reg := func(name string, h handler, act auth.Action) {
		register(command{names: []string{name}, handler: h, authz: requires(collNeeds(act)),
			api: apiNotV1, inTxn: no, retryable: no, snapshotRead: no, writeConcern: no, explain: notExplained, applyOps: no,
			observe: observed(opCommand, onColl)})
	}
	reg("planCacheSetFilter", cmdPlanCacheSetFilter, auth.ActPlanCacheIndexFilter)
	reg("planCacheClearFilters", cmdPlanCacheClearFilters, auth.ActPlanCacheIndexFilter)
	reg("planCacheListFilters", cmdPlanCacheListFilters, auth.ActPlanCacheRead)
}

// shapeArgs are the query, sort and projection that select a query shape
// in the plan cache and index filter commands; indexes is
// planCacheSetFilter's.
type shapeArgs struct {
	query, sort, proj bsoncore.Document
	indexes           []bsoncore.Value
	hasIndexes        bool
}

func parseShapeArgs(req *Request, withIndexes bool) (shapeArgs, error) {
	var a shapeArgs
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "query", "sort", "projection", "collation":
			d, ok := v.DocumentOK()
			if !ok {
				return true, wrongType(req.Name, k, v, "object")
			}
			switch k {
			case "collation":
				if len(d) > 5 {
					return true, errs.New(errs.NotImplemented, "%s.collation is not supported by Lode: its plan cache entries and filters are selected by query, sort and projection only", req.Name)
				}
			case "query":
				a.query = d
			case "sort":
				a.sort = d
			case "projection":
				a.proj = d
			}
			return true, nil
		case "indexes":
			if !withIndexes {
				return false, nil
			}
			arr, ok := v.ArrayOK()
			if !ok {
				return true, wrongType(req.Name, k, v, "array")
			}
			vals, _ := arr.Values()
			for _, iv := range vals {
				if iv.Type != bsoncore.TypeString && iv.Type != bsoncore.TypeEmbeddedDocument {
					return true, errs.New(errs.BadValue, "each item in 'indexes' must be an object or a string")
				}
			}
			a.indexes, a.hasIndexes = vals, true
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return a, err
	}
	if a.query == nil && (a.sort != nil || a.proj != nil) {
		return a, errs.New(errs.BadValue, "sort or projection provided without query")
	}
	return a, nil
}

// cmdPlanCacheSetFilter sets an index filter (internal/engine/plancache_filters.go).
func cmdPlanCacheSetFilter(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	a, err := parseShapeArgs(req, true)
	if err != nil {
		return nil, err
	}
	if a.query == nil {
		return nil, errs.New(errs.BadValue, "required field query missing")
	}
	if !a.hasIndexes {
		return nil, errs.New(errs.BadValue, "required field indexes missing")
	}
	if len(a.indexes) == 0 {
		return nil, errs.New(errs.BadValue, "must specify at least one index in 'indexes'")
	}
	if err := s.refuseView(ctx, req.DB, coll); err != nil {
		return nil, err
	}
	if err := s.eng.SetIndexFilter(req.DB, coll, a.query, a.sort, a.proj, a.indexes); err != nil {
		return nil, err
	}
	return bsoncore.NewDocumentBuilder().Build(), nil
}

// cmdPlanCacheClearFilters removes one index filter or all of them.
func cmdPlanCacheClearFilters(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	return s.clearByShape(ctx, req, coll, s.eng.ClearIndexFilters)
}

// cmdPlanCacheListFilters lists the collection's index filters.
func cmdPlanCacheListFilters(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	if err := onlyGenericArgs(req); err != nil {
		return nil, err
	}
	if err := s.refuseView(ctx, req.DB, coll); err != nil {
		return nil, err
	}
	fs, err := s.eng.ListIndexFilters(req.DB, coll)
	if err != nil {
		return nil, err
	}
	arr := bsoncore.NewArrayBuilder()
	for _, f := range fs {
		arr.AppendDocument(f)
	}
	return bsoncore.NewDocumentBuilder().AppendArray("filters", arr.Build()).Build(), nil
}
