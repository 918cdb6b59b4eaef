package server

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/opstats"
)

func init() {
	register(command{names: []string{"createIndexes"}, handler: cmdCreateIndexes, authz: requires(collNeeds(auth.ActCreateIndex)),
		api: apiV1, inTxn: yes, retryable: no, snapshotRead: no, writeConcern: yes, explain: notExplained, applyOps: yes,
		observe: observed(opCommand, onColl), creates: true, outlivesClient: true,
		applyOpsEntry: createIndexesFromEntry})
}

// createIndexesFromEntry is the applyOps form of a createIndexes entry,
// which holds one index specification in the command's own fields.
func createIndexesFromEntry(o bsoncore.Document, db string) (bsoncore.Document, string) {
	els, _ := o.Elements()
	spec := bsoncore.NewDocumentBuilder()
	hasCollation := false
	for _, el := range els[1:] {
		spec.AppendValue(el.Key(), el.Value())
		hasCollation = hasCollation || el.Key() == "collation"
	}
	if !hasCollation {
		// An entry's spec is exact: without a collation the index is
		// simple, not the collection default (as mongod applies it).
		spec.AppendDocument("collation", bsoncore.NewDocumentBuilder().AppendString("locale", "simple").Build())
	}
	return bsoncore.NewDocumentBuilder().AppendValue(els[0].Key(), els[0].Value()).
		AppendArray("indexes", bsoncore.NewArrayBuilder().AppendDocument(spec.Build()).Build()).Build(), db
}

// indexSpecFields are the fields an index specification may carry. Those
// Lode does not act on are accepted and ignored where mongod ignores them
// too (background, dropDups, ns, storageEngine) or where the index's key
// type, which Lode checks, gives them their meaning (text, geo and
// wildcard options); hidden and prepareUnique are honoured, clustered is
// refused when true, and a collation must be the simple one.
var indexSpecFields = map[string]bool{
	"key": true, "name": true, "v": true, "unique": true, "sparse": true,
	"partialFilterExpression": true, "expireAfterSeconds": true, "background": true,
	"hidden": true, "collation": true, "ns": true, "dropDups": true,
	"storageEngine": true, "weights": true, "default_language": true,
	"language_override": true, "textIndexVersion": true, "2dsphereIndexVersion": true,
	"bits": true, "min": true, "max": true, "bucketSize": true, "wildcardProjection": true,
	"prepareUnique": true, "clustered": true,
	"coarsestIndexedLevel": true, "finestIndexedLevel": true,
}

