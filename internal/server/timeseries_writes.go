package server

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/timeseries"
)

// Updates and deletes of a time series collection, as far as Lode takes
// them: statements whose filter reads only the metaField (multi: true),
// and updates whose operators change only the metaField, run on the
// buckets with the metaField renamed meta, whole buckets at a time, as
// mongod 5.1+ runs them. Their n and nModified count measurements. A
// delete by any other filter, or of one measurement, tests the
// measurements one by one and rewrites the buckets
// (Engine.DeleteTimeseries), as mongod 7.0. Other updates are refused
// with NotImplemented.

// metaFilter translates a filter on the metaField to the buckets' terms;
// ok is false when it reads anything else.
func metaFilter(o *timeseries.Options, d bsoncore.Document) (bsoncore.Document, bool) {
	if o.MetaField == "" {
		return d, len(d) <= 5
	}
	elems, err := d.Elements()
	if err != nil {
		return nil, false
	}
	b := bsoncore.NewDocumentBuilder()
	for _, el := range elems {
		k, v := el.Key(), el.Value()
		switch {
		case k == "$and" || k == "$or" || k == "$nor":
			arr, ok := v.ArrayOK()
			if !ok {
				return nil, false
			}
			vals, _ := arr.Values()
			ab := bsoncore.NewArrayBuilder()
			for _, x := range vals {
				sd, ok := x.DocumentOK()
				if !ok {
					return nil, false
				}
				td, ok := metaFilter(o, sd)
				if !ok {
					return nil, false
				}
				ab.AppendDocument(td)
			}
			b.AppendArray(k, ab.Build())
		case k == "$comment":
			b.AppendValue(k, v)
		case k == o.MetaField || strings.HasPrefix(k, o.MetaField+"."):
			b.AppendValue("meta"+k[len(o.MetaField):], v)
		default:
			return nil, false
		}
	}
	return b.Build(), true
}

// metaUpdate translates an update document whose operators change only
// the metaField; ok is false otherwise.
func metaUpdate(o *timeseries.Options, u bsoncore.Value) (bsoncore.Value, bool) {
	d, isDoc := u.DocumentOK()
	if !isDoc || o.MetaField == "" {
		return u, false
	}
	elems, err := d.Elements()
	if err != nil || len(elems) == 0 {
		return u, false
	}
	b := bsoncore.NewDocumentBuilder()
	rename := func(p string) (string, bool) {
		if p == o.MetaField || strings.HasPrefix(p, o.MetaField+".") {
			return "meta" + p[len(o.MetaField):], true
		}
		return "", false
	}
	for _, el := range elems {
		op := el.Key()
		if !strings.HasPrefix(op, "$") {
			return u, false // a replacement
		}
		args, ok := el.Value().DocumentOK()
		if !ok {
			return u, false
		}
		fields, _ := args.Elements()
		ob := bsoncore.NewDocumentBuilder()
		for _, f := range fields {
			p, ok := rename(f.Key())
			if !ok {
				return u, false
			}
			v := f.Value()
			if op == "$rename" {
				to, isStr := v.StringValueOK()
				if !isStr {
					return u, false
				}
				nt, ok := rename(to)
				if !ok {
					return u, false
				}
				v = bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, nt)}
			}
			ob.AppendValue(p, v)
		}
		b.AppendDocument(op, ob.Build())
	}
	return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: b.Build()}, true
}

// bucketCounts returns the _ids and measurement counts of the buckets of
// db.buckets matching filter.
func (s *Server) bucketCounts(ctx context.Context, db, buckets string, o *timeseries.Options, filter bsoncore.Document) ([]bsoncore.Value, []int, error) {
	proj := bsoncore.NewDocumentBuilder().AppendInt32("data."+o.TimeField, 1).Build()
	it, err := s.eng.Find(ctx, db, buckets, engine.FindSpec{Filter: filter, Projection: proj})
	if err != nil {
		return nil, nil, err
	}
	defer it.Close()
	var ids []bsoncore.Value
	var counts []int
	for {
		d, err := it.Next()
		if err != nil {
			return nil, nil, err
		}
		if d == nil {
			break
		}
		id := d.Lookup("_id")
		ids = append(ids, bsoncore.Value{Type: id.Type, Data: append([]byte(nil), id.Data...)})
		n := 0
		if col, ok := d.Lookup("data", o.TimeField).DocumentOK(); ok {
			els, _ := col.Elements()
			n = len(els)
		}
		counts = append(counts, n)
	}
	return ids, counts, nil
}

