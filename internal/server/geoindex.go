package server

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/geo"
)

// checkGeoIndexSpec checks the 2dsphere options of an index specification
// against what Lode builds: index version 3 with mongod's default levels.
// Other versions and levels would change the keys, so they are refused
// rather than ignored.
func checkGeoIndexSpec(d bsoncore.Document) error {
	isGeo, is2D := false, false
	if key, err := d.LookupErr("key"); err == nil && key.Type == bsoncore.TypeEmbeddedDocument {
		vals, _ := key.Document().Values()
		for _, v := range vals {
			if v.Type == bsoncore.TypeString && v.StringValue() == "2dsphere" {
				isGeo = true
			}
			if v.Type == bsoncore.TypeString && v.StringValue() == "2d" {
				is2D = true
			}
		}
	}
	if is2D {
		if err := check2DIndexSpec(d); err != nil {
			return err
		}
	}
	if !isGeo {
		return nil
	}
	check := func(name string, want int64) error {
		v, err := d.LookupErr(name)
		if err != nil {
			return nil
		}
		if !bsonutil.IsNumber(v.Type) || bsonutil.AsFloat64(v) != float64(want) {
			return errs.New(errs.NotImplemented, "2dsphere index option %s: %s is not supported by Lode (only %d)", name, bsonutil.FormatValue(v, bsonutil.Style{}), want)
		}
		return nil
	}
	if err := check("2dsphereIndexVersion", 3); err != nil {
		return err
	}
	if err := check("coarsestIndexedLevel", int64(geo.CoarsestIndexedLevel)); err != nil {
		return err
	}
	return check("finestIndexedLevel", int64(geo.FinestIndexedLevel))
}

// check2DIndexSpec: 2d indexes are built with mongod's defaults (26 bits
// over [-180, 180)); other bits, min or max are refused.
func check2DIndexSpec(d bsoncore.Document) error {
	if v, err := d.LookupErr("bits"); err == nil {
		if bsonutil.IsNumber(v.Type) {
			if b := bsonutil.AsFloat64(v); b < 1 || b > 32 {
				return errs.New(errs.Code(13028), "bits in geo index must be between 1 and 32")
			}
		}
		if !bsonutil.IsNumber(v.Type) || bsonutil.AsFloat64(v) != geo.Hash2DBits {
			return errs.New(errs.NotImplemented, "2d index option bits: %s is not supported by Lode (only %d)", bsonutil.FormatValue(v, bsonutil.Style{}), geo.Hash2DBits)
		}
	}
	for name, want := range map[string]float64{"min": geo.Hash2DMin, "max": geo.Hash2DMax} {
		if v, err := d.LookupErr(name); err == nil && (!bsonutil.IsNumber(v.Type) || bsonutil.AsFloat64(v) != want) {
			return errs.New(errs.NotImplemented, "2d index option %s: %s is not supported by Lode (only %v)", name, bsonutil.FormatValue(v, bsonutil.Style{}), want)
		}
	}
	return nil
}
