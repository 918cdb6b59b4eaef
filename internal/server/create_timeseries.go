package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/timeseries"
)

// Time series collections are made as mongod 7.0 makes them: the
// clustered collection system.buckets.<name>, whose options hold the
// validated time series options, and the view <name> on it whose
// pipeline is one $_internalUnpackBucket stage. The engine inserts
// measurements into buckets (engine/timeseries.go); listCollections,
// drop and the index commands turn the pair back into one time series
// collection in the user's terms.

// timeseriesCreateOptions are the create options mongod 7.0 allows with
// timeseries (timeseries::kAllowedCollectionCreationOptions), besides
// generic arguments.
var timeseriesCreateOptions = map[string]bool{
	"timeseries": true, "expireAfterSeconds": true, "storageEngine": true,
	"indexOptionDefaults": true, "collation": true, "temp": true,
}

// checkTimeseriesCreate refuses the options mongod does not combine with
// timeseries (capped: false and an empty pipeline pass).
func checkTimeseriesCreate(req *Request, coll string) error {
	return eachCmdField(req, func(k string, v bsoncore.Value) error {
		if genericArgs[k] || timeseriesCreateOptions[k] {
			return nil
		}
		if k == "capped" && v.Type == bsoncore.TypeBoolean && !v.Boolean() {
			return nil
		}
		if k == "pipeline" {
			if arr, ok := v.ArrayOK(); ok {
				if vals, _ := arr.Values(); len(vals) == 0 {
					return nil
				}
			}
		}
		return errs.New(errs.InvalidOptions, "%s.%s: 'timeseries' is not allowed with '%s'", req.DB, coll, k)
	})
}

// bucketsValidator is the validator mongod 7.0 gives a buckets
// collection (timeseries::generateTimeseriesValidator): the shape of a
// bucket with the time field's control minimum and maximum as dates.
func bucketsValidator(timeField string) bsoncore.Document {
	str := func(s ...string) bsoncore.Array {
		ab := bsoncore.NewArrayBuilder()
		for _, x := range s {
			ab.AppendString(x)
		}
		return ab.Build()
	}
	typ := func(t string) bsoncore.Document {
		return bsoncore.NewDocumentBuilder().AppendString("bsonType", t).Build()
	}
	timeBound := bsoncore.NewDocumentBuilder().
		AppendString("bsonType", "object").
		AppendArray("required", str(timeField)).
		AppendDocument("properties", bsoncore.NewDocumentBuilder().AppendDocument(timeField, typ("date")).Build()).Build()
	control := bsoncore.NewDocumentBuilder().
		AppendString("bsonType", "object").
		AppendArray("required", str("version", "min", "max")).
		AppendDocument("properties", bsoncore.NewDocumentBuilder().
			AppendDocument("version", typ("number")).
			AppendDocument("min", timeBound).
			AppendDocument("max", timeBound).
			AppendDocument("closed", typ("bool")).
			AppendDocument("count", bsoncore.NewDocumentBuilder().AppendString("bsonType", "number").AppendInt32("minimum", 1).Build()).
			Build()).
		AppendBoolean("additionalProperties", false).Build()
	schema := bsoncore.NewDocumentBuilder().
		AppendString("bsonType", "object").
		AppendArray("required", str("_id", "control", "data")).
		AppendDocument("properties", bsoncore.NewDocumentBuilder().
			AppendDocument("_id", typ("objectId")).
			AppendDocument("control", control).
			AppendDocument("data", typ("object")).
			AppendDocument("meta", bsoncore.NewDocumentBuilder().Build()).
			Build()).
		AppendBoolean("additionalProperties", false).Build()
	return bsoncore.NewDocumentBuilder().AppendDocument("$jsonSchema", schema).Build()
}

// bucketsOptions are the stored options of a buckets collection, in the
// order mongod lists them.
func bucketsOptions(o *timeseries.Options, expiry *int64) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().
		AppendDocument("validator", bucketsValidator(o.TimeField)).
		AppendBoolean("clusteredIndex", true)
	if expiry != nil {
		b.AppendInt64("expireAfterSeconds", *expiry)
	}
	return b.AppendDocument("timeseries", o.Document()).Build()
}

