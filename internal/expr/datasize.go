package expr

import (
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The data size operators: $bsonSize (bytes of a document's BSON
// encoding) and $binarySize (bytes of a string's UTF-8 or of a BinData's
// payload). Both give null for null or missing.

func init() {
	register(map[string]opParser{"$bsonSize": parseBSONSize, "$binarySize": parseBinarySize})
}

func parseBSONSize(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	es, err := parseN(name, args, pc, 1, 1)
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		v, err := es[0].Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		if IsNullish(v) {
			return Null, nil
		}
		if v.Type != bsoncore.TypeEmbeddedDocument {
			return Missing, errs.New(errs.Location31393, "$bsonSize requires a document input, found: %s", bsonutil.TypeName(v.Type))
		}
		return Int32(int32(len(v.Data))), nil
	}), nil
}

func parseBinarySize(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	es, err := parseN(name, args, pc, 1, 1)
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		v, err := es[0].Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		switch v.Type {
		case 0, bsoncore.TypeNull, bsoncore.TypeUndefined:
			return Null, nil
		case bsoncore.TypeString:
			return Int32(int32(len(v.StringValue()))), nil
		case bsoncore.TypeBinary:
			_, data := v.Binary()
			return Int32(int32(len(data))), nil
		}
		return Missing, errs.New(errs.Location51276, "$binarySize requires a string or BinData argument, found: %s", bsonutil.TypeName(v.Type))
	}), nil
}
