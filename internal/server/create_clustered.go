package server

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// parseClusteredIndex parses create's clusteredIndex as mongod 7.0 does
// and returns it as stored and shown by listCollections: {v: 2, key:
// {_id: 1}, name, unique: true}, the name defaulting to "_id_". The
// boolean form, {clusteredIndex: true}, is only for time series buckets
// and internal collections (5979703); false means no clustering (nil).
func parseClusteredIndex(req *Request, v bsoncore.Value) (bsoncore.Document, error) {
	switch v.Type {
	case bsoncore.TypeBoolean:
		if !v.Boolean() {
			return nil, nil
		}
		return nil, errs.New(errs.Location5979703, "The 'clusteredIndex' legacy format {clusteredIndex: <bool>} is only supported for specific internal collections and vice versa")
	case bsoncore.TypeEmbeddedDocument:
	default:
		return nil, wrongType(req.Name, "clusteredIndex", v, "[bool, object]")
	}
	spec := v.Document()
	elems, err := spec.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid clusteredIndex: %v", err)
	}
	var (
		key            bsoncore.Document
		name           = "_id_"
		unique, hasUnq bool
		version        int64 = 2
	)
	for _, el := range elems {
		f, fv := el.Key(), el.Value()
		switch f {
		case "key":
			if key, err = argDoc(req.Name, "clusteredIndex.key", fv); err != nil {
				return nil, err
			}
		case "unique":
			if unique, err = argBool(req.Name, "clusteredIndex.unique", fv); err != nil {
				return nil, err
			}
			hasUnq = true
		case "name":
			if name, err = argString(req.Name, "clusteredIndex.name", fv); err != nil {
				return nil, err
			}
		case "v":
			if version, err = argInt64(req.Name, "clusteredIndex.v", fv); err != nil {
				return nil, err
			}
		default:
			return nil, errs.New(errs.Location40415, "BSON field '%s.clusteredIndex.%s' is an unknown field.", req.Name, f)
		}
	}
	if key == nil {
		return nil, errs.New(errs.Location40414, "BSON field '%s.clusteredIndex.key' is missing but a required field", req.Name)
	}
	if !hasUnq {
		return nil, errs.New(errs.Location40414, "BSON field '%s.clusteredIndex.unique' is missing but a required field", req.Name)
	}
	if !unique {
		return nil, errs.New(errs.Location5979700, "The clusteredIndex option requires unique: true to be specified")
	}
	if !isIDAscending(key) {
		return nil, errs.New(errs.InvalidIndexSpecificationOption, "The clusteredIndex option is only supported for key: {_id: 1}")
	}
	if version != 2 {
		norm := bsoncore.NewDocumentBuilder().AppendDocument("key", key).AppendBoolean("unique", true).AppendString("name", name).AppendInt32("v", int32(version)).Build()
		return nil, errs.New(errs.Location5979704, "Invalid clusteredIndex specification %s; cannot create a clusteredIndex with v=%d", bsonutil.FormatDoc(norm, bsonutil.Style{GoNonFinite: true, JSONCode: true}), version)
	}
	return bsoncore.NewDocumentBuilder().
		AppendInt32("v", 2).
		AppendDocument("key", bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).Build()).
		AppendString("name", name).
		AppendBoolean("unique", true).Build(), nil
}

// isIDAscending reports whether key is {_id: 1} (1 as any number type).
func isIDAscending(key bsoncore.Document) bool {
	elems, err := key.Elements()
	if err != nil || len(elems) != 1 || elems[0].Key() != "_id" {
		return false
	}
	v := elems[0].Value()
	return bsonutil.IsNumber(v.Type) && bsonutil.AsFloat64(v) == 1
}

// maxClusteredExpireAfterSeconds bounds expireAfterSeconds so that it
// converts to milliseconds without overflow, as mongod's range check.
const maxClusteredExpireAfterSeconds = math.MaxInt64 / 1000

// parseClusteredExpiry parses create's expireAfterSeconds (with a
// clusteredIndex) as mongod validates a clustered TTL.
func parseClusteredExpiry(req *Request, v bsoncore.Value) (int64, error) {
	n, err := argInt64(req.Name, "expireAfterSeconds", v)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, errs.New(errs.InvalidOptions, "TTL index 'expireAfterSeconds' option cannot be less than 0")
	}
	if n > maxClusteredExpireAfterSeconds {
		return 0, errs.New(errs.InvalidOptions, "TTL index 'expireAfterSeconds' option must be within an acceptable range, try a lower number")
	}
	return n, nil
}

// checkClusteredCreate refuses what a clustered collection cannot be
// combined with, as mongod 7.0 does: an idIndex (72), autoIndexId: false
// (6026501), a capped collection's size (6049200) or max (6049204), and
// capped itself outside enableTestCommands (6127800). A capped clustered
// collection (mongod's, for tests, expiring by expireAfterSeconds) and a
// default collation with clustering are refused with 238.
func checkClusteredCreate(s *Server, req *Request, capped bool, collation bsoncore.Document) error {
	if _, err := req.Cmd.LookupErr("idIndex"); err == nil {
		return errs.New(errs.InvalidOptions, "The 'clusteredIndex' option is not supported with the 'idIndex' option")
	}
	if v, err := req.Cmd.LookupErr("autoIndexId"); err == nil {
		if on, err := argBool(req.Name, "autoIndexId", v); err == nil && !on {
			return errs.New(errs.Location6026501, "The 'clusteredIndex' option does not support {autoIndexId: false}")
		}
	}
	if _, err := req.Cmd.LookupErr("size"); err == nil {
		return errs.New(errs.Location6049200, "'size' field for capped collections is not allowed on clustered collections. Did you mean 'capped: true' with 'expireAfterSeconds'?")
	}
	if _, err := req.Cmd.LookupErr("max"); err == nil {
		return errs.New(errs.Location6049204, "'max' field for capped collections is not allowed on clustered collections. Did you mean 'capped: true' with 'expireAfterSeconds'?")
	}
	if capped {
		if !s.cfg.TestCommands {
			return errs.New(errs.Location6127800, "Clustered capped collection only available with 'enableTestCommands' server parameter")
		}
		return errs.New(errs.NotImplemented, "capped clustered collections are not supported by Lode")
	}
	if collation != nil {
		return errs.New(errs.NotImplemented, "clustered collections with a default collation are not supported by Lode: the cluster key is ordered by the simple collation")
	}
	return nil
}
