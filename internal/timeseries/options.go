// Package timeseries holds what Lode knows of time series collections
// apart from the engine: their options as mongod 7.0 parses, validates
// and stores them, and the bucket catalog that routes measurements into
// buckets of mongod's version-1 shape (catalog.go, bucket.go). The
// engine keeps one Catalog per buckets collection and calls it under the
// collection's writer lock; the server turns create, listCollections and
// the index commands into their bucket forms with the helpers here.
package timeseries

import (
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// BucketsPrefix is the prefix of a time series collection's buckets
// collection: db.system.buckets.<name> holds db.<name>'s buckets.
const BucketsPrefix = "system.buckets."

// BucketsName returns the buckets collection of time series coll.
func BucketsName(coll string) string { return BucketsPrefix + coll }

// IsBucketsName reports whether coll names a buckets collection, and the
// time series collection it belongs to.
func IsBucketsName(coll string) (string, bool) {
	if strings.HasPrefix(coll, BucketsPrefix) && len(coll) > len(BucketsPrefix) {
		return coll[len(BucketsPrefix):], true
	}
	return "", false
}

// Granularities and their bucketing parameters (mongod 7.0's
// getMaxSpanSecondsFromGranularity and getBucketRoundingSecondsFromGranularity).
var granularities = []struct {
	name              string
	maxSpan, rounding int64
}{
	{"seconds", 60 * 60, 60},
	{"minutes", 60 * 60 * 24, 60 * 60},
	{"hours", 60 * 60 * 24 * 30, 60 * 60 * 24},
}

func granularityParams(g string) (maxSpan, rounding int64, ok bool) {
	for _, x := range granularities {
		if x.name == g {
			return x.maxSpan, x.rounding, true
		}
	}
	return 0, 0, false
}

// granularityRank orders the granularities for collMod's transitions.
func granularityRank(g string) int {
	for i, x := range granularities {
		if x.name == g {
			return i
		}
	}
	return -1
}

// Options are a time series collection's options as stored: after
// validation, either a granularity (with its bucketMaxSpanSeconds) or
// custom bucketMaxSpanSeconds and bucketRoundingSeconds (equal). Rounding
// always holds the effective rounding.
type Options struct {
	TimeField   string
	MetaField   string // "" when none
	Granularity string // "" with custom bucketing parameters
	MaxSpan     int64  // bucketMaxSpanSeconds
	Rounding    int64  // bucketRoundingSeconds (stored only without granularity)
}

// HasMeta reports whether the collection has a metaField.
func (o *Options) HasMeta() bool { return o.MetaField != "" }

// Document returns the options as mongod 7.0 stores and lists them:
// {timeField, metaField?, granularity, bucketMaxSpanSeconds} or
// {timeField, metaField?, bucketRoundingSeconds, bucketMaxSpanSeconds}.
func (o *Options) Document() bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().AppendString("timeField", o.TimeField)
	if o.MetaField != "" {
		b.AppendString("metaField", o.MetaField)
	}
	if o.Granularity != "" {
		b.AppendString("granularity", o.Granularity)
	} else {
		b.AppendInt32("bucketRoundingSeconds", int32(o.Rounding))
	}
	b.AppendInt32("bucketMaxSpanSeconds", int32(o.MaxSpan))
	return b.Build()
}

// UnpackSpec is the $_internalUnpackBucket stage of the time series view
// as mongod 7.0 defines it (timeseries::generateViewPipeline).
func (o *Options) UnpackSpec() bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().AppendString("timeField", o.TimeField)
	if o.MetaField != "" {
		b.AppendString("metaField", o.MetaField)
	}
	b.AppendInt32("bucketMaxSpanSeconds", int32(o.MaxSpan))
	return bsoncore.NewDocumentBuilder().AppendDocument("$_internalUnpackBucket", b.Build()).Build()
}

// RoundDown rounds a measurement time (ms since the epoch) down to its
// bucket's start, as mongod's roundTimestampToGranularity: whole seconds,
// then a multiple of the rounding.
func (o *Options) RoundDown(ms int64) int64 {
	// Both divisions truncate, as mongod's (a time before the epoch
	// rounds towards zero).
	secs := ms / 1000
	r := o.Rounding
	if r <= 0 {
		r = 60
	}
	return (secs - secs%r) * 1000
}

