package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/timeseries"
)

// The index commands on a time series collection run on its buckets with
// the keys translated (internal/timeseries/index.go): createIndexes and
// dropIndexes rewrite their command for system.buckets.<name>,
// listIndexes shows the buckets' indexes in the user's terms.

// bucketsCommand returns req for the buckets of time series coll: the
// command's target renamed and, for each field, rewrite's value (nil:
// the field as it is).
func bucketsCommand(req *Request, coll string, rewrite func(k string, v bsoncore.Value) (bsoncore.Value, error)) (*Request, error) {
	elems, err := req.Cmd.Elements()
	if err != nil {
		return nil, commandDocErr(err)
	}
	b := bsoncore.NewDocumentBuilder()
	for i, el := range elems {
		if i == 0 {
			b.AppendString(el.Key(), timeseries.BucketsName(coll))
			continue
		}
		v := el.Value()
		if rewrite != nil {
			nv, err := rewrite(el.Key(), v)
			if err != nil {
				return nil, err
			}
			if nv.Type != 0 {
				v = nv
			}
		}
		b.AppendValue(el.Key(), v)
	}
	r := *req
	r.Cmd = b.Build()
	r.trusted = false // and so r.sequence finds none: Cmd is rebuilt
	return &r, nil
}

// timeseriesCreateIndexes runs createIndexes on time series coll.
func (s *Server) timeseriesCreateIndexes(ctx context.Context, req *Request, coll string, o *timeseries.Options) (bsoncore.Document, error) {
	r, err := bucketsCommand(req, coll, func(k string, v bsoncore.Value) (bsoncore.Value, error) {
		if k != "indexes" {
			return bsoncore.Value{}, nil
		}
		arr, ok := v.ArrayOK()
		if !ok {
			return bsoncore.Value{}, nil // the ordinary path reports it
		}
		vals, _ := arr.Values()
		ab := bsoncore.NewArrayBuilder()
		for _, x := range vals {
			d, ok := x.DocumentOK()
			if !ok {
				return bsoncore.Value{}, errs.New(errs.TypeMismatch, "The elements of the 'indexes' array must be objects, but got %s", bsonutil.TypeName(x.Type))
			}
			bd, err := timeseries.BucketIndexSpec(o, d)
			if err != nil {
				return bsoncore.Value{}, err
			}
			ab.AppendDocument(bd)
		}
		return bsoncore.Value{Type: bsoncore.TypeArray, Data: ab.Build()}, nil
	})
	if err != nil {
		return nil, err
	}
	return cmdCreateIndexes(ctx, s, r)
}

// timeseriesDropIndexes runs dropIndexes on time series coll: a key
// pattern is translated, names are the same.
func (s *Server) timeseriesDropIndexes(ctx context.Context, req *Request, coll string, o *timeseries.Options) (bsoncore.Document, error) {
	r, err := bucketsCommand(req, coll, func(k string, v bsoncore.Value) (bsoncore.Value, error) {
		if k != "index" || v.Type != bsoncore.TypeEmbeddedDocument {
			return bsoncore.Value{}, nil
		}
		key, err := timeseries.BucketIndexKey(o, v.Document())
		if err != nil {
			return bsoncore.Value{}, errs.New(errs.IndexNotFound, "can't find index with key: %s", v.Document().String())
		}
		return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: key}, nil
	})
	if err != nil {
		return nil, err
	}
	return cmdDropIndexes(ctx, s, r)
}

// timeseriesIndexSpecs lists the indexes of time series coll in the
// user's terms: the buckets' indexes without the clustered one, keys
// translated back (an index made on the buckets directly is left out, as
// mongod leaves out what it cannot translate).
func (s *Server) timeseriesIndexSpecs(db, coll string, o *timeseries.Options) ([]bsoncore.Document, error) {
	ixs, err := s.eng.ListIndexes(db, timeseries.BucketsName(coll))
	if err != nil {
		return nil, err
	}
	var out []bsoncore.Document
	for _, ix := range ixs {
		if ix.Clustered != nil {
			continue
		}
		d := ix.IndexSpec.Doc()
		key, ok := timeseries.UserIndexKey(o, d.Lookup("key").Document())
		if !ok {
			continue
		}
		elems, _ := d.Elements()
		b := bsoncore.NewDocumentBuilder()
		for _, el := range elems {
			if el.Key() == "key" {
				b.AppendDocument("key", key)
			} else {
				b.AppendValue(el.Key(), el.Value())
			}
		}
		out = append(out, b.Build())
	}
	return out, nil
}
