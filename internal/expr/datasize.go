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
	register(map[string]opParser{"$bsonSize": unaryNullable(bsonSize), "$binarySize": unaryNullable(binarySize)})
}

func bsonSize(_ string, v bsoncore.Value) (bsoncore.Value, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return Missing, errs.New(errs.Location31393, "$bsonSize requires a document input, found: %s", bsonutil.TypeName(v.Type))
	}
	return Int32(int32(len(v.Data))), nil
}

func binarySize(_ string, v bsoncore.Value) (bsoncore.Value, error) {
	switch v.Type {
	case bsoncore.TypeString:
		return Int32(int32(len(v.StringValue()))), nil
	case bsoncore.TypeBinary:
		_, data := v.Binary()
		return Int32(int32(len(data))), nil
	}
	return Missing, errs.New(errs.Location51276, "$binarySize requires a string or BinData argument, found: %s", bsonutil.TypeName(v.Type))
}
