package engine

import (
	"errors"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsoncolumn"
)

// Time series buckets are stored as mongod 7.0 stores them: an open
// bucket in version 1 (each data field an object of the measurements'
// values, appended to in place), a closed one compressed into version 2
// (measurements sorted by time, each data field a BSONColumn,
// internal/bsoncolumn). A bucket the format cannot hold compressed (a
// time value that is not a date, a column out of step) stays in version
// 1, as mongod leaves it. Writes that rewrite measurements (deletes and
// updates by measurement fields) read a compressed bucket back as version
// 1. compressBucket returns a closed bucket in the form it is stored in
// for good.
func compressBucket(bucket []byte, timeField string) ([]byte, error) {
	if timeField == "" {
		return bucket, nil
	}
	out, err := bsoncolumn.CompressBucket(bucket, timeField)
	if errors.Is(err, bsoncolumn.ErrNotCompressible) {
		return bucket, nil
	}
	return out, err
}

// decompressBucket returns a stored bucket in version 1 (itself when it
// is one already).
func decompressBucket(bucket []byte) ([]byte, error) {
	if v, ok := bsoncore.Document(bucket).Lookup("control", "version").AsInt64OK(); !ok || v == 1 {
		return bucket, nil
	}
	return bsoncolumn.DecompressBucket(bucket)
}
