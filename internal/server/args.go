package server

import (
	"errors"
	"github.com/lodedb/lode/internal/collation"
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// genericArgs are the fields any command may carry; handlers ignore them
// unless they act on them (MongoDB's "generic arguments").
var genericArgs = map[string]bool{
	"$db": true, "lsid": true, "txnNumber": true, "autocommit": true,
	"startTransaction": true, "$clusterTime": true, "$readPreference": true,
	"readConcern": true, "writeConcern": true, "comment": true, "maxTimeMS": true,
	"apiVersion": true, "apiStrict": true, "apiDeprecationErrors": true,
	"$audit": true, "$client": true, "clientOperationKey": true,
	"mayBypassWriteBlocking": true, "$configServerState": true,
	"$gleStats": true, "$oplogQueryData": true, "$replData": true,
	"$queryOptions": true, "$configTime": true, "$topologyTime": true,
	"$timeseriesBucketsCollection": true, "readPreference": true,
	// The rest of mongod 7.0's generic arguments (generic_argument.idl).
	// The sharding ones (shardVersion, databaseVersion, tracking_info)
	// have no effect on a server that is no shard; those that would
	// change the result are checked by refusedGenericArg.
	"stmtId": true, "allowImplicitCollectionCreation": true,
	"databaseVersion": true, "shardVersion": true, "tracking_info": true,
	"coordinator": true, "maxTimeMSOpOnly": true, "txnRetryCounter": true,
	"$tenant": true, "expectPrefix": true,
}

// refusedGenericArg returns NotImplemented for a generic argument whose
// value asks for something Lode cannot do, and nil for one it honours or
// that has no effect on a single, unsharded server.
func refusedGenericArg(cmd, k string, v bsoncore.Value) error {
	refuse := false
	why := ""
	switch k {
	case "allowImplicitCollectionCreation":
		// false asks the command to fail rather than create the
		// collection; mongos sends it to shards.
		refuse = v.Type != bsoncore.TypeBoolean || !v.Boolean()
		why = "Lode always creates a missing collection on a write"
	case "coordinator":
		refuse = v.Type != bsoncore.TypeBoolean || v.Boolean()
		why = "Lode has no cross-shard transaction coordinator"
	case "maxTimeMSOpOnly":
		refuse, why = true, "it is mongos's time limit for a shard's part of an operation; use maxTimeMS"
	case "txnRetryCounter":
		n, ok := asInt64(v)
		refuse = !ok || n != 0
		why = "Lode does not retry transactions started by mongos"
	case "$tenant":
		refuse, why = true, "Lode has no multitenancy"
	case "expectPrefix":
		refuse = v.Type != bsoncore.TypeBoolean || v.Boolean()
		why = "Lode has no multitenancy"
	}
	if refuse {
		return errs.New(errs.NotImplemented, "%s.%s is not supported by Lode: %s", cmd, k, why)
	}
	return nil
}

// onlyGenericArgs refuses every field after the command's name but the
// generic arguments, as a command whose IDL declares no fields does
// (ping, logout, dropDatabase). When the dispatcher's scan found only
// arguments it reads itself, all generic and none refused
// (TestGenArgsAreGenericAndAccepted), there is nothing to walk.
func onlyGenericArgs(req *Request) error {
	if req.gen.ok && req.gen.others == 0 {
		return nil
	}
	return eachArg(req, func(string, bsoncore.Value) (bool, error) { return false, nil })
}

// eachArgLax is eachArg for a command mongod parses by hand without a
// strict check (compact, shutdown, logRotate): a field fn does not know
// is ignored, as mongod ignores it, unless it is a generic argument,
// which is checked as everywhere.
func eachArgLax(req *Request, fn func(key string, v bsoncore.Value) (bool, error)) error {
	return eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		known, err := fn(k, v)
		if known || err != nil {
			return known, err
		}
		_, generic := genericArgNames[k]
		return !generic, nil
	})
}

// eachArg calls fn for every field after the command name. fn returns
// false for a field it does not know; such a field is an error (40415)
// unless it is a generic argument.
func eachArg(req *Request, fn func(key string, v bsoncore.Value) (bool, error)) error {
	first := true
	each := func(el bsoncore.Element) error {
		if first { // the command name
			first = false
			return nil
		}
		k, generic := argKey(el)
		known, err := fn(k, el.Value())
		if err != nil {
			return err
		}
		if !known && !generic {
			return errs.New(errs.Location40415, "BSON field '%s.%s' is an unknown field.", req.Name, k)
		}
		if !known {
			return refusedGenericArg(req.Name, k, el.Value())
		}
		return nil
	}
	var err error
	if req.trusted {
		err = bsonutil.EachElementTrusted(req.Cmd, each)
	} else {
		err = bsonutil.EachElement(req.Cmd, each)
	}
	return commandDocErr(err)
}