// cmdCreateIndexes creates the indexes listed in "indexes". The reply has
// MongoDB 7.0's shape: numIndexesBefore, numIndexesAfter,
// createdCollectionAutomatically and, when nothing was created, a note.
func cmdCreateIndexes(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	if v, err := s.lookupView(ctx, req.DB, coll); err != nil {
		return nil, err
	} else if v != nil {
		if o := s.timeseriesOfView(req.DB, v); o != nil {
			return s.timeseriesCreateIndexes(ctx, req, coll, o) // timeseries_indexes.go
		}
		return nil, errs.New(errs.CommandNotSupportedOnView, "Cannot create indexes on a view") // views.go
	}
	var specs []engine.IndexSpec
	seenIndexes := false
	ignoreUnknown := false
	if v, err := req.Cmd.LookupErr("ignoreUnknownIndexOptions"); err == nil {
		if ignoreUnknown, err = argBool(req.Name, "ignoreUnknownIndexOptions", v); err != nil {
			return nil, err
		}
	}
	var wantUUID *bsoncore.Value
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "indexes":
			seenIndexes = true
			if v.Type != bsoncore.TypeArray {
				return true, wrongType(req.Name, k, v, "array")
			}
			vals, err := v.Array().Values()
			if err != nil {
				return true, errs.New(errs.InvalidBSON, "invalid indexes array: %v", err)
			}
			for _, iv := range vals {
				if iv.Type != bsoncore.TypeEmbeddedDocument {
					return true, errs.New(errs.TypeMismatch, "The elements of the 'indexes' array must be objects, but got %s", bsonutil.TypeName(iv.Type))
				}
				spec, err := parseIndexSpec(iv.Document(), ignoreUnknown)
				if err != nil {
					return true, err
				}
				specs = append(specs, spec)
			}
		case "v":
			// The command-level index version: 2, as every Lode index.
			if n, ok := asInt64(v); !ok || n != 2 && n != 1 {
				return true, errs.New(errs.CannotCreateIndex, "Invalid index specification version %s", v.String())
			} else if n == 1 {
				return true, errs.New(errs.NotImplemented, "indexes of version 1 are not supported: Lode builds every index as version 2")
			}
		case "returnOnStart":
			// Lode's builds finish before the reply, which also satisfies
			// a client that asked to be answered when the build starts.
			_, err := argBool(req.Name, k, v)
			return true, err
		case "collectionUUID":
			if _, _, ok := v.BinaryOK(); !ok {
				return true, wrongType(req.Name, k, v, "uuid")
			}
			wantUUID = &v
		case "isTimeseriesNamespace":
			return true, refuseTimeseriesNS(req.Name, v)
		case "commitQuorum", "ignoreUnknownIndexOptions":
			// commitQuorum: a single node always meets it.
		default:
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if !seenIndexes {
		return nil, errs.New(errs.Location40414, "BSON field 'createIndexes.indexes' is missing but a required field")
	}
	if len(specs) == 0 {
		return nil, errs.New(errs.BadValue, "Must specify at least one index to create")
	}
	if err := engine.ValidateNamespace(req.DB, coll); err != nil {
		return nil, err
	}
	if wantUUID != nil {
		if err := s.checkCollectionUUID(req.DB, coll, *wantUUID); err != nil {
			return nil, err
		}
	}
	before := 0
	existed := false
	if ixs, err := s.eng.ListIndexes(req.DB, coll); err == nil {
		before, existed = countIndexes(ixs), true
	}
	if op, ok := opstats.HolderFrom(ctx).(*runningOp); ok {
		// currentOp shows the build's phase and progress.
		ctx = engine.WithProgress(ctx, &op.progress)
	}
	// All or none, in one scan of the collection (as mongod builds the
	// indexes of one command together).
	created, err := s.eng.CreateIndexesCtx(ctx, req.DB, coll, specs)
	if err != nil {
		return nil, err
	}
	createdAny := created > 0
	after := before
	if ixs, err := s.eng.ListIndexes(req.DB, coll); err == nil {
		after = countIndexes(ixs)
	}
	if !existed {
		before = 1 // the _id index created with the collection
	}
	b := bsoncore.NewDocumentBuilder().
		AppendInt32("numIndexesBefore", int32(before)).
		AppendInt32("numIndexesAfter", int32(after))
	if !createdAny {
		b.AppendString("note", "all indexes already exist")
	}
	b.AppendBoolean("createdCollectionAutomatically", !existed)
	return b.Build(), nil
}