// createTimeseries creates the time series collection db.coll.
func (s *Server) createTimeseries(ctx context.Context, req *Request, coll string, spec bsoncore.Value, expiry *int64, collation bsoncore.Document) error {
	d, ok := spec.DocumentOK()
	if !ok {
		return wrongType(req.Name, "timeseries", spec, "object")
	}
	if err := checkTimeseriesCreate(req, coll); err != nil {
		return err
	}
	o, err := timeseries.Parse(req.Name, req.DB+"."+coll, d)
	if err != nil {
		return err
	}
	if engine.TxnFrom(ctx) != nil {
		return errs.New(errs.OperationNotSupportedInTransaction, "Cannot create a time-series collection in a multi-document transaction.")
	}
	if collation != nil {
		return errs.New(errs.NotImplemented, "time-series collections with a default collation are not supported by Lode: bucket minimums and maximums are kept in the simple collation")
	}
	if _, isBuckets := timeseries.IsBucketsName(coll); isBuckets {
		return errs.New(errs.InvalidNamespace, "Invalid namespace: %s.%s: a time-series collection may not be created in the buckets namespace", req.DB, coll)
	}
	if err := engine.ValidateNamespace(req.DB, timeseries.BucketsName(coll)); err != nil {
		return err
	}
	s.viewMu.Lock()
	defer s.viewMu.Unlock()
	opts := bucketsOptions(o, expiry)
	bucketsName := timeseries.BucketsName(coll)
	if v, err := s.lookupView(ctx, req.DB, coll); err != nil {
		return err
	} else if v != nil {
		// Creating an existing time series collection with the same
		// options succeeds, as mongod 7.0.
		if cur := s.eng.TimeseriesOptions(req.DB, bucketsName); cur != nil && v.ViewOn == bucketsName {
			if curOpts := s.eng.CollectionOptions(req.DB, bucketsName); curOpts != nil && sameOptions(curOpts, opts) {
				return nil
			}
		}
		return errs.New(errs.NamespaceExists, "namespace %s.%s already exists, but with different options", req.DB, coll)
	}
	if err := s.eng.CollectionExistsError(req.DB, coll); err != nil {
		return err
	}
	if s.eng.CollectionOptions(req.DB, bucketsName) != nil {
		return errs.New(errs.NamespaceExists, "namespace %s.%s already exists", req.DB, bucketsName)
	}
	if err := s.eng.CreateCollectionCtx(ctx, req.DB, bucketsName, engine.CreateOptions{Raw: opts}); err != nil {
		return err
	}
	if o.HasMeta() {
		// mongod 6.3+ gives a new time series collection with a
		// metaField the index {<meta>: 1, <time>: 1}.
		key := bsoncore.NewDocumentBuilder().AppendInt32(o.MetaField, 1).AppendInt32(o.TimeField, 1).Build()
		bkey, err := timeseries.BucketIndexKey(o, key)
		if err == nil {
			_, err = s.eng.CreateIndexCtx(ctx, req.DB, bucketsName, engine.IndexSpec{Name: timeseries.IndexName(key), Key: bkey})
		}
		if err != nil {
			_ = s.eng.DropCollection(req.DB, bucketsName)
			return err
		}
	}
	if err := s.insertTimeseriesView(ctx, req.DB, coll, o); err != nil {
		_ = s.eng.DropCollection(req.DB, bucketsName)
		return err
	}
	return nil
}

// sameOptions reports whether two option documents have the same fields
// and values, in any order.
func sameOptions(a, b bsoncore.Document) bool {
	ae, _ := a.Elements()
	be, _ := b.Elements()
	if len(ae) != len(be) {
		return false
	}
	for _, x := range ae {
		y, err := b.LookupErr(x.Key())
		if err != nil || !x.Value().Equal(y) {
			return false
		}
	}
	return true
}

