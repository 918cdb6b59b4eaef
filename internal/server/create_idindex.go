package server

import (
	"bytes"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// checkIDIndexSpec validates create's idIndex, the specification of the
// collection's _id index (mongorestore sends the one listIndexes showed).
// Lode's _id index is always {v: 2, key: {_id: 1}, name: "_id_"} with the
// simple collation, so a specification that means exactly that is
// accepted; one mongod would refuse gets mongod's error, and one mongod
// would honour differently (index version 1) is NotImplemented rather
// than silently built as the default. It returns the spec's collation,
// normalised (nil: simple or none), which must be the collection's
// (checkIDIndexCollation).
func checkIDIndexSpec(v bsoncore.Value) (bsoncore.Document, error) {
	spec, err := argDoc("create", "idIndex", v)
	if err != nil {
		return nil, err
	}
	elems, err := spec.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid idIndex: %v", err)
	}
	var coll bsoncore.Document
	sawKey := false
	for _, el := range elems {
		k, val := el.Key(), el.Value()
		switch k {
		case "key":
			sawKey = true
			kd, ok := val.DocumentOK()
			ke, _ := kd.Elements()
			if !ok || len(ke) != 1 || ke[0].Key() != "_id" || !isOne(ke[0].Value()) {
				return nil, errs.New(errs.BadValue, "The field 'key' for an _id index must be {_id: 1}, but got %s", val.String())
			}
		case "name":
			if s, ok := val.StringValueOK(); !ok || s != "_id_" {
				return nil, errs.New(errs.BadValue, "The field 'name' for an _id index must be '_id_', but got %s", val.String())
			}
		case "v":
			n, ok := asInt64(val)
			switch {
			case !ok:
				return nil, errs.New(errs.TypeMismatch, "The field 'v' must be a number, but got %s", val.String())
			case n == 1:
				return nil, errs.New(errs.NotImplemented, "an _id index of version 1 is not supported: Lode builds every index as version 2")
			case n != 2:
				return nil, errs.New(errs.CannotCreateIndex, "Invalid index specification %s; cannot create an index with v=%d", spec.String(), n)
			}
		case "ns":
			// Accepted by mongod for older dumps; the collection is the
			// command's.
		case "collation":
			d, err := argCollationDoc("create", "idIndex.collation", val)
			if err != nil {
				return nil, err
			}
			if coll, err = normalCollation(d); err != nil {
				return nil, err
			}
		default:
			return nil, errs.New(errs.InvalidIndexSpecificationOption, "The field '%s' is not valid for an _id index specification. Specification: %s", k, spec.String())
		}
	}
	if !sawKey {
		return nil, errs.New(errs.FailedToParse, "The 'key' field is a required property of an index specification")
	}
	return coll, nil
}

// checkIDIndexCollation refuses, as mongod does, an idIndex whose
// collation is not the collection's (both normalised; nil: simple).
func checkIDIndexCollation(idIndex, coll bsoncore.Document) error {
	if !bytes.Equal(idIndex, coll) {
		return errs.New(errs.BadValue, "'idIndex' must have the same collation as the collection.")
	}
	return nil
}

// isOne reports whether v is the number 1 (an ascending key).
func isOne(v bsoncore.Value) bool {
	n, ok := asInt64(v)
	return ok && n == 1
}