// Parse reads create's timeseries option as mongod 7.0 does (the IDL's
// TimeseriesOptions, then validateAndSetBucketingParameters and create's
// field checks). cmd names the command for messages; ns is the
// namespace being created.
func Parse(cmd, ns string, d bsoncore.Document) (*Options, error) {
	elems, err := d.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid timeseries option: %v", err)
	}
	var (
		o                    Options
		hasTime              bool
		maxSpan, rounding    int64
		hasMaxSpan, hasRound bool
	)
	path := cmd + ".timeseries."
	for _, el := range elems {
		k, v := el.Key(), el.Value()
		switch k {
		case "timeField":
			s, ok := v.StringValueOK()
			if !ok {
				return nil, wrongType(path+k, v, "string")
			}
			o.TimeField, hasTime = s, true
		case "metaField":
			s, ok := v.StringValueOK()
			if !ok {
				return nil, wrongType(path+k, v, "string")
			}
			o.MetaField = s
			if s == "" {
				// An empty metaField is a field name mongod accepts; Lode
				// needs a name to tell it from none.
				return nil, errs.New(errs.NotImplemented, "a time series metaField of \"\" is not supported by Lode")
			}
		case "granularity":
			s, ok := v.StringValueOK()
			if !ok {
				return nil, wrongType(path+k, v, "string")
			}
			if _, _, ok := granularityParams(s); !ok {
				return nil, errs.New(errs.BadValue, "Enumeration value '%s' for field '%s' is not a valid value.", s, path+k)
			}
			o.Granularity = s
		case "bucketMaxSpanSeconds", "bucketRoundingSeconds":
			n, err := safeInt(path+k, v)
			if err != nil {
				return nil, err
			}
			if n < 1 {
				return nil, errs.New(errs.Location51024, "BSON field '%s' value must be >= 1, actual value '%d'", k, n)
			}
			if k == "bucketMaxSpanSeconds" {
				maxSpan, hasMaxSpan = n, true
			} else {
				rounding, hasRound = n, true
			}
		default:
			return nil, errs.New(errs.Location40415, "BSON field '%s' is an unknown field.", path+k)
		}
	}
	if !hasTime {
		return nil, errs.New(errs.Location40414, "BSON field '%s' is missing but a required field", path+"timeField")
	}
	topLevel := func(f string) error {
		return errs.New(errs.InvalidOptions, "%s: '%s' must be a top-level field and may not contain a '.'", ns, f)
	}
	if strings.Contains(o.TimeField, ".") {
		return nil, topLevel("timeField")
	}
	if o.MetaField != "" {
		if o.MetaField == "_id" {
			return nil, errs.New(errs.InvalidOptions, "'metaField' cannot be \"_id\"")
		}
		if o.MetaField == o.TimeField {
			return nil, errs.New(errs.InvalidOptions, "'metaField' cannot be the same as 'timeField'")
		}
		if strings.Contains(o.MetaField, ".") {
			return nil, topLevel("metaField")
		}
	}
	if err := o.setBucketing(maxSpan, hasMaxSpan, rounding, hasRound); err != nil {
		return nil, err
	}
	return &o, nil
}

// setBucketing validates and completes the bucketing parameters as
// mongod 7.0's validateAndSetBucketingParameters.
func (o *Options) setBucketing(maxSpan int64, hasMaxSpan bool, rounding int64, hasRound bool) error {
	if o.Granularity != "" {
		gSpan, gRound, _ := granularityParams(o.Granularity)
		if hasMaxSpan && maxSpan != gSpan {
			return errs.New(errs.InvalidOptions, "Timeseries 'bucketMaxSpanSeconds' is not configurable to a value other than the default of %d for the provided granularity", gSpan)
		}
		if hasRound && rounding != gRound {
			return errs.New(errs.InvalidOptions, "Timeseries 'bucketRoundingSeconds' is not configurable to a value other than the default of %d for the provided granularity", gRound)
		}
		o.MaxSpan, o.Rounding = gSpan, gRound
		return nil
	}
	if hasMaxSpan != hasRound {
		return errs.New(errs.InvalidOptions, "Timeseries 'bucketMaxSpanSeconds' and 'bucketRoundingSeconds' need to be set alongside each other")
	}
	if rounding != maxSpan {
		return errs.New(errs.InvalidOptions, "Timeseries 'bucketRoundingSeconds' needs to be equal to 'bucketMaxSpanSeconds'")
	}
	if !hasMaxSpan {
		o.Granularity = "seconds"
		o.MaxSpan, o.Rounding, _ = granularityParams("seconds")
		return nil
	}
	o.MaxSpan, o.Rounding = maxSpan, rounding
	return nil
}

// FromStored reads options stored by Document (a buckets collection's
// options.timeseries). It returns nil for a document it cannot read.
func FromStored(d bsoncore.Document) *Options {
	var o Options
	var ok bool
	if o.TimeField, ok = d.Lookup("timeField").StringValueOK(); !ok {
		return nil
	}
	o.MetaField, _ = d.Lookup("metaField").StringValueOK()
	o.Granularity, _ = d.Lookup("granularity").StringValueOK()
	if n, ok := d.Lookup("bucketMaxSpanSeconds").AsInt64OK(); ok {
		o.MaxSpan = n
	}
	if n, ok := d.Lookup("bucketRoundingSeconds").AsInt64OK(); ok {
		o.Rounding = n
	}
	if o.Granularity != "" {
		span, round, ok := granularityParams(o.Granularity)
		if !ok {
			return nil
		}
		o.Rounding = round
		if o.MaxSpan == 0 {
			o.MaxSpan = span
		}
	}
	if o.MaxSpan <= 0 {
		return nil
	}
	if o.Rounding <= 0 {
		o.Rounding = o.MaxSpan
	}
	return &o
}

