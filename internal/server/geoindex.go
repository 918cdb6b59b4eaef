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

// check2DIndexSpec checks a 2d index's bits, min and max as mongod does
// (geo.ParseGrid2D: InvalidOptions with mongod's messages); the engine
// keeps them as given (IndexSpec.Geo2D) and builds the index's grid.
func check2DIndexSpec(d bsoncore.Document) error {
	_, err := geo.ParseGrid2D(d)
	return err
}

// geo2DOptions returns the bits, min and max of a 2d index specification
// as given, for the engine to keep; nil for other indexes (which ignore
// them, as mongod's do) or when none is given.
func geo2DOptions(d bsoncore.Document) bsoncore.Document {
	key, err := d.LookupErr("key")
	if err != nil || key.Type != bsoncore.TypeEmbeddedDocument {
		return nil
	}
	vals, _ := key.Document().Values()
	for _, v := range vals {
		if v.Type == bsoncore.TypeString && v.StringValue() == "2d" {
			return geo.Grid2DSpec(d)
		}
	}
	return nil
}