// insertTimeseriesView writes the view of time series collection db.coll
// into system.views, as mongod 7.0 defines it. The caller holds viewMu.
func (s *Server) insertTimeseriesView(ctx context.Context, db, coll string, o *timeseries.Options) error {
	if err := s.eng.CreateCollectionCtx(ctx, db, systemViews, engine.CreateOptions{}); err != nil && !errs.Is(err, errs.NamespaceExists) {
		return err
	}
	doc := viewDoc(db, coll, timeseries.BucketsName(coll), []bsoncore.Document{o.UnpackSpec()}, nil)
	res, err := s.eng.Insert(ctx, db, systemViews, []bsoncore.Document{doc}, engine.WriteOptions{Ordered: true})
	if err != nil {
		return err
	}
	if len(res.WriteErrors) > 0 {
		return res.WriteErrors[0].Err
	}
	return nil
}

// timeseriesOf returns the time series options of db.coll when it is a
// time series collection: a view on system.buckets.<coll>, which holds
// time series options.
func (s *Server) timeseriesOf(ctx context.Context, db, coll string) (*timeseries.Options, error) {
	v, err := s.lookupView(ctx, db, coll)
	if err != nil || v == nil {
		return nil, err
	}
	return s.timeseriesOfView(db, v), nil
}

// timeseriesOfView is timeseriesOf for a view already read.
func (s *Server) timeseriesOfView(db string, v *engine.View) *timeseries.Options {
	if v.ViewOn != timeseries.BucketsName(v.Name) {
		return nil
	}
	return s.eng.TimeseriesOptions(db, v.ViewOn)
}

// timeseriesListEntry is listCollections' entry of time series
// collection name: type "timeseries", its options as created (the time
// series options and expireAfterSeconds) and info {readOnly: false}.
func timeseriesListEntry(name string, o *timeseries.Options, bucketsOpts bsoncore.Document, nameOnly bool) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().
		AppendString("name", name).
		AppendString("type", "timeseries")
	if nameOnly {
		return b.Build()
	}
	ob := bsoncore.NewDocumentBuilder()
	if v, err := bucketsOpts.LookupErr("expireAfterSeconds"); err == nil {
		ob.AppendValue("expireAfterSeconds", v)
	}
	ob.AppendDocument("timeseries", o.Document())
	return b.AppendDocument("options", ob.Build()).
		AppendDocument("info", bsoncore.NewDocumentBuilder().AppendBoolean("readOnly", false).Build()).
		Build()
}

// collModTS is collMod's timeseries argument.
type collModTS struct {
	granularity             string
	maxSpan, rounding       int64
	hasMaxSpan, hasRounding bool
}

// parseCollModTimeseries reads collMod's timeseries: {granularity} or
// {bucketMaxSpanSeconds, bucketRoundingSeconds}.
func parseCollModTimeseries(req *Request, v bsoncore.Value) (collModTS, error) {
	var m collModTS
	d, ok := v.DocumentOK()
	if !ok {
		return m, wrongType(req.Name, "timeseries", v, "object")
	}
	elems, _ := d.Elements()
	for _, el := range elems {
		var err error
		switch el.Key() {
		case "granularity":
			m.granularity, err = argString(req.Name, "timeseries.granularity", el.Value())
		case "bucketMaxSpanSeconds":
			m.maxSpan, err = argInt64(req.Name, "timeseries.bucketMaxSpanSeconds", el.Value())
			m.hasMaxSpan = true
		case "bucketRoundingSeconds":
			m.rounding, err = argInt64(req.Name, "timeseries.bucketRoundingSeconds", el.Value())
			m.hasRounding = true
		default:
			err = errs.New(errs.Location40415, "BSON field '%s.timeseries.%s' is an unknown field.", req.Name, el.Key())
		}
		if err != nil {
			return m, err
		}
	}
	if m.granularity != "" && (m.hasMaxSpan || m.hasRounding) {
		return m, errs.New(errs.InvalidOptions, "Cannot set 'granularity' with 'bucketMaxSpanSeconds' or 'bucketRoundingSeconds'")
	}
	return m, nil
}

