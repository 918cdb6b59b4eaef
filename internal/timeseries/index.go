package timeseries

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// Indexes of a time series collection are indexes of its buckets, in
// mongod 7.0's translation: the meta field (and its subfields) becomes
// meta (meta.<sub>), the time field and any measurement field f an
// ascending pair control.min.f, control.max.f (descending: control.max.f,
// control.min.f). listIndexes translates them back.

// BucketIndexKey translates a time series index key to its buckets key.
func BucketIndexKey(o *Options, key bsoncore.Document) (bsoncore.Document, error) {
	elems, err := key.Elements()
	if err != nil || len(elems) == 0 {
		return nil, errs.New(errs.CannotCreateIndex, "Index keys cannot be an empty field.")
	}
	b := bsoncore.NewDocumentBuilder()
	for _, el := range elems {
		f, v := el.Key(), el.Value()
		if o.MetaField != "" && (f == o.MetaField || strings.HasPrefix(f, o.MetaField+".")) {
			b.AppendValue("meta"+f[len(o.MetaField):], v)
			continue
		}
		if s, ok := v.StringValueOK(); ok && s == "2dsphere" {
			// mongod indexes the measurements' points (data.<f>:
			// "2dsphere_bucket"), a key type Lode does not have.
			return nil, errs.New(errs.NotImplemented, "2dsphere indexes on time-series measurement fields are not supported by Lode: index '%s' under the metaField instead", f)
		}
		if !bsonutil.IsNumber(v.Type) {
			return nil, errs.New(errs.BadValue, "Invalid index spec for time-series collection: %s. Indexes on measurement fields are only supported ascending or descending: a %s index on '%s' is not", key.String(), v.String(), f)
		}
		dir := bsonutil.AsFloat64(v)
		if dir == 0 {
			return nil, errs.New(errs.CannotCreateIndex, "Values in the index key pattern cannot be 0.")
		}
		lo, hi := "control.min."+f, "control.max."+f
		if dir < 0 {
			b.AppendInt32(hi, -1).AppendInt32(lo, -1)
		} else {
			b.AppendInt32(lo, 1).AppendInt32(hi, 1)
		}
	}
	return b.Build(), nil
}

// UserIndexKey translates a buckets index key back to the time series
// collection's terms; ok is false for a key that is not a translation
// (an index made on the buckets directly).
func UserIndexKey(o *Options, key bsoncore.Document) (bsoncore.Document, bool) {
	elems, err := key.Elements()
	if err != nil {
		return nil, false
	}
	b := bsoncore.NewDocumentBuilder()
	for i := 0; i < len(elems); i++ {
		f, v := elems[i].Key(), elems[i].Value()
		switch {
		case o.MetaField != "" && (f == "meta" || strings.HasPrefix(f, "meta.")):
			b.AppendValue(o.MetaField+f[len("meta"):], v)
		case strings.HasPrefix(f, "control.min.") || strings.HasPrefix(f, "control.max."):
			if i+1 >= len(elems) {
				return nil, false
			}
			name := f[len("control.min."):]
			g := elems[i+1].Key()
			asc := strings.HasPrefix(f, "control.min.") && g == "control.max."+name
			desc := strings.HasPrefix(f, "control.max.") && g == "control.min."+name
			if !asc && !desc {
				return nil, false
			}
			if asc {
				b.AppendInt32(name, 1)
			} else {
				b.AppendInt32(name, -1)
			}
			i++
		default:
			return nil, false
		}
	}
	return b.Build(), true
}

// IndexName is the default name of an index with key: "<field>_<value>"
// joined by "_", as mongod names indexes (bsonutil.DefaultIndexName).
func IndexName(key bsoncore.Document) string { return bsonutil.DefaultIndexName(key) }

// BucketIndexSpec translates one createIndexes spec on the time series
// collection to its buckets form: the key translated, the name the user's
// (or the default from the user's key). Options the translation cannot
// keep are refused.
func BucketIndexSpec(o *Options, spec bsoncore.Document) (bsoncore.Document, error) {
	elems, err := spec.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid index spec: %v", err)
	}
	var key bsoncore.Document
	hasName := false
	for _, el := range elems {
		switch el.Key() {
		case "key":
			d, ok := el.Value().DocumentOK()
			if !ok {
				return nil, errs.New(errs.TypeMismatch, "The field 'key' must be an object, but got %s", bsonutil.TypeName(el.Value().Type))
			}
			key = d
		case "name":
			hasName = true
		}
	}
	if key == nil {
		return nil, errs.New(errs.FailedToParse, "The 'key' field is a required property of an index specification")
	}
	bkey, err := BucketIndexKey(o, key)
	if err != nil {
		return nil, err
	}
	b := bsoncore.NewDocumentBuilder()
	for _, el := range elems {
		switch k := el.Key(); k {
		case "key":
			b.AppendDocument("key", bkey)
		case "name", "v", "hidden", "sparse", "2dsphereIndexVersion", "collation", "background", "dropDups", "storageEngine":
			b.AppendValue(k, el.Value())
		case "ns":
			// The namespace older clients send (mongorestore): the time
			// series collection's, which the buckets' index does not keep.
		case "unique":
			if on, _ := el.Value().BooleanOK(); on {
				return nil, errs.New(errs.InvalidOptions, "Unique indexes are not supported on time-series collections")
			}
		case "expireAfterSeconds":
			return nil, errs.New(errs.InvalidOptions, "TTL indexes are not supported on time-series collections: use the collection's expireAfterSeconds")
		case "partialFilterExpression":
			return nil, errs.New(errs.NotImplemented, "partial indexes on time-series collections are not supported by Lode")
		default:
			return nil, errs.New(errs.NotImplemented, "index option '%s' on a time-series collection is not supported by Lode", k)
		}
	}
	if !hasName {
		b.AppendString("name", IndexName(key))
	}
	return b.Build(), nil
}