// argKey returns el's key and whether it is a generic argument, whose
// key it does not allocate (the string genericArgs holds).
func argKey(el bsoncore.Element) (string, bool) {
	kb := el.KeyBytes()
	if k, ok := genericArgNames[string(kb)]; ok {
		return k, true
	}
	if k, ok := commonArgNames[string(kb)]; ok {
		return k, false
	}
	return string(kb), false
}

// commonArgNames are the non-generic arguments of the commands clients
// send most, whose keys argKey returns without allocating.
var commonArgNames = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{"documents", "updates", "deletes", "ordered", "filter", "sort", "projection",
		"limit", "skip", "batchSize", "singleBatch", "pipeline", "cursor", "query", "update", "remove", "new",
		"upsert", "fields", "hint", "let", "bypassDocumentValidation", "key", "indexes", "stmtId", "stmtIds"} {
		m[k] = k
	}
	return m
}()

// genericArgNames maps each generic argument to its name, for argKey.
var genericArgNames = func() map[string]string {
	m := make(map[string]string, len(genericArgs))
	for k := range genericArgs {
		m[k] = k
	}
	return m
}()

// commandDocErr passes a handler's error on and turns a BSON framing or
// element error of the command document into InvalidBSON.
func commandDocErr(err error) error {
	if err == nil {
		return nil
	}
	var e *errs.Error
	if errors.As(err, &e) {
		return err
	}
	return errs.New(errs.InvalidBSON, "invalid command document: %v", err)
}

// asInt64 converts a numeric value that holds an integer to int64.
func asInt64(v bsoncore.Value) (int64, bool) {
	switch v.Type {
	case bsoncore.TypeInt32:
		return int64(v.Int32()), true
	case bsoncore.TypeInt64:
		return v.Int64(), true
	case bsoncore.TypeDouble:
		f := v.Double()
		if math.IsNaN(f) || f != math.Trunc(f) || f > math.MaxInt64 || f < math.MinInt64 {
			return 0, false
		}
		return int64(f), true
	case bsoncore.TypeDecimal128:
		f := bsonutil.AsFloat64(v)
		if math.IsNaN(f) || f != math.Trunc(f) || f > math.MaxInt64 || f < math.MinInt64 {
			return 0, false
		}
		return int64(f), true
	}
	return 0, false
}

func wrongType(cmd, field string, v bsoncore.Value, expected string) error {
	return errs.New(errs.TypeMismatch, "BSON field '%s.%s' is the wrong type '%s', expected type%s '%s'", cmd, field, bsonutil.TypeName(v.Type), plural(expected), expected)
}

func plural(expected string) string {
	if len(expected) > 0 && expected[0] == '[' {
		return "s"
	}
	return ""
}

const numberTypes = "[long, int, decimal, double]"

// argInt64 reads an integral numeric argument.
func argInt64(cmd, field string, v bsoncore.Value) (int64, error) {
	if v.Type == bsoncore.TypeNull {
		return 0, nil
	}
	n, ok := asInt64(v)
	if !ok {
		if bsonIsNumber(v.Type) {
			return 0, errs.New(errs.BadValue, "BSON field '%s.%s' value must be an integer, found %s", cmd, field, v.String())
		}
		return 0, wrongType(cmd, field, v, numberTypes)
	}
	return n, nil
}

func bsonIsNumber(t bsoncore.Type) bool {
	return t == bsoncore.TypeInt32 || t == bsoncore.TypeInt64 || t == bsoncore.TypeDouble || t == bsoncore.TypeDecimal128
}

// argBool reads a boolean argument; numbers are accepted as MongoDB's IDL
// does for "safeBool".
func argBool(cmd, field string, v bsoncore.Value) (bool, error) {
	switch v.Type {
	case bsoncore.TypeBoolean:
		return v.Boolean(), nil
	case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble, bsoncore.TypeDecimal128:
		return bsonutil.AsFloat64(v) != 0, nil
	case bsoncore.TypeNull:
		return false, nil
	}
	return false, wrongType(cmd, field, v, "bool")
}

