package expr

import (
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"strings"
)

func init() {
	register(map[string]opParser{"$objectToArray": parseObjectToArray, "$arrayToObject": parseArrayToObject})
}

// parseObjectToArray implements $objectToArray: a document as an array
// of {k, v} documents.
var parseObjectToArray = unary(func(name string, v bsoncore.Value) (bsoncore.Value, error) {
	if IsNullish(v) {
		return Null, nil
	}
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return Missing, errs.New(errs.Location40390, "$objectToArray requires a document input, found: %s", bsonutil.TypeName(v.Type))
	}
	b := NewArrayBuilder()
	forEach(v.Data, func(k []byte, x bsoncore.Value) bool {
		d := NewDocBuilder()
		d.Append("k", String(string(k)))
		d.Append("v", x)
		b.Append(d.Value())
		return true
	})
	return b.Value(), nil
})

// parseArrayToObject implements $arrayToObject: an array of {k, v}
// documents or [k, v] pairs as a document.
var parseArrayToObject = unary(func(name string, v bsoncore.Value) (bsoncore.Value, error) {
	if IsNullish(v) {
		return Null, nil
	}
	if v.Type != bsoncore.TypeArray {
		return Missing, errs.New(errs.Location40386, "$arrayToObject requires an array input, found: %s", bsonutil.TypeName(v.Type))
	}
	var keys []string
	vals := map[string]bsoncore.Value{}
	var err error
	kind := 0 // 1 pairs, 2 k/v docs
	forEach(v.Data, func(_ []byte, x bsoncore.Value) bool {
		var k, val bsoncore.Value
		switch x.Type {
		case bsoncore.TypeArray:
			if kind == 2 {
				err = errs.New(errs.Location40391, "$arrayToObject requires a consistent input format. Elements must all be arrays or all be objects. Object found, but array was expected")
				return false
			}
			kind = 1
			p := values(x)
			if len(p) != 2 {
				err = errs.New(errs.Location40397, "$arrayToObject requires an array of size 2 arrays,found array of size: %d", len(p))
				return false
			}
			k, val = p[0], p[1]
		case bsoncore.TypeEmbeddedDocument:
			if kind == 1 {
				err = errs.New(errs.Code(40396), "$arrayToObject requires a consistent input format. Elements must all be arrays or all be objects. Object was detected, array was expected")
				return false
			}
			kind = 2
			raw := rawSpec(x)
			if len(raw) != 2 {
				err = errs.New(errs.Location40392, "$arrayToObject requires an object keys of 'k' and 'v'. Found incorrect number of keys:%d", len(raw))
				return false
			}
			if raw["k"].Type == 0 || raw["v"].Type == 0 {
				err = errs.New(errs.Code(40393), "$arrayToObject requires an object with keys 'k' and 'v'. Missing either or both keys from: %s", bsonutil.FormatValue(x, msgStyle))
				return false
			}
			k, val = raw["k"], raw["v"]
		default:
			err = errs.New(errs.Location40398, "Unrecognised input type format for $arrayToObject: %s", bsonutil.TypeName(x.Type))
			return false
		}
		if k.Type != bsoncore.TypeString {
			if kind == 1 {
				err = errs.New(errs.Code(40395), "$arrayToObject requires an array of key-value pairs, where the key must be of type string. Found key type: %s", bsonutil.TypeName(k.Type))
			} else {
				err = errs.New(errs.Location40394, "$arrayToObject requires an object with keys 'k' and 'v', where the value of 'k' must be of type string. Found type: %s", bsonutil.TypeName(k.Type))
			}
			return false
		}
		ks := k.StringValue()
		if strings.IndexByte(ks, 0) >= 0 {
			code := errs.Code(4940400)
			if kind == 2 {
				code = errs.Code(4940401)
			}
			err = errs.New(code, "Key field cannot contain an embedded null byte")
			return false
		}
		if len(ks) > 0 && ks[0] == '$' {
			err = errs.New(errs.Location5217400, "Invalid key '%s' for $arrayToObject, keys cannot begin with '$'", ks)
			return false
		}
		if _, ok := vals[ks]; !ok {
			keys = append(keys, ks)
		}
		vals[ks] = val
		return true
	})
	if err != nil {
		return Missing, err
	}
	d := NewDocBuilder()
	for _, k := range keys {
		d.Append(k, vals[k])
	}
	return d.Value(), nil
})