func tsWriteRefused(what string) *errs.Error {
	return errs.New(errs.NotImplemented, "%s on a time-series collection is not supported by Lode: only multi statements whose filter (and update) read (and change) the metaField alone are", what)
}

// timeseriesDelete runs a delete batch on time series coll.
func (s *Server) timeseriesDelete(ctx context.Context, db, coll string, o *timeseries.Options, specs []engine.DeleteSpec, opts engine.WriteOptions) (engine.DeleteResult, error) {
	var res engine.DeleteResult
	if engine.TxnFrom(ctx) != nil {
		return res, errs.New(errs.OperationNotSupportedInTransaction, "Cannot delete from a time-series collection in a multi-document transaction: %s.%s", db, coll)
	}
	ctx = engine.WithStmtRecorder(ctx, nil) // statements that touch whole buckets, not retryable
	buckets := timeseries.BucketsName(coll)
	for i, sp := range specs {
		filter, ok := metaFilter(o, sp.Filter)
		var werr *errs.Error
		if !ok || sp.Limit == 1 {
			// A filter on measurements (or a single delete): the
			// buckets' measurements are tested one by one.
			n, err := s.eng.DeleteTimeseries(ctx, db, coll, sp.Filter, sp.Limit == 1, opts)
			res.N += n
			if err != nil {
				if werr = errs.As(err); werr == nil {
					return res, err
				}
			}
		} else {
			ids, counts, err := s.bucketCounts(ctx, db, buckets, o, filter)
			if err != nil {
				return res, err
			}
			for j, id := range ids {
				f := bsoncore.NewDocumentBuilder().AppendValue("_id", id).Build()
				r, err := s.eng.Delete(ctx, db, buckets, []engine.DeleteSpec{{Filter: f, Limit: 1}}, engine.WriteOptions{Ordered: true, Journal: opts.Journal})
				if err != nil {
					return res, err
				}
				if len(r.WriteErrors) > 0 {
					werr = r.WriteErrors[0].Err
					break
				}
				res.N += r.N * counts[j]
			}
		}
		if werr != nil {
			res.WriteErrors = append(res.WriteErrors, engine.WriteError{Index: i, Err: werr})
			if opts.Ordered {
				break
			}
		}
	}
	return res, nil
}

// timeseriesUpdate runs an update batch on time series coll.
func (s *Server) timeseriesUpdate(ctx context.Context, db, coll string, o *timeseries.Options, specs []engine.UpdateSpec, opts engine.WriteOptions) (engine.UpdateResult, error) {
	var res engine.UpdateResult
	if engine.TxnFrom(ctx) != nil {
		return res, errs.New(errs.OperationNotSupportedInTransaction, "Cannot update a time-series collection in a multi-document transaction: %s.%s", db, coll)
	}
	ctx = engine.WithStmtRecorder(ctx, nil)
	buckets := timeseries.BucketsName(coll)
	for i, sp := range specs {
		filter, okF := metaFilter(o, sp.Filter)
		update, okU := metaUpdate(o, sp.Update)
		var werr *errs.Error
		switch {
		case !sp.Multi:
			werr = tsWriteRefused("an update without multi: true")
		case sp.Upsert:
			werr = tsWriteRefused("an upsert")
		case len(sp.ArrayFilters) > 0:
			werr = tsWriteRefused("an update with arrayFilters")
		case !okF:
			werr = tsWriteRefused("an update whose filter is not on the metaField")
		case !okU:
			werr = tsWriteRefused("an update that changes more than the metaField")
		}
		if werr == nil {
			ids, counts, err := s.bucketCounts(ctx, db, buckets, o, filter)
			if err != nil {
				return res, err
			}
			for j, id := range ids {
				f := bsoncore.NewDocumentBuilder().AppendValue("_id", id).Build()
				r, err := s.eng.Update(ctx, db, buckets, []engine.UpdateSpec{{Filter: f, Update: update, Let: sp.Let, Collation: sp.Collation}},
					engine.WriteOptions{Ordered: true, Journal: opts.Journal})
				if err != nil {
					return res, err
				}
				if len(r.WriteErrors) > 0 {
					werr = r.WriteErrors[0].Err
					break
				}
				res.N += r.N * counts[j]
				res.NModified += r.NModified * counts[j]
			}
		}
		if werr != nil {
			res.WriteErrors = append(res.WriteErrors, engine.WriteError{Index: i, Err: werr})
			if opts.Ordered {
				break
			}
		}
	}
	return res, nil
}