// argDoc reads a document argument.
func argDoc(cmd, field string, v bsoncore.Value) (bsoncore.Document, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, wrongType(cmd, field, v, "object")
	}
	return d, nil
}

// argString reads a string argument.
func argString(cmd, field string, v bsoncore.Value) (string, error) {
	s, ok := v.StringValueOK()
	if !ok {
		return "", wrongType(cmd, field, v, "string")
	}
	return s, nil
}

// argDocArray reads an array of documents.
func argDocArray(cmd, field string, v bsoncore.Value) ([]bsoncore.Document, error) {
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, wrongType(cmd, field, v, "array")
	}
	// The elements are read in place (an insert's documents: no
	// bsoncore.Value per document on the way to the slice).
	if len(arr) < 5 {
		return nil, errs.New(errs.InvalidBSON, "invalid array: too short")
	}
	b := arr[:len(arr)-1]
	n := 0
	for i := 4; i < len(b); n++ {
		el, ok := bsonutil.ElementAt(b, i)
		if !ok {
			return nil, errs.New(errs.InvalidBSON, "invalid array: malformed element %d", n)
		}
		i = el.End
	}
	out := make([]bsoncore.Document, 0, n)
	for i, k := 4, 0; i < len(b); k++ {
		el, _ := bsonutil.ElementAt(b, i)
		if el.Type != bsoncore.TypeEmbeddedDocument {
			return nil, errs.New(errs.TypeMismatch, "BSON field '%s.%s.%d' is the wrong type '%s', expected type 'object'", cmd, field, k, bsonutil.TypeName(el.Type))
		}
		out = append(out, bsoncore.Document(b[el.NameEnd+1:el.End:el.End]))
		i = el.End
	}
	return out, nil
}

// argHint reads an index hint (a name or a key pattern), as mongod's
// IndexHint parser does: any other type is FailedToParse.
func argHint(v bsoncore.Value) (bsoncore.Value, error) {
	if v.Type != bsoncore.TypeString && v.Type != bsoncore.TypeEmbeddedDocument {
		return bsoncore.Value{}, errs.New(errs.FailedToParse, "Hint must be a string or an object")
	}
	return v, nil
}

// argCollation validates a command's collation document as mongod does
// (package collation) and returns it as given; the engine resolves it
// against the collection's default.
func argCollation(cmd, field string, v bsoncore.Value) error {
	_, err := argCollationDoc(cmd, field, v)
	return err
}

// argCollationDoc is argCollation returning the validated document.
func argCollationDoc(cmd, field string, v bsoncore.Value) (bsoncore.Document, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, wrongType(cmd, field, v, "object")
	}
	loc, err := d.LookupErr("locale")
	if err != nil {
		return nil, errs.New(errs.Location40414, "BSON field 'locale' is missing but a required field")
	}
	if _, ok := loc.StringValueOK(); !ok {
		return nil, wrongType("collation", "locale", loc, "string")
	}
	if _, err := collation.Parse(d); err != nil {
		return nil, err
	}
	return d, nil
}

// simpleCollationDoc is {locale: "simple"}.
var simpleCollationDoc = bsoncore.NewDocumentBuilder().AppendString("locale", "simple").Build()

// isSimpleCollation reports whether a validated collation document is
// {locale: "simple"}.
func isSimpleCollation(d bsoncore.Document) bool {
	s, _ := d.Lookup("locale").StringValueOK()
	return s == "simple"
}

// argCollectionUUID checks a command's collectionUUID: a UUID that must
// be db.coll's.
func (s *Server) argCollectionUUID(cmd, db, coll string, v bsoncore.Value) error {
	if st, _, ok := v.BinaryOK(); !ok || st != 4 {
		return wrongType(cmd, "collectionUUID", v, "uuid")
	}
	return s.checkCollectionUUID(db, coll, v)
}

// refuseTimeseriesNS reads isTimeseriesNamespace, the flag with which
// mongos addresses a time-series collection's buckets on a shard: false
// is the default, true is refused, as Lode is not sharded (commands name
// the time-series collection itself).
func refuseTimeseriesNS(cmd string, v bsoncore.Value) error {
	on, err := argBool(cmd, "isTimeseriesNamespace", v)
	if err == nil && on {
		err = errs.New(errs.NotImplemented, "%s.isTimeseriesNamespace is not supported by Lode: it is how mongos addresses a shard's buckets, and Lode is not sharded; name the time-series collection itself", cmd)
	}
	return err
}