// collModTimeseries applies collMod to time series collection db.coll:
// its granularity (coarser only) and expireAfterSeconds. The options a
// time series collection cannot take are refused as mongod does.
func (s *Server) collModTimeseries(ctx context.Context, req *Request, coll string, o *timeseries.Options, mod collModTS, expiry *int64, hasExpiry bool) error {
	for _, k := range []string{"viewOn", "pipeline", "validator", "validationLevel", "validationAction", "changeStreamPreAndPostImages"} {
		if _, err := req.Cmd.LookupErr(k); err == nil {
			return errs.New(errs.InvalidOptions, "option not supported on a time-series collection: %s", k)
		}
	}
	if _, err := req.Cmd.LookupErr("index"); err == nil {
		return errs.New(errs.NotImplemented, "collMod.index on a time-series collection is not supported by Lode")
	}
	buckets := timeseries.BucketsName(coll)
	if mod.granularity != "" || mod.hasMaxSpan || mod.hasRounding {
		var (
			n       *timeseries.Options
			changed bool
			err     error
		)
		if mod.granularity != "" {
			n, changed, err = o.WithGranularity(mod.granularity)
		} else {
			n, changed, err = o.WithBucketing(mod.maxSpan, mod.rounding, mod.hasMaxSpan, mod.hasRounding)
		}
		if err != nil {
			return err
		}
		if changed {
			s.viewMu.Lock()
			err := s.eng.SetTimeseriesOptions(req.DB, buckets, n)
			if err == nil {
				err = s.replaceTimeseriesView(ctx, req.DB, coll, n)
			}
			s.viewMu.Unlock()
			if err != nil {
				return err
			}
		}
	}
	if hasExpiry {
		if err := s.eng.SetClusteredExpiry(req.DB, buckets, expiry); err != nil {
			return err
		}
	}
	return nil
}

// replaceTimeseriesView rewrites the view of time series collection
// db.coll after its options changed (its bucketMaxSpanSeconds). The
// caller holds viewMu.
func (s *Server) replaceTimeseriesView(ctx context.Context, db, coll string, o *timeseries.Options) error {
	filter := bsoncore.NewDocumentBuilder().AppendString("_id", db+"."+coll).Build()
	doc := viewDoc(db, coll, timeseries.BucketsName(coll), []bsoncore.Document{o.UnpackSpec()}, nil)
	res, err := s.eng.Update(ctx, db, systemViews, []engine.UpdateSpec{{Filter: filter,
		Update: bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: doc}}}, engine.WriteOptions{Ordered: true})
	if err != nil {
		return err
	}
	if len(res.WriteErrors) > 0 {
		return res.WriteErrors[0].Err
	}
	return nil
}

// timeseriesStats is collStats' timeseries section of the time series
// collection whose buckets are db.buckets.
func (s *Server) timeseriesStats(db, buckets string) (bsoncore.Document, error) {
	st, err := s.eng.CollectionStats(db, buckets)
	if err != nil {
		return nil, err
	}
	avg := int64(0)
	if st.Count > 0 {
		avg = st.Size / st.Count
	}
	b := bsoncore.NewDocumentBuilder().
		AppendString("bucketsNs", ns(db, buckets)).
		AppendInt64("bucketCount", st.Count).
		AppendInt64("avgBucketSize", avg)
	var zero timeseries.Stats
	figures := s.eng.TimeseriesStats(db, buckets)
	if figures == nil {
		figures = &zero
	}
	figures.Append(b)
	return b.Build(), nil
}

// bucketSpan returns the ParseContext.BucketSpan of a read under ctx:
// the engine's widest bucket of a buckets collection
// (engine.BucketSpan), so that a time range query on a time series
// collection reads the buckets its range can reach rather than those of
// bucketMaxSpanSeconds before it.
func (s *Server) bucketSpan(ctx context.Context) func(db, coll, timeField string) (int64, bool) {
	return func(db, coll, timeField string) (int64, bool) {
		return s.eng.BucketSpan(ctx, db, coll, timeField)
	}
}