// parseIndexSpec validates one entry of createIndexes' "indexes" array.
// ignoreUnknown (createIndexes' ignoreUnknownIndexOptions) skips the
// fields an index specification may not have instead of refusing them.
func parseIndexSpec(d bsoncore.Document, ignoreUnknown bool) (engine.IndexSpec, error) {
	uniqueFalse := false // unique given, and false
	var spec engine.IndexSpec
	elems, err := d.Elements()
	if err != nil {
		return spec, errs.New(errs.InvalidBSON, "invalid index specification: %v", err)
	}
	hasKey := false
	for _, el := range elems {
		k, v := el.Key(), el.Value()
		if !indexSpecFields[k] {
			if ignoreUnknown {
				continue
			}
			return spec, errs.New(errs.InvalidIndexSpecificationOption, "The field '%s' is not valid for an index specification. Specification: %s", k, d.String())
		}
		switch k {
		case "key":
			if v.Type != bsoncore.TypeEmbeddedDocument {
				return spec, errs.New(errs.TypeMismatch, "The field 'key' must be an object, but got %s", bsonutil.TypeName(v.Type))
			}
			spec.Key = v.Document()
			hasKey = true
			if err := checkKeyFieldNames(spec.Key); err != nil {
				return spec, err
			}
		case "name":
			name, ok := v.StringValueOK()
			if !ok {
				return spec, errs.New(errs.TypeMismatch, "The field 'name' must be a string, but got %s", bsonutil.TypeName(v.Type))
			}
			if name == "" {
				return spec, errs.New(errs.CannotCreateIndex, "The index name cannot be empty")
			}
			spec.Name = name
		case "v":
			n, ok := asInt64(v)
			if !ok || (n != 1 && n != 2) {
				return spec, errs.New(errs.CannotCreateIndex, "Invalid index specification %s; cannot create an index with v=%s", d.String(), v.String())
			}
		case "collation":
			d, err := argCollationDoc("createIndexes.indexes", k, v)
			if err != nil {
				return spec, err
			}
			spec.Collation = d
		case "hidden":
			spec.Hidden = expr.Truthy(v)
		case "prepareUnique":
			spec.PrepareUnique = expr.Truthy(v)
		case "clustered":
			if expr.Truthy(v) {
				return spec, errs.New(errs.NotImplemented, "index option %s: %s is not supported by Lode. Index spec: %s", k, v.String(), d.String())
			}
		case "weights", "default_language", "language_override", "textIndexVersion":
			if err := parseTextIndexOption(&spec, k, v); err != nil {
				return spec, err
			}
		case "unique":
			spec.Unique = expr.Truthy(v)
			uniqueFalse = !spec.Unique
		case "sparse":
			spec.Sparse = expr.Truthy(v)
		case "partialFilterExpression":
			if v.Type != bsoncore.TypeEmbeddedDocument {
				return spec, errs.New(errs.TypeMismatch, "The field 'partialFilterExpression' must be an object, but got %s", bsonutil.TypeName(v.Type))
			}
			spec.PartialFilterExpression = v.Document()
		case "expireAfterSeconds":
			if !bsonutil.IsNumber(v.Type) {
				return spec, errs.New(errs.CannotCreateIndex, "TTL index 'expireAfterSeconds' option must be numeric, but received a type of '%s'. Index spec: %s", bsonutil.TypeName(v.Type), d.String())
			}
			f := bsonutil.AsFloat64(v)
			if f < 0 || f > 2147483647 || f != f {
				return spec, errs.New(errs.CannotCreateIndex, "TTL index 'expireAfterSeconds' option must be within an acceptable range, try a lower number. Index spec: %s", d.String())
			}
			n := int64(f)
			spec.ExpireAfterSeconds = &n
		}
	}
	if !hasKey {
		return spec, errs.New(errs.FailedToParse, "Error in specification %s :: caused by :: The 'key' field is a required property of an index specification", d.String())
	}
	if len(spec.Key) <= 5 {
		return spec, errs.New(errs.CannotCreateIndex, "Error in specification %s :: caused by :: Index keys cannot be an empty object.", d.String())
	}
	if uniqueFalse && isIDKeyPattern(spec.Key) {
		return spec, errs.New(errs.CannotCreateIndex, "_id index cannot be non-unique")
	}
	if err := checkGeoIndexSpec(d); err != nil {
		return spec, err
	}
	spec.Geo2D = geo2DOptions(d)
	if spec.Name == "" {
		spec.Name = engine.DefaultIndexName(spec.Key)
	}
	if spec.ExpireAfterSeconds != nil {
		if n, _ := spec.Key.Elements(); len(n) != 1 {
			return spec, errs.New(errs.CannotCreateIndex, "TTL indexes are single-field indexes, compound indexes do not support TTL. Index spec: %s", d.String())
		}
	}
	return spec, nil
}

// checkKeyFieldNames refuses a key pattern path with a part starting with
// '$': "$**" (a wildcard index, which Lode does not have) with
// NotImplemented, any other as mongod does. Without this, the key would
// index a field literally named "$**".
func checkKeyFieldNames(key bsoncore.Document) error {
	elems, _ := key.Elements()
	for _, el := range elems {
		for i, part := range strings.Split(el.Key(), ".") {
			if part == "$**" && el.Key() == "$**" && el.Value().Type == bsoncore.TypeString && el.Value().StringValue() == "text" {
				continue // a wildcard text index
			}
			if part == "$**" {
				return errs.New(errs.NotImplemented, "wildcard indexes ('%s') are not supported by Lode", el.Key())
			}
			if i > 0 && (part == "$id" || part == "$ref" || part == "$db") {
				continue // a DBRef's field ("a.$id"), as mongod allows
			}
			if strings.HasPrefix(part, "$") {
				return errs.New(errs.CannotCreateIndex, "Index key contains an illegal field name: field name starts with '$'.")
			}
		}
	}
	return nil
}

// countIndexes counts indexes as mongod's index catalog does: without a
// clustered collection's clustered index, which is its records.
func countIndexes(ixs []engine.IndexInfo) int {
	n := 0
	for _, ix := range ixs {
		if ix.Clustered == nil {
			n++
		}
	}
	return n
}

// isIDKeyPattern reports whether key is {_id: 1}, the _id index's key
// (1 of any numeric type).
func isIDKeyPattern(key bsoncore.Document) bool {
	elems, err := key.Elements()
	if err != nil || len(elems) != 1 || elems[0].Key() != "_id" {
		return false
	}
	v := elems[0].Value()
	return bsonutil.IsNumber(v.Type) && bsonutil.AsFloat64(v) == 1
}