// WithGranularity returns the options after collMod's
// timeseries.granularity, as mongod 7.0's
// applyTimeseriesOptionsModifications: only towards coarser
// granularities; changed is false when nothing changes.
func (o *Options) WithGranularity(g string) (n *Options, changed bool, err error) {
	if _, _, ok := granularityParams(g); !ok {
		return nil, false, errs.New(errs.BadValue, "Enumeration value '%s' for field 'collMod.timeseries.granularity' is not a valid value.", g)
	}
	if o.Granularity == "" {
		// Custom bucketing parameters: 7.0 allows a granularity whose
		// parameters are not below them.
		span, round, _ := granularityParams(g)
		if span < o.MaxSpan || round < o.Rounding {
			return nil, false, errs.New(errs.InvalidOptions, "Invalid transition for timeseries.granularity. The target granularity values for bucketMaxSpanSeconds and bucketRoundingSeconds should be greater than or equal to the existing values.")
		}
		c := *o
		c.Granularity, c.MaxSpan, c.Rounding = g, span, round
		return &c, true, nil
	}
	if g == o.Granularity {
		return o, false, nil
	}
	if granularityRank(g) < granularityRank(o.Granularity) {
		return nil, false, errs.New(errs.InvalidOptions, "Invalid transition for timeseries.granularity. Can only transition from 'seconds' to 'minutes' or 'minutes' to 'hours'.")
	}
	c := *o
	c.Granularity = g
	c.MaxSpan, c.Rounding, _ = granularityParams(g)
	return &c, true, nil
}

// safeInt reads an IDL safeInt: any number type holding a whole value in
// the int32 range.
func safeInt(field string, v bsoncore.Value) (int64, error) {
	switch v.Type {
	case bsoncore.TypeInt32:
		return int64(v.Int32()), nil
	case bsoncore.TypeInt64:
		n := v.Int64()
		if n < math.MinInt32 || n > math.MaxInt32 {
			return 0, errs.New(errs.BadValue, "Expected an integer: %s: %d", field, n)
		}
		return n, nil
	case bsoncore.TypeDouble:
		f := v.Double()
		if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
			return 0, errs.New(errs.BadValue, "Expected an integer: %s: %v", field, f)
		}
		return int64(f), nil
	case bsoncore.TypeDecimal128:
		f := bsonutil.AsFloat64(v)
		if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
			return 0, errs.New(errs.BadValue, "Expected an integer: %s: %v", field, f)
		}
		return int64(f), nil
	}
	return 0, wrongType(field, v, "[long, int, decimal, double]")
}

func wrongType(field string, v bsoncore.Value, expected string) error {
	s := ""
	if strings.HasPrefix(expected, "[") {
		s = "s"
	}
	return errs.New(errs.TypeMismatch, "BSON field '%s' is the wrong type '%s', expected type%s '%s'", field, bsonutil.TypeName(v.Type), s, expected)
}

// WithBucketing returns the options after collMod's
// timeseries.bucketMaxSpanSeconds and bucketRoundingSeconds (mongod
// 6.3+): given together, equal, and not below the current parameters;
// the collection then has custom bucketing (no granularity).
func (o *Options) WithBucketing(maxSpan, rounding int64, hasMaxSpan, hasRounding bool) (*Options, bool, error) {
	if hasMaxSpan != hasRounding {
		return nil, false, errs.New(errs.InvalidOptions, "Timeseries 'bucketMaxSpanSeconds' and 'bucketRoundingSeconds' need to be set alongside each other")
	}
	if maxSpan != rounding {
		return nil, false, errs.New(errs.InvalidOptions, "Timeseries 'bucketRoundingSeconds' needs to be equal to 'bucketMaxSpanSeconds'")
	}
	if maxSpan < 1 {
		return nil, false, errs.New(errs.Location51024, "BSON field 'bucketMaxSpanSeconds' value must be >= 1, actual value '%d'", maxSpan)
	}
	if maxSpan < o.MaxSpan || rounding < o.Rounding {
		return nil, false, errs.New(errs.InvalidOptions, "Invalid transition for timeseries.bucketMaxSpanSeconds and timeseries.bucketRoundingSeconds: the new values must be greater than or equal to the existing ones")
	}
	if o.Granularity == "" && maxSpan == o.MaxSpan && rounding == o.Rounding {
		return o, false, nil
	}
	c := *o
	c.Granularity, c.MaxSpan, c.Rounding = "", maxSpan, rounding
	return &c, true, nil
}
